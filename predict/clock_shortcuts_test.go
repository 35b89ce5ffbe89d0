// This file tests the clock passes' shortcuts for many goroutines
// against the plain ways. The journal's joins (clock_journal.go), with
// and without passing over the groups a receiver holds (treePrune), and the
// dropping of clocks never read again (clock_drop.go), against whole
// joins that keep every clock: on every trace the differential tests
// share, on issue 31's ring and on the saved trace of trace/testdata,
// each pass gives the same history, the same rises at release-acquire
// events, the same answer to whether read-from is implied and the same
// clock at every visited event, with dense mirrors and base tags or
// without. The history's narrow forms (16-bit keys and offsets,
// clock_rises.go), against its wide ones: the same components and
// clocks at every position.

package predict

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"testing"

	synthtrace "github.com/seer-tools/seer/internal/synth"
	"github.com/seer-tools/seer/trace"
)

func TestPassShortcutsSameHistory(t *testing.T) {
	traces := randomTraces(31, 300, func(r *rand.Rand, i int) genParams {
		p := syncParams(r)
		p.goroutines += r.Intn(8)
		return p
	}, true)
	for _, shape := range [][2]int{{2, 3}, {30, 6}, {200, 4}} {
		tr, err := synthtrace.Ring(shape[0], shape[1])
		if err != nil {
			t.Fatal(err)
		}
		traces = append(traces, tr)
	}
	saved, err := trace.ReadFile("../trace/testdata/format/small.v1.seertrace")
	if err != nil {
		t.Fatal(err)
	}
	traces = append(traces, saved)
	// The last is the SHB layer's, states at want and a visit: it keeps
	// no log, and so no journal, but passes that do run beside it.
	modes := []clockMode{{}, {locks: true}, {locks: true, serial: true, rf: true}, {rf: true, acqRises: true}, {rfCheck: true},
		{locks: true, serial: true, rf: true, want: map[int32][]int32{}}}
	// visits records the clock each event is judged by (clockMode.visit).
	type visits [][]centry
	// shortcuts: none, the journal's joins without passing over the
	// groups a receiver holds (treePrune) and clocks dropped, all but
	// the journal's back-off (clock_journal_backoff.go), or all.
	skips := 0
	defer func(f func()) { onJournalSkip = f }(onJournalSkip)
	onJournalSkip = func() { skips++ }
	pass := func(c *ctp, m *memory, mode clockMode, shortcuts int, dense bool) (*clocks, visits) {
		defer func(j, d, p bool, b uint8) {
			journalJoins, dropDead, treePrune, journalBackoffCap = j, d, p, b
		}(journalJoins, dropDead, treePrune, journalBackoffCap)
		journalJoins, dropDead, treePrune = shortcuts > 0, shortcuts > 0, shortcuts > 1
		journalBackoffCap = 0
		if shortcuts > 2 {
			journalBackoffCap = 3
		}
		var vs visits
		if mode.want != nil {
			vs = recordVisits(c, &mode) // clock_mirror_test.go
		}
		var out *clocks
		withJoins(dense, dense, func() {
			var err error
			if out, err = newClocks(context.Background(), c, m, mode); err != nil {
				t.Fatal(err)
			}
		})
		return out, vs
	}
	for it, tr := range traces {
		c := newCTP(tr)
		m := newMemory(c)
		for _, mode := range modes {
			for _, dense := range []bool{false, true} {
				ref, refv := pass(c, m, mode, 0, dense)
				for sh := 1; sh <= 3; sh++ {
					got, gotv := pass(c, m, mode, sh, dense)
					if !reflect.DeepEqual(ref.h, got.h) {
						t.Fatalf("trace %d (%d events), mode %+v, dense %v, shortcuts %d: the history differs", it, len(tr.Events), mode, dense, sh)
					}
					if !reflect.DeepEqual(ref.acq, got.acq) || ref.rfImplied != got.rfImplied {
						t.Fatalf("trace %d, mode %+v, dense %v, shortcuts %d: rises at release-acquire events or read-from implied (%v, %v) differ", it, mode, dense, sh, ref.rfImplied, got.rfImplied)
					}
					if !reflect.DeepEqual(refv, gotv) {
						t.Fatalf("trace %d, mode %+v, dense %v, shortcuts %d: the clocks events are judged by differ", it, mode, dense, sh)
					}
				}
			}
		}
	}
	if skips == 0 {
		t.Fatal("the journal's back-off skipped no try: the traces do not test it")
	}
}

// A history reads the same in its narrow forms (16-bit keys and offsets,
// or no offsets where most components rose once, clock_rises.go) and its
// wide ones: every component at every position, and every clock whole.
func TestRiseLogNarrowSameAsWide(t *testing.T) {
	oneEach, multi := 0, 0 // narrow goroutines with no offsets, of them with components that rose more than once
	traces := randomTraces(33, 100, func(r *rand.Rand, i int) genParams { return syncParams(r) }, true)
	ring, err := synthtrace.Ring(30, 4)
	if err != nil {
		t.Fatal(err)
	}
	traces = append(traces, ring)
	for it, tr := range traces {
		c := newCTP(tr)
		m := newMemory(c)
		for _, mode := range []clockMode{{}, {rf: true, acqRises: true}} {
			var wide *clocks
			func() {
				defer func(n int) { narrowMax = n }(narrowMax)
				narrowMax = 0
				wide, _ = newClocks(context.Background(), c, m, mode)
			}()
			narrow, _ := newClocks(context.Background(), c, m, mode)
			for g := range c.byG {
				if wide.h.k16[g] != nil || wide.h.o16[g] != nil || narrow.h.keys[g] != nil || narrow.h.off[g] != nil {
					t.Fatalf("trace %d: goroutine %d's history is not in the form asked for", it, g)
				}
				if wide.h.keysOf(int32(g)).len() > 0 && wide.h.off[g] == nil {
					t.Fatalf("trace %d: goroutine %d's wide history has no offsets", it, g)
				}
				if narrow.h.keysOf(int32(g)).len() > 0 && narrow.h.o16[g] == nil {
					oneEach++
					if len(narrow.h.multi[g]) > 0 {
						multi++
					}
				}
			}
			for g := range c.byG {
				g := int32(g)
				for p := int32(0); p <= int32(len(c.byG[g])); p++ {
					sameClockAt(t, fmt.Sprintf("trace %d, mode %+v (narrow)", it, mode), wide.h, narrow.h, g, p, int32(len(c.byG)))
				}
			}
			if !reflect.DeepEqual(wide.acq, narrow.acq) {
				t.Fatalf("trace %d, mode %+v: rises at release-acquire events differ", it, mode)
			}
		}
	}
	if oneEach == 0 || multi == 0 {
		t.Fatalf("%d goroutines' histories without offsets, %d of them with components that rose more than once: the form went untested", oneEach, multi)
	}
}
