// This file tests the checker's nil-dereference kind (nilderef.go) on
// small Go-like traces: it accepts a schedule whose last read sees the
// store, the store's critical section moved before the reader's, and
// rejects each way of getting the claim wrong.

package witness

import (
	"strings"
	"testing"
)

// Events: 0 go g2, 1 start g2, 2 lock mu, 3 read p, 4 unlock mu,
// 5 lock mu, 6 write p (the store of nil), 7 unlock mu: the reader's
// section came first.
const nilDerefTrace = `
g1 go g2
g2 lock mu
g2 r p
g2 unlock mu
g1 lock mu
g1 w p
g1 unlock mu
`

// Events: 0 go g2, 1 go g3, 2 start g2, 3 read p, 4 write p, 5 start g3,
// 6 write p: g3 writes p again after g1.
const nilDerefTwoWrites = `
g1 go g2
g1 go g3
g2 r p
g1 w p
g3 w p
`

func TestCheckNilDeref(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		s           *Schedule
		want        string // "" means accepted
	}{
		{"store's section first", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6, 3}, Witness: []int{0, 5, 6, 7, 1, 2, 3}}, ""},
		{"prefix form", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6, 3}, Prefix: 8, Witness: []int{2, 3}}, ""},
		{"read not last", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6, 3}, Witness: []int{0, 5, 6, 7, 1, 2, 3, 4}}, "sees writer"},
		{"store not run", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6, 3}, Witness: []int{0, 1, 2, 3}}, "does not run in the schedule"},
		{"store inside the reader's section", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6, 3}, Witness: []int{0, 1, 2, 5, 6, 3}}, "held"},
		{"store after the read", nilDerefTwoWrites,
			&Schedule{Kind: NilDeref, Events: []int{4, 3}, Witness: []int{0, 1, 2, 3, 4}}, "does not run before"},
		{"another write between", nilDerefTwoWrites,
			&Schedule{Kind: NilDeref, Events: []int{4, 3}, Witness: []int{0, 1, 4, 5, 6, 2, 3}}, "runs between"},
		{"the later write", nilDerefTwoWrites,
			&Schedule{Kind: NilDeref, Events: []int{6, 3}, Witness: []int{0, 1, 4, 5, 6, 2, 3}}, ""},
		{"events swapped", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{3, 6}, Witness: []int{0, 5, 6, 7, 1, 2, 3}}, "not a plain write"},
		{"one goroutine", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6, 5}, Witness: []int{0, 5, 6, 7, 1, 2, 3}}, "not a plain read"},
		{"a slice's store of nil first", nilDerefTrace,
			&Schedule{Kind: IndexOutOfRange, Events: []int{6, 3}, Witness: []int{0, 5, 6, 7, 1, 2, 3}}, ""},
		{"a map's store of nil first", nilDerefTrace,
			&Schedule{Kind: NilMapWrite, Events: []int{6, 3}, Witness: []int{0, 5, 6, 7, 1, 2, 3}}, ""},
		{"a map's read not last", nilDerefTrace,
			&Schedule{Kind: NilMapWrite, Events: []int{6, 3}, Witness: []int{0, 5, 6, 7, 1, 2, 3, 4}}, "sees writer"},
		{"one event", nilDerefTrace,
			&Schedule{Kind: NilDeref, Events: []int{6}, Witness: []int{0, 5, 6, 7, 1, 2, 3}}, "needs a write and a read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := goTrace(t, tc.trace).Check(tc.s)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q, want %q", err, tc.want)
			}
		})
	}
}
