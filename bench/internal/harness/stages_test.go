package harness

import (
	"testing"
	"time"
)

func TestSeerStages(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stderr string
		wall   time.Duration
		want   Stages
		ok     bool
	}{
		{"none", "seer: recording p\n", time.Second, Stages{}, false},
		{"one package", `  0.06s racetest building 0
  1.40s racetest running 0
  4.90s racetest converting 0
  6.40s racetest analysing 12464905
`, 8800 * time.Millisecond, Stages{Run: 3500 * time.Millisecond, Convert: 1500 * time.Millisecond, Analyse: 2400 * time.Millisecond, Other: 1400 * time.Millisecond}, true},
		{"builds ahead", `  0.50s a building 0
  1.00s a running 0
  1.20s b building 0
  2.00s c building 0
  3.00s a converting 0
  4.00s a analysing 10
  6.00s b running 0
  6.50s b converting 0
  6.50s b analysing 5
  7.00s c running 0
  7.50s c converting 0
  7.60s c analysing 5
`, 8 * time.Second, Stages{Run: 3000 * time.Millisecond, Convert: 1100 * time.Millisecond, Analyse: 2900 * time.Millisecond, Other: 1000 * time.Millisecond}, true},
	} {
		got, ok := SeerStages([]byte(tc.stderr), tc.wall)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: SeerStages = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
