package harness

import (
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{5}, 5},
		{[]time.Duration{9, 1, 5}, 5},
		{[]time.Duration{4, 1, 3, 2}, 2}, // (2+3)/2 in integer nanoseconds
		{[]time.Duration{10, 30}, 20},
	} {
		in := append([]time.Duration(nil), tc.xs...)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.xs[i] {
				t.Fatalf("Median sorted its argument: %v", in)
			}
		}
	}
	if got := Median([]float64{1, 2}); got != 1.5 {
		t.Errorf("Median(1, 2) = %v, want 1.5", got)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		got, want string
	}{
		{FormatBytes(0), "-"},
		{FormatBytes(3000), "3 KB"},
		{FormatBytes(87 << 20), "87.0 MB"},
		{FormatBytes(512 << 20), "512 MB"},
		{FormatBytes(1288490189), "1.20 GB"},
		{FormatDuration(0), "-"},
		{FormatDuration(840 * time.Millisecond), "0.84s"},
		{FormatDuration(12340 * time.Millisecond), "12.3s"},
		{FormatDuration(123 * time.Second), "123s"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

func sideOf(tool string, runs ...Run) Side { return Side{Tool: tool, Runs: runs} }

func TestResult(t *testing.T) {
	r := Result{
		Suite:  "lru",
		Target: 3,
		GoTest: sideOf("go test -race", Run{Wall: 2 * time.Second, MaxRSS: 100 << 20, TreeRSS: 150 << 20}, Run{Wall: 4 * time.Second, MaxRSS: 90 << 20}, Run{Wall: 3 * time.Second}),
		Seer:   sideOf("seer check", Run{Wall: 9 * time.Second, MaxRSS: 600 << 20, Exit: 1}, Run{Wall: 6 * time.Second, TreeRSS: 700 << 20, Exit: 1}, Run{Wall: 5 * time.Second, Exit: 1}),
	}
	if got := r.GoTest.MedianWall(); got != 3*time.Second {
		t.Errorf("go test median = %v", got)
	}
	if got := r.Ratio(); got != 2 {
		t.Errorf("ratio = %v, want 2", got)
	}
	if got := r.GoTest.PeakRSS(); got != 150<<20 {
		t.Errorf("go test peak = %d, want the tree's %d", got, 150<<20)
	}
	if got := r.Seer.PeakRSS(); got != 700<<20 {
		t.Errorf("seer peak = %d", got)
	}
	if !r.Meets() {
		t.Error("2x on a 3x target under 1 GB does not meet it")
	}
	r.Target = 1.5
	if r.Meets() {
		t.Error("2x meets a 1.5x target")
	}
	r.Target = 3
	r.Seer.Runs[0].MaxRSS = 2 << 30
	if r.Meets() {
		t.Error("2 GB meets the memory target")
	}
	if (Result{Target: 3}).Meets() {
		t.Error("a suite without runs meets its target")
	}
}

func TestExits(t *testing.T) {
	for _, tc := range []struct {
		side Side
		want string
	}{
		{sideOf("x"), ""},
		{sideOf("x", Run{Exit: 1}, Run{Exit: 1}), "1"},
		{sideOf("x", Run{Exit: 0}, Run{Exit: 1}, Run{Exit: 0}), "0,1,0"},
		{sideOf("x", Run{Exit: -1, Signal: "killed"}, Run{Exit: 0}), "killed,0"},
	} {
		if got := tc.side.Exits(); got != tc.want {
			t.Errorf("Exits(%+v) = %q, want %q", tc.side.Runs, got, tc.want)
		}
	}
}

func TestWriteTable(t *testing.T) {
	results := []Result{
		{
			Suite: "race", Target: 2,
			GoTest: sideOf("go test -race", Run{Wall: 4300 * time.Millisecond, MaxRSS: 120 << 20, Exit: 1, Note: "233 race reports"}),
			Seer: sideOf("seer check", Run{Wall: 23 * time.Second, MaxRSS: 1500 << 20, TreeAnon: 300 << 20, Exit: 1, Note: "233 findings",
				Stages: &Stages{Run: 3500 * time.Millisecond, Convert: 1500 * time.Millisecond, Analyse: 16 * time.Second, Other: 2 * time.Second}}),
		},
		{
			Suite: "lru", Target: 3,
			GoTest: sideOf("go test -race", Run{Wall: 2 * time.Second, MaxRSS: 80 << 20}, Run{Wall: 2 * time.Second, MaxRSS: 80 << 20}),
			Seer:   sideOf("seer check", Run{Wall: 5 * time.Second, MaxRSS: 300 << 20, Note: "a"}, Run{Wall: 5 * time.Second, MaxRSS: 300 << 20, Note: "b"}),
		},
		{Suite: "stress-lock", Target: 3, Err: "prepare: disk full"},
	}
	var b strings.Builder
	if err := WriteTable(&b, results); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	header := lines[0]
	for _, col := range []string{"suite", "go test -race", "seer check", "ratio", "RSS go test", "RSS seer", "exit go", "exit seer", "meets"} {
		if !strings.Contains(header, col) {
			t.Errorf("header lacks %q: %s", col, header)
		}
	}
	// Columns line up: every row starts its second column where the header does.
	col := strings.Index(header, "runs")
	for _, l := range lines[1:4] {
		if len(l) <= col || l[col-1] != ' ' || l[col] == ' ' {
			t.Errorf("row not aligned with the header:\n%s\n%s", header, l)
		}
	}
	// The stages of seer's runs, for the suites that have them.
	var stages []string
	for i, l := range lines {
		if strings.HasPrefix(l, "seer check's time") {
			stages = lines[i : i+2]
		}
	}
	if len(stages) != 2 || strings.Join(strings.Fields(stages[0]), " ") != "seer check's time run conversion after run analysis other" ||
		strings.Join(strings.Fields(stages[1]), " ") != "race 3.50s 1.50s 16.0s 2.00s" {
		t.Errorf("the stages of seer's runs are not listed, or wrong:\n%s", out)
	}
	for _, want := range []string{
		"race         1/1   4.30s          23.0s       5.3x   ≤2x     120 MB       1.46 GB   1        1          no",
		"lru          2/2   2.00s          5.00s       2.5x   ≤3x     80.0 MB      300 MB    0        0          yes",
		"stress-lock  0/0   -              -           -      ≤3x     -            -         -        -          error",
		"race, go test -race: 233 race reports",
		"race, seer check: 233 findings",
		"race, seer check: peak RSS 1.46 GB, of which anonymous at most 300 MB (the rest is file-backed)",
		"lru, seer check, run 1: a",
		"lru, seer check, run 2: b",
		"stress-lock: prepare: disk full",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
