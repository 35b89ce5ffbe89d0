// This file tests the pre-pass (analysis.prePass, analyze_phases.go): the
// memory it makes beside the CTP, from the events alone, is the memory
// newMemory makes from the finished CTP.

package predict

import (
	"context"
	"math/rand"
	"reflect"
	"testing"
)

// TestPrePassMemory compares the pre-pass's CTP and memory with newCTP's
// and newMemory's, made one after the other, on the differential tests'
// random traces and the synthetic lock and channel traces; it fails if
// the memory made on the pre-pass's second goroutine differs in any
// location, flag or writer of a read.
func TestPrePassMemory(t *testing.T) {
	traces := randomTraces(31, 200, func(r *rand.Rand, _ int) genParams { return syncParams(r) }, true)
	for i, tr := range traces {
		o := Options{}
		a := &analysis{ctx: context.Background(), o: o.defaults(), t: tr, res: &Result{}}
		a.prePass()
		c := newCTP(tr)
		m := newMemory(c)
		if !reflect.DeepEqual(a.m, m) {
			t.Fatalf("trace %d (%d events): the pre-pass's memory differs from newMemory's", i, len(tr.Events))
		}
		if !reflect.DeepEqual(a.c, c) {
			t.Fatalf("trace %d (%d events): the pre-pass's CTP differs from newCTP's", i, len(tr.Events))
		}
		if a.res.Stats.Locations != len(m.locs) {
			t.Errorf("trace %d: %d locations counted, want %d", i, a.res.Stats.Locations, len(m.locs))
		}
	}
}
