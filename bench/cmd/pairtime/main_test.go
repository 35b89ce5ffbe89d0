package main

import (
	"slices"
	"testing"
	"time"
)

func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "seer predict -stats T", want: []string{"seer", "predict", "-stats", "T"}},
		{in: "  a   b  ", want: []string{"a", "b"}},
		{in: `sh -c 'exec x >>/tmp/f 2>&1'`, want: []string{"sh", "-c", "exec x >>/tmp/f 2>&1"}},
		{in: `a "b c\"d" e\ f`, want: []string{"a", `b c"d`, "e f"}},
		{in: `a''b`, want: []string{"ab"}},
		{in: `''`, want: []string{""}},
		{in: `a 'b`, err: true},
		{in: `a "b`, err: true},
	} {
		got, err := splitWords(tc.in)
		if (err != nil) != tc.err || !tc.err && !slices.Equal(got, tc.want) {
			t.Errorf("splitWords(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestMeasure(t *testing.T) {
	far := time.Now().Add(time.Minute)
	r, err := measure([]string{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; exit 3"}, far)
	if err != nil {
		t.Fatal(err)
	}
	if r.exit != 3 {
		t.Errorf("exit %d, want 3", r.exit)
	}
	if r.v[figWall] <= 0 || r.v[figPeak] <= 0 {
		t.Errorf("figures %v: want wall and peak above zero", r.v)
	}
	if r.v[figCPU] != r.v[figUser]+r.v[figSys] {
		t.Errorf("cpu %v is not user+sys %v", r.v[figCPU], r.v[figUser]+r.v[figSys])
	}
	if _, err := measure([]string{"/nonexistent/pairtime-test"}, far); err == nil {
		t.Error("a command that cannot start: no error")
	}
	start := time.Now()
	if r, err := measure([]string{"sleep", "30"}, time.Now().Add(100*time.Millisecond)); err != nil || r.exit == 0 {
		t.Errorf("a command past the deadline: exit %d, %v; want it killed", r.exit, err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("a command past the deadline ran %v", d)
	}
}
