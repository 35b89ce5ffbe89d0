// This file tests CheckWitnesses (api.go): one checker for several
// findings of a trace, each checked, and the first rejected one named.

package predict

import "testing"

func TestCheckWitnessesNamesTheRejected(t *testing.T) {
	tr, writes := blockedRun(3, 2)
	fs := ObservedBlocked(tr, false)
	if len(fs) != 1 {
		t.Fatalf("%d findings, want one: %+v", len(fs), fs)
	}
	good := fs[0]
	bad := good
	bad.Events = []int{writes[1] - 1} // the second worker's start: its write comes after it
	for _, tc := range []struct {
		name string
		fs   []*Finding
		want int // the index CheckWitnesses returns
	}{
		{"none", nil, -1},
		{"one good", []*Finding{&good}, -1},
		{"two good", []*Finding{&good, &good}, -1},
		{"bad first", []*Finding{&bad, &good}, 0},
		{"bad last", []*Finding{&good, &good, &bad}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckWitnesses(tr, tc.fs, Options{})
			if got != tc.want || (err != nil) != (tc.want >= 0) {
				t.Errorf("CheckWitnesses = %d, %v; want %d", got, err, tc.want)
			}
			if tc.want < 0 {
				for _, f := range tc.fs {
					if err := CheckWitness(tr, f, Options{}); err != nil {
						t.Errorf("CheckWitness rejects a finding CheckWitnesses accepts: %v", err)
					}
				}
			} else if err := CheckWitness(tr, tc.fs[tc.want], Options{}); err == nil {
				t.Errorf("CheckWitness accepts finding %d, which CheckWitnesses rejects", tc.want)
			}
		})
	}
}
