// This file implements "why no race here?": for the pairs of conflicting
// accesses in user code that the analysis does not report, the rules that
// order them in every schedule (predict.Why), in source terms, for the
// editor's hover.
//
// Which pairs: accesses whose innermost frame is user code (an access
// made inside a library call is the library's), of one memory location,
// of different goroutines of one test (the harness runs tests one after
// another), overlapping, at least one a write and not both atomic; one
// pair per pair of source lines, the closest in the recorded run (the
// one the schedule came nearest to showing), and only pairs of lines that
// no race finding names. At most maxOrdered pairs a trace, the earliest
// first.
//
// Cost, on Go's race suite in one run (12.2M events, 200 pairs): finding
// the pairs 4.8 s, predict.Why's passes 9-11 s and its searches 4 s on
// this machine's shared cores; which is why it is an option
// (Options.WhyNoRace) that only the editor sets.

package check

import (
	"context"
	"sort"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

// maxOrdered bounds the pairs of lines explained per trace.
const maxOrdered = 200

// maxSitesPerLocation bounds the source lines followed per memory
// location when pairs are looked for.
const maxSitesPerLocation = 32

// orderedPairs returns the pairs of conflicting user accesses of t that
// no finding of found reports (see the file comment), in the order of
// their first events.
func orderedPairs(t *trace.Trace, found []report.Finding) [][2]int {
	goroot := t.Header.GOROOT
	if t.Header.Format == "std" {
		return nil
	}
	type line struct {
		file string
		line int
	}
	type pairKey struct{ a, b line }
	reported := map[pairKey]bool{}
	for i := range found {
		f := &found[i]
		if f.Kind != predict.KindRace || len(f.Accesses) < 2 {
			continue
		}
		a, b := line{f.Accesses[0].File, f.Accesses[0].Line}, line{f.Accesses[1].File, f.Accesses[1].Line}
		reported[pairKey{a, b}], reported[pairKey{b, a}] = true, true
	}
	// The user line of each stack, when its innermost frame is user
	// code, interned (-1: none; -2: not yet known); the test of each
	// goroutine, interned (-1: none).
	var lines []line
	lineID := map[line]int32{}
	siteOf := make([]int32, t.Stacks.Len()+1)
	for i := range siteOf {
		siteOf[i] = -2
	}
	userSite := func(e *trace.Event) int32 {
		st := int(e.Stack)
		if st < len(siteOf) && siteOf[st] != -2 {
			return siteOf[st]
		}
		id := int32(-1)
		if top, ok := t.Stacks.Top(e.Stack); ok && top.File != "" && trace.IsUserFrame(top, goroot) {
			l := line{top.File, top.Line}
			var seen bool
			if id, seen = lineID[l]; !seen {
				id = int32(len(lines))
				lines = append(lines, l)
				lineID[l] = id
			}
		}
		if st < len(siteOf) {
			siteOf[st] = id
		}
		return id
	}
	testID := map[string]int32{}
	testOf := make([]int32, t.NumGoroutines()+1)
	for g := range testOf {
		testOf[g] = -1
		if gr := t.Goroutine(trace.GoID(g)); gr != nil && gr.Test != "" {
			id, ok := testID[gr.Test]
			if !ok {
				id = int32(len(testID))
				testID[gr.Test] = id
			}
			testOf[g] = id
		}
	}
	test := func(g trace.GoID) int32 {
		if int(g) < len(testOf) {
			return testOf[g]
		}
		return -1
	}
	loc, spans := trace.GroupAccesses(t.Events)
	// Per location, the lines seen: each with its latest event and the
	// latest of another goroutine than that one's.
	type last struct{ site, recent, other int32 }
	sites := make([][]last, len(spans))
	type idPair struct{ a, b int32 }
	best := map[idPair][2]int32{}
	var order []idPair
	conflict := func(x, y int32) bool {
		ex, ey := &t.Events[x], &t.Events[y]
		if ex.G == ey.G || ex.Op.IsAtomic() && ey.Op.IsAtomic() || !writes(ex.Op) && !writes(ey.Op) {
			return false
		}
		if test(ex.G) != test(ey.G) {
			return false // tests run one after another: the harness orders them
		}
		return ex.Addr < ey.Addr+uint64(ey.Size) && ey.Addr < ex.Addr+uint64(ex.Size)
	}
	for i := range t.Events {
		l := loc[i]
		if l < 0 {
			continue
		}
		e := &t.Events[i]
		if test(e.G) < 0 {
			continue
		}
		s := userSite(e)
		if s < 0 {
			continue
		}
		byLine := sites[l]
		k := -1
		for j := range byLine {
			ls := &byLine[j]
			if ls.site == s {
				k = j
			}
			prev := ls.recent
			if t.Events[prev].G == e.G {
				prev = ls.other
			}
			if prev < 0 || !conflict(prev, int32(i)) {
				continue
			}
			key := idPair{min(ls.site, s), max(ls.site, s)}
			if reported[pairKey{lines[key.a], lines[key.b]}] {
				continue
			}
			old, seen := best[key]
			if !seen {
				order = append(order, key)
			}
			if !seen || int32(i)-prev < old[1]-old[0] {
				best[key] = [2]int32{prev, int32(i)}
			}
		}
		if k < 0 {
			if len(byLine) >= maxSitesPerLocation {
				continue
			}
			sites[l] = append(byLine, last{site: s, recent: -1, other: -1})
			byLine = sites[l]
			k = len(byLine) - 1
		}
		ls := &byLine[k]
		if ls.recent >= 0 && t.Events[ls.recent].G != e.G {
			ls.other = ls.recent
		}
		ls.recent = int32(i)
	}
	sort.SliceStable(order, func(i, j int) bool { return best[order[i]][0] < best[order[j]][0] })
	if len(order) > maxOrdered {
		order = order[:maxOrdered]
	}
	out := make([][2]int, len(order))
	for k, key := range order {
		out[k] = [2]int{int(best[key][0]), int(best[key][1])}
	}
	return out
}

func writes(op trace.Op) bool {
	switch op {
	case trace.OpWrite, trace.OpAtomicStore, trace.OpAtomicRMW, trace.OpOnceDone:
		return true
	}
	return false
}

// whyNoRace explains the unreported conflicting pairs of t.
func whyNoRace(ctx context.Context, t *trace.Trace, found []report.Finding, popts predict.Options, src Source) ([]report.Ordered, error) {
	pairs := orderedPairs(t, found)
	if len(pairs) == 0 {
		return nil, nil
	}
	ords, err := predict.Why(ctx, t, pairs, popts)
	if err != nil {
		return nil, err
	}
	names := newNamer(t, src)
	out := make([]report.Ordered, 0, len(ords))
	for k := range ords {
		out = append(out, orderedOf(t, &ords[k], src, names))
	}
	return out, nil
}

// orderedOf words one predict.Ordering.
func orderedOf(t *trace.Trace, o *predict.Ordering, src Source, names *namer) report.Ordered {
	var out report.Ordered
	for k, i := range o.Events {
		e := &t.Events[i]
		frames := t.Stack(e.Stack)
		site, _ := trace.UserFrame(frames, t.Header.GOROOT)
		a := report.Access{File: site.File, Line: site.Line, Op: e.Op.String(), Goroutine: int(e.G), Stack: toFrames(frames), Event: i}
		g := t.Goroutine(e.G)
		if g != nil && g.Create != 0 {
			a.Created = toFrames(t.Stack(g.Create))
		}
		if name := t.ObjectName(e.Obj); name != "" {
			a.Variable = shortName(name)
		}
		if src != nil {
			src.Refine(&a, e.Op == trace.OpWrite, rangeSize(e))
		}
		if a.Variable != "" {
			names.known[i] = a.Variable
			if out.Variable == "" {
				out.Variable = a.Variable
			}
		}
		if out.Test == "" && g != nil {
			out.Test = g.Test
		}
		out.Accesses[k] = a
	}
	step := func(i int) report.Step {
		e := &t.Events[i]
		frames := t.Stack(e.Stack)
		site, user := trace.UserFrame(frames, t.Header.GOROOT)
		if !user && len(frames) > 0 {
			site = frames[0]
		}
		st := report.Step{Goroutine: int(e.G), Op: e.Op.String(), File: site.File, Line: site.Line, Event: i, Object: names.object(i, user)}
		st.Text = stepWords(t, i, st.Object, "")
		return st
	}
	if o.Lock != 0 {
		out.Held = []report.Step{step(o.Held[0]), step(o.Held[1])}
		out.Lock = out.Held[0].Object
		if out.Lock == "" {
			out.Lock = "a mutex"
		}
	}
	var links func([]predict.OrderEdge) []report.Link
	links = func(chain []predict.OrderEdge) []report.Link {
		var out []report.Link
		for _, ed := range chain {
			out = append(out, report.Link{Rule: ed.Rule.String(), From: step(ed.From), To: step(ed.To), Because: links(ed.Because)})
		}
		return out
	}
	out.Chain = links(o.Chain)
	return out
}
