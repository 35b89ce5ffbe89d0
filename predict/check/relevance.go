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
	byG   [][]int32 // each goroutine's events, in order (built when next needs them)
	// scanned counts the events next has looked through without byG.
	scanned int
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
	want := map[fileLine]bool{}
	for _, w := range sf.writes {
		want[fileLine{w.File, w.Line}] = true
	}
	var out []int
	found := map[fileLine]bool{}
	ended := r.next(i, func(j int32) bool {
		e := &t.Events[j]
		if e.Op != trace.OpWrite {
			return true
		}
		f, ok := t.Stacks.Top(e.Stack)
		if !ok {
			return true
		}
		key := fileLine{f.File, f.Line}
		if want[key] {
			out = append(out, int(j))
			found[key] = true
		}
		return len(found) < len(want)
	})
	if len(found) == len(want) {
		return out, true
	}
	// Not every site was seen: unless the goroutine simply ended, the
	// value may be stored later, by a write this did not place.
	return out, ended
}

// next calls f with the events of event i's goroutine after it, in
// order, up to feedScan of them, until f returns false, and reports
// whether f saw them all and the goroutine has none after those. It looks
// through the trace's next events, which are near when a read's value is
// stored at once (n++): the lists of every goroutine's events (byG) hold
// an int32 an event, 54 MB of a 14M-event run of two goroutines. Once
// such looking has passed over four times the trace's events (many
// goroutines interleave), byG is made and used from then on.
//
// It reads r.t, the whole trace, whatever trace predict asks about: a
// prefix's goroutine (analyzePrefix) has not ended where the prefix does.
func (r *relevance) next(i int, f func(j int32) bool) bool {
	t := r.t
	g := t.Events[i].G
	seen := 0 // events of g passed to f
	if r.byG == nil {
		j := i + 1
		for ; j < len(t.Events) && r.scanned <= 4*len(t.Events); j++ {
			r.scanned++
			if t.Events[j].G != g {
				continue
			}
			if seen == feedScan {
				return false // one more
			}
			if !f(int32(j)) {
				return false
			}
			seen++
		}
		if j == len(t.Events) {
			return true
		}
		r.byG = eventsByGoroutine(t)
	}
	var events []int32
	if g := int(g); g >= 0 && g < len(r.byG) {
		events = r.byG[g]
	}
	k, _ := slices.BinarySearch(events, int32(i))
	rest := events[min(k+1+seen, len(events)):]
	for _, j := range rest[:min(len(rest), feedScan-seen)] {
		if !f(j) {
			return false
		}
	}
	return len(rest) <= feedScan-seen
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
