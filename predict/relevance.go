// This file implements control relevance closed over read-from: the set
// of plain reads that a witness may let see another writer (RVPredict's
// control-flow abstraction: Huang, Meredith and Roşu, "Maximal Sound
// Predictive Race Detection with Control Flow Abstraction", PLDI 2014,
// where only reads that reach a branch must keep their values).
//
// Options.ControlIrrelevant answers per read: the value cannot reach a
// branch of its goroutine. As package static explains ("Control
// relevance"), that is not enough on its own: the value may reach a store,
// and the write it makes may be what a relevant read observes. Changing
// the first read's value then changes the second's. So a read counts as
// irrelevant only if no write it feeds (Options.Feeds) is observed by a
// relevant read, where relevance is itself closed in the same way (a
// least fixpoint: a read becomes relevant when a write it feeds is
// observed by a relevant read, until nothing changes). A read whose
// writes are unknown is relevant.
//
// The set is computed once per trace and used by the pre-pass (the causal
// cone), the candidates' plans, the encoder and the witness checker: every
// stage judges a read by the same answer.

package predict

import (
	"context"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// bitset is a set of event indices.
type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) has(i int32) bool { return b != nil && b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) clear(i int32)    { b[i>>6] &^= 1 << (uint(i) & 63) }
func (b bitset) count() (n int) {
	for _, w := range b {
		for ; w != 0; w &= w - 1 {
			n++
		}
	}
	return n
}

// relaxedReads returns the plain reads of shared locations that may see
// another writer (nil if none): those that ControlIrrelevant names, whose
// fed writes Feeds knows, and that the closure leaves irrelevant. loc is
// trace.GroupAccesses's, spanOf gives a location's bytes; shared says which locations are touched by
// two goroutines and written (the only ones where a writer can change).
func relaxedReads(ctx context.Context, t *trace.Trace, loc []int32, spanOf func(l int32) trace.Span, shared func(l int32) bool, o *Options) (bitset, error) {
	if o.ControlIrrelevant == nil {
		return nil, nil
	}
	ev := t.Events
	n := len(ev)
	cand := newBitset(n)
	type edge struct{ w, r int32 } // read r feeds write w, or r observes w
	var feeds []edge
	// writesOf validates Feeds's answer for read i: writes of the same
	// goroutine after i. Anything else, or unknown, makes i relevant.
	writesOf := func(i int) ([]int, bool) {
		if o.Feeds == nil {
			return nil, false
		}
		ws, known := o.Feeds(t, i)
		if !known {
			return nil, false
		}
		for _, w := range ws {
			if w <= i || w >= n || ev[w].G != ev[i].G || !isWrite(ev[w].Op) || !ev[w].IsMem() {
				return nil, false
			}
		}
		return ws, true
	}
	for i := range ev {
		if i&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := &ev[i]
		if e.Op != trace.OpRead || loc[i] < 0 || !shared(loc[i]) || !o.ControlIrrelevant(t, i) {
			continue
		}
		ws, ok := writesOf(i)
		if !ok {
			continue
		}
		cand.set(int32(i))
		for _, w := range ws {
			feeds = append(feeds, edge{int32(w), int32(i)})
		}
	}
	if len(feeds) == 0 {
		return cand, nil
	}
	slices.SortFunc(feeds, func(a, b edge) int { return int(a.w - b.w) })
	fed := newBitset(n)
	wm := trace.NewWriterMap()
	for _, f := range feeds {
		fed.set(f.w)
		wm.Track(loc[f.w], spanOf(loc[f.w]))
	}
	// Who observed the fed writes, in the recorded run.
	var obs []edge // sorted by reader
	for i := range ev {
		if i&0xffff == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := &ev[i]
		l := loc[i]
		if l < 0 || !wm.Tracked(l) {
			continue
		}
		if isRead(e.Op) {
			wm.Read(l, e.Addr, e.Size, func(_, _ uint64, w int32) {
				if w >= 0 && fed.has(w) && (len(obs) == 0 || obs[len(obs)-1] != edge{w, int32(i)}) {
					obs = append(obs, edge{w, int32(i)})
				}
			})
		}
		if isWrite(e.Op) {
			wm.Write(l, e.Addr, e.Size, int32(i))
		}
	}
	// relevant reports whether observer r is relevant to begin with. A
	// read outside the candidates (an unshared one) counts as irrelevant
	// only if its value reaches no write at all.
	relevant := func(r int32) bool {
		if cand.has(r) {
			return false
		}
		e := &ev[r]
		if e.Op != trace.OpRead || !o.ControlIrrelevant(t, int(r)) {
			return true
		}
		ws, ok := writesOf(int(r))
		return !ok || len(ws) > 0
	}
	var work []int32
	for _, x := range obs {
		if (len(work) == 0 || work[len(work)-1] != x.r) && relevant(x.r) {
			work = append(work, x.r)
		}
	}
	for len(work) > 0 {
		r := work[len(work)-1]
		work = work[:len(work)-1]
		k, _ := slices.BinarySearchFunc(obs, r, func(x edge, r int32) int { return int(x.r - r) })
		for ; k < len(obs) && obs[k].r == r; k++ {
			w := obs[k].w
			j, _ := slices.BinarySearchFunc(feeds, w, func(x edge, w int32) int { return int(x.w - w) })
			for ; j < len(feeds) && feeds[j].w == w; j++ {
				if f := feeds[j].r; cand.has(f) {
					cand.clear(f) // it feeds what a relevant read saw
					work = append(work, f)
				}
			}
		}
	}
	return cand, nil
}
