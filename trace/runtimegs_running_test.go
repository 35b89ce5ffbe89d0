// This file tests runningTest's choice (runtimegs.go): the test of the
// goroutine whose last event, in the table or in the side log, comes
// latest in the trace.

package trace

import "testing"

// TestRunningTestSide gives runningTest goroutines of different tests with
// last events in the table and in the side log, and checks that it names
// the test of the latest in trace order (lastKey).
func TestRunningTestSide(t *testing.T) {
	rec := func(k int32) int32 { return -2 - k } // record k of the log
	type goro struct {
		test string
		last int32 // the scan's last event: a table index, rec(k), or -1
	}
	for _, tc := range []struct {
		name string
		recs []int // the pos of each record of the log, in order
		gs   []goro
		want string
	}{
		{"table, latest last", nil, []goro{{"TestA", 5}, {"TestB", 2}, {"TestC", 9}, {"TestD", 7}}, "TestC"},
		{"table, latest first", nil, []goro{{"TestA", 8}, {"TestB", 2}, {"TestC", 4}}, "TestA"},
		{"record past the table", []int{2, 10}, []goro{{"TestA", 9}, {"TestB", rec(1)}, {"TestC", rec(0)}}, "TestB"},
		{"table event after the record of its pos", []int{3}, []goro{{"TestA", rec(0)}, {"TestB", 3}, {"TestC", 1}}, "TestB"},
		{"record before the table event past its pos", []int{4, 4}, []goro{{"TestA", 3}, {"TestB", rec(1)}, {"TestC", rec(0)}}, "TestB"},
		{"goroutines of no test and with no event skipped", []int{6}, []goro{{"TestA", 2}, {"", rec(0)}, {"TestB", -1}, {"", 7}}, "TestA"},
		{"none", nil, []goro{{"", 3}, {"TestA", -1}}, ""},
	} {
		c := &converter{side: newSideLog(), scan: &localScan{}, conv: []*convGoroutine{nil}}
		for _, pos := range tc.recs {
			if !c.side.hold(1, 1) {
				t.Fatal("the log does not hold life 1")
			}
			e := Event{Op: OpRead, Addr: lifeBase + 1<<lifeShift, Size: 8, Obj: lifeObj}
			c.side.add(&e, 1, pos)
		}
		c.scan.last = []int32{-1, -1}
		for _, g := range tc.gs {
			c.conv = append(c.conv, &convGoroutine{test: g.test})
			c.scan.last = append(c.scan.last, g.last, -1)
		}
		if got := c.runningTest(); got != tc.want {
			t.Errorf("%s: runningTest() = %q, want %q", tc.name, got, tc.want)
		}
	}
}
