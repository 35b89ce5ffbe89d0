// This file implements the bridge from a Source's control relevance (per
// source line) to predict's per-event ControlIrrelevant and Feeds.

package check

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// relevance answers predict's questions about reads from src's per-site
// answers, cached by stack.
type relevance struct {
	t     *trace.Trace
	src   Source
	sites map[trace.Frame]siteFlow
	byG   [][]int32 // each goroutine's events, in order (built on first use)
	// byStack holds the answer for a stack once asked, 1 + its index in
	// flows (0: not yet): a trace's reads are millions, its stacks
	// thousands, and hashing each read's frame (file, line and function)
	// cost more than the rest of the question.
	byStack []int32
	flows   []siteFlow
}

// fileLine is a write site that feeds names.
type fileLine struct {
	file string
	line int
}

type siteFlow struct {
	irrelevant bool
	writes     []trace.Frame
}

// feedScan bounds how many of its goroutine's later events are searched
// for the writes a read feeds; not finding them within it makes the read
// relevant.
const feedScan = 64

func newRelevance(t *trace.Trace, src Source) *relevance {
	return &relevance{t: t, src: src, sites: map[trace.Frame]siteFlow{}}
}

func (r *relevance) site(i int) (trace.Frame, siteFlow) {
	st := r.t.Events[i].Stack
	f, ok := r.t.Stacks.Top(st)
	if !ok || f.File == "" {
		return f, siteFlow{}
	}
	if r.byStack == nil {
		r.byStack = make([]int32, r.t.Stacks.Len())
	}
	if int(st) < len(r.byStack) {
		if j := r.byStack[st]; j > 0 {
			return f, r.flows[j-1]
		}
	}
	key := trace.Frame{File: f.File, Line: f.Line, Func: f.Func}
	sf, ok := r.sites[key]
	if !ok {
		irr, writes := r.src.ReadFlow(f)
		sf = siteFlow{irrelevant: irr, writes: writes}
		r.sites[key] = sf
	}
	if int(st) < len(r.byStack) {
		r.flows = append(r.flows, sf)
		r.byStack[st] = int32(len(r.flows))
	}
	return f, sf
}

// irrelevant reports whether the read at event i cannot affect control
// flow, per its site.
func (r *relevance) irrelevant(t *trace.Trace, i int) bool {
	if t.Events[i].Op != trace.OpRead {
		return false
	}
	_, sf := r.site(i)
	return sf.irrelevant
}

// feeds returns the write events the read at event i stores its value by:
// the goroutine's next writes at the sites the Source names. known is
// false when they cannot all be placed (predict then treats the read as
// relevant).
func (r *relevance) feeds(t *trace.Trace, i int) ([]int, bool) {
	_, sf := r.site(i)
	if !sf.irrelevant {
		return nil, false
	}
	if len(sf.writes) == 0 {
		return nil, true
	}
	if r.byG == nil {
		r.byG = eventsByGoroutine(t)
	}
	var events []int32
	if g := int(t.Events[i].G); g >= 0 && g < len(r.byG) {
		events = r.byG[g]
	}
	k, _ := slices.BinarySearch(events, int32(i))
	k++
	want := map[fileLine]bool{}
	for _, w := range sf.writes {
		want[fileLine{w.File, w.Line}] = true
	}
	var out []int
	found := map[fileLine]bool{}
	for n := 0; k < len(events) && n < feedScan; k, n = k+1, n+1 {
		j := int(events[k])
		e := &t.Events[j]
		if e.Op != trace.OpWrite {
			continue
		}
		f, ok := t.Stacks.Top(e.Stack)
		if !ok {
			continue
		}
		key := fileLine{f.File, f.Line}
		if want[key] {
			out = append(out, j)
			found[key] = true
			if len(found) == len(want) {
				return out, true
			}
		}
	}
	// Not every site was seen: unless the goroutine simply ended, the
	// value may be stored later, by a write this did not place.
	return out, k >= len(events)
}

// eventsByGoroutine lists each goroutine's events in order, indexed by
// goroutine id, in one array sized by a first count (the lists hold every
// event of the trace). Events of goroutines the trace does not have are
// left out.
func eventsByGoroutine(t *trace.Trace) [][]int32 {
	counts := make([]int32, len(t.Goroutines))
	n := 0
	for i := range t.Events {
		if g := int(t.Events[i].G); g >= 0 && g < len(counts) {
			counts[g]++
			n++
		}
	}
	byG := make([][]int32, len(counts))
	all := make([]int32, 0, n)
	for g, n := range counts {
		byG[g] = all[len(all) : len(all) : len(all)+int(n)]
		all = all[:len(all)+int(n)]
	}
	for i := range t.Events {
		if g := int(t.Events[i].G); g >= 0 && g < len(byG) {
			byG[g] = append(byG[g], int32(i))
		}
	}
	return byG
}
