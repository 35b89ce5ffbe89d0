// This file implements the answer to "why no race here?": for two
// conflicting accesses of different goroutines, the rules that order them
// in every schedule of the maximal causal model that seer predicts in
// (doc.go), as the accesses and synchronisation of the trace.
//
// Three kinds of reason are given, the first that holds:
//
//   - a common lock: both accesses are inside critical sections of one
//     lock, at least one of them exclusive, so the sections cannot overlap
//     (mutual exclusion, the lockset rule of Eraser and of the candidates'
//     filter, candidates.go);
//   - a chain of must-happen-before edges from the earlier access to the
//     later one: program order, go statement → the new goroutine's first
//     event, join, every non-lock synchronisation as the CTP keeps it
//     (ctp.go: a channel receive after its send, Wait after Done, a Once
//     after its Do, an atomic load after the store it read, a mutex used
//     as a signal), and read-from of a read that the chain passes through
//     (a read that its goroutine goes on after keeps its writer, Şerbănuţă,
//     Chen and Roşu's Theorem 2). These are the edges of the causal cone
//     (clock_pass.go with read-from), less the read-from of the accesses
//     themselves and of every read that the static analysis calls
//     control-irrelevant;
//   - such a chain that also uses the lock rule, searched for only when
//     there is no plain chain: two critical sections C1 and C2 of one
//     lock, C1 released before C2 was acquired in the recorded run; if
//     an event of C1 must happen before an event of C2 that the schedule
//     runs (a plain chain, Because), then C2 cannot run first (it would
//     hold the lock past that event, which needs C1 to have begun), and
//     the two cannot overlap, so C1's release comes before C2's acquire.
//     This is the rule of the sync-preserving closure (Mathur,
//     Pavlogiannis and Viswanathan, POPL 2021) and of WCP, one level
//     deep: the justification itself uses no lock rule.
//
// The chain is a shortest one in the number of edges between goroutines
// (0-1 breadth-first search backwards from the later access, program order
// costing nothing, a lock edge costing one more than its justification),
// so that it names as few rules as it can: each edge between goroutines
// is one rule the reader has to accept. The searches of one pair visit at
// most whyBudget events, and try maxLockCandidates earlier sections per
// acquire.
//
// Soundness: the later access's own incoming edges are never used (a
// goroutine's last read may see another writer, and the race itself is
// about that access), nor the read-from of a read that
// Options.ControlIrrelevant names (with Feeds set), even one that the
// analysis's closure (relevance.go) makes relevant again: that closure
// counts the readers of the whole run, and a schedule that stops before
// them lets the read see another writer (the exhaustive oracle of
// why_test.go found this), nor a read of the initial value. So a returned reason holds in every witness the analysis
// could build. When neither reason holds, the two accesses may still be
// ordered by how several critical sections must be ordered (the
// sync-preserving closure, or the solver's verdict), or the analysis may
// have left the pair untried; Why says "none" and the caller must say so
// rather than invent a rule.

package predict

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// OrderRule is one kind of must-happen-before edge.
type OrderRule uint8

const (
	RuleProgramOrder OrderRule = iota + 1 // the same goroutine, earlier
	RuleGo                                // a go statement → the new goroutine's first event
	RuleJoin                              // a goroutine's last event → the join that waits for it
	RuleSync                              // a release → an acquire ordered after it (channel, WaitGroup, Once, atomic, Cond, signal mutex)
	RuleReadFrom                          // a write → a read that keeps it as its writer
	RuleLock                              // a release → a later acquire of its lock, by mutual exclusion (see Because)
)

var ruleNames = [...]string{"", "program order", "go", "join", "sync", "read-from", "lock"}

func (r OrderRule) String() string {
	if int(r) < len(ruleNames) {
		return ruleNames[r]
	}
	return fmt.Sprintf("OrderRule(%d)", r)
}

// An OrderEdge is one step of an ordering chain: event From happens
// before event To by Rule.
type OrderEdge struct {
	Rule     OrderRule
	From, To int
	// Because, for RuleLock, is the chain that makes the two critical
	// sections' order forced: from an event of From's section to an
	// event of To's section that the schedule runs.
	Because []OrderEdge
}

// An Ordering says why two conflicting accesses cannot race.
type Ordering struct {
	// Events are the two accesses, in trace order.
	Events [2]int

	// Lock, when not 0, is a lock held at both accesses (at least one of
	// them exclusively): Held are the acquires of the critical sections
	// that hold Events[0] and Events[1].
	Lock trace.ObjID
	Held [2]int

	// Chain, when Lock is 0, orders Events[0] before Events[1]: the
	// first edge starts at Events[0], each edge starts where the previous
	// one ends, and the last one ends at Events[1]. Consecutive
	// program-order steps are merged into one edge.
	Chain []OrderEdge
}

// Ordered reports whether o gives a reason.
func (o *Ordering) Ordered() bool { return o.Lock != 0 || len(o.Chain) > 0 }

// maxWhyWindow bounds the events between two accesses that Why searches.
const maxWhyWindow = 1 << 22

// Why explains, for each pair of events (conflicting accesses of
// different goroutines), why no schedule can show them racing, or returns
// an Ordering that is not Ordered when it finds no reason (see the file
// comment). opts must be the Options of the analysis (their
// ControlIrrelevant and Feeds). It builds the trace's CTP and read-from
// once for all pairs: a pass over the trace, as the analysis's pre-pass.
func Why(ctx context.Context, t *trace.Trace, pairs [][2]int, opts Options) ([]Ordering, error) {
	if t == nil {
		return nil, errors.New("predict: nil trace")
	}
	n := len(t.Events)
	for _, p := range pairs {
		a, b := p[0], p[1]
		if a < 0 || b < 0 || a >= n || b >= n {
			return nil, fmt.Errorf("predict: event pair (%d, %d) out of range (%d events)", a, b, n)
		}
		if t.Events[a].G == t.Events[b].G {
			return nil, fmt.Errorf("predict: events %d and %d are of one goroutine", a, b)
		}
	}
	out := make([]Ordering, len(pairs))
	if len(pairs) == 0 {
		return out, nil
	}
	c := newCTP(t)
	m := newMemory(c)
	w := &whySearch{c: c, m: m}
	if opts.ControlIrrelevant != nil && opts.Feeds != nil {
		// Any read the static analysis calls irrelevant may see another
		// writer in some schedule: whether it may in a given one
		// depends on which reads that schedule runs, so the closure the
		// analysis computes over the whole run (relevance.go) is not
		// enough here.
		w.relaxed = newBitset(len(t.Events))
		for i := range t.Events {
			if t.Events[i].Op == trace.OpRead && m.shared(int32(i)) && opts.ControlIrrelevant(t, i) {
				w.relaxed.set(int32(i))
			}
		}
	}
	for k, p := range pairs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		a, b := int32(min(p[0], p[1])), int32(max(p[0], p[1]))
		out[k] = Ordering{Events: [2]int{int(a), int(b)}}
		if l, ha, hb, ok := w.commonLock(a, b); ok {
			out[k].Lock, out[k].Held = l, [2]int{int(ha), int(hb)}
			continue
		}
		out[k].Chain = w.chain(a, b)
	}
	return out, nil
}

type whySearch struct {
	c       *ctp
	m       *memory
	relaxed bitset
	outer   bfs // the search from the race's access
	inner   bfs // the searches that justify the lock rule
	// sections of each lock, by release, built when first needed
	byLock map[trace.ObjID][]section
}

// section is one critical section, by events: rel is -1 when never
// released.
type section struct {
	g        int32
	acq, rel int32
	shared   bool
}

// bfs is the scratch of one 0-1 breadth-first search over a window of
// events [lo, lo+len).
type bfs struct {
	dist, par, exit []int32
	rule            []OrderRule
	done            []bool
	because         map[int32][]OrderEdge // the justification of a lock edge, by its source
	visits          int
}

// whyBudget bounds the events one pair's searches visit.
const whyBudget = 1 << 22

// maxLockCandidates bounds the earlier critical sections the lock rule
// tries per acquire.
const maxLockCandidates = 8

// chain returns a shortest chain of must-happen-before edges from a to b
// (a < b), or nil: first without the lock rule, then with it.
func (w *whySearch) chain(a, b int32) []OrderEdge {
	c := w.c
	ga, pa := int32(c.ev[a].G), c.pos[a]
	target := func(x int32) bool { return int32(c.ev[x].G) == ga && c.pos[x] >= pa }
	w.outer.visits, w.inner.visits = 0, 0
	out := w.search(&w.outer, a, b, b, target, false)
	if out == nil {
		out = w.search(&w.outer, a, b, b, target, true)
	}
	if out == nil {
		return nil
	}
	if found := int32(out[0].From); found != a {
		// From a to where the chain leaves a's goroutine.
		if out[0].Rule == RuleProgramOrder {
			out[0].From = int(a)
		} else {
			out = append([]OrderEdge{{Rule: RuleProgramOrder, From: int(a), To: int(found)}}, out...)
		}
	}
	return out
}

// search walks backwards from start over the events in [lo, start] until
// it meets an event that target accepts, and returns the chain from that
// event to start (nil if there is none, or if it is the start itself). noIn is an event whose own
// incoming edges other than program order are not used (the race's
// access), or -1. With locks, it also uses the lock rule (see the file
// comment), justified by searches in w.inner.
func (w *whySearch) search(s *bfs, lo, start, noIn int32, target func(int32) bool, locks bool) []OrderEdge {
	c := w.c
	if start-lo+1 > maxWhyWindow || s.visits > whyBudget {
		return nil
	}
	size := int(start - lo + 1)
	if cap(s.dist) < size {
		s.dist, s.par, s.exit = make([]int32, size), make([]int32, size), make([]int32, size)
		s.rule, s.done = make([]OrderRule, size), make([]bool, size)
	}
	dist, par, exit, rule, done := s.dist[:size], s.par[:size], s.exit[:size], s.rule[:size], s.done[:size]
	s.because = nil
	const inf = int32(1 << 30)
	for i := range dist {
		dist[i], done[i] = inf, false
	}
	// A deque of events: 0-cost edges in front, 1-cost at the back.
	dq := make([]int32, 0, 64)
	head := 0
	front := make([]int32, 0, 16) // a stack in front of dq[head:]
	dist[start-lo], exit[start-lo] = 0, start
	dq = append(dq, start)
	found := int32(-1)
	relax := func(x, y int32, r OrderRule, extra int32, why []OrderEdge) {
		// edge y → x (y happens before x), walked backwards from x.
		if y < lo {
			return
		}
		cost := dist[x-lo] + extra
		if r != RuleProgramOrder {
			cost++
		}
		if cost >= dist[y-lo] {
			return
		}
		dist[y-lo], par[y-lo], rule[y-lo] = cost, x, r
		if r == RuleProgramOrder {
			exit[y-lo] = exit[x-lo]
			front = append(front, y)
		} else {
			exit[y-lo] = y
			dq = append(dq, y)
		}
		if why != nil {
			if s.because == nil {
				s.because = map[int32][]OrderEdge{}
			}
			s.because[y] = why
		}
	}
	for len(front) > 0 || head < len(dq) {
		var x int32
		if len(front) > 0 {
			x = front[len(front)-1]
			front = front[:len(front)-1]
		} else {
			x = dq[head]
			head++
		}
		if done[x-lo] {
			continue
		}
		done[x-lo] = true
		if s.visits++; s.visits > whyBudget {
			return nil
		}
		if target(x) {
			found = x
			break
		}
		g := int32(c.ev[x].G)
		if p := c.pos[x]; p > 1 {
			relax(x, c.at(g, p-1), RuleProgramOrder, 0, nil)
		}
		if x == noIn {
			continue // the race's own access: its incoming edges are the question
		}
		c.sources(x, func(j int32) {
			r := RuleSync
			switch {
			case c.ev[j].Op == trace.OpGo && c.pos[x] == 1:
				r = RuleGo
			case c.ev[x].Op == trace.OpJoin:
				r = RuleJoin
			}
			relax(x, j, r, 0, nil)
		})
		if ev := &c.ev[x]; isRead(ev.Op) && !(ev.Op == trace.OpRead && w.relaxed.has(x)) {
			for _, wr := range w.m.writers(x) {
				if wr >= 0 && c.ev[wr].G != ev.G {
					relax(x, wr, RuleReadFrom, 0, nil)
				}
			}
		}
		if locks && (c.lockMode[x] == 'w' || c.lockMode[x] == 'r') {
			w.lockEdges(x, lo, exit[x-lo], noIn, func(rel int32, why []OrderEdge) {
				extra := int32(0)
				for _, e := range why {
					if e.Rule != RuleProgramOrder {
						extra++
					}
				}
				relax(x, rel, RuleLock, extra, why)
			})
		}
	}
	if found < 0 {
		return nil
	}
	var out []OrderEdge
	for x := found; x != start; x = par[x-lo] {
		y, r := par[x-lo], rule[x-lo]
		if n := len(out); r == RuleProgramOrder && n > 0 && out[n-1].Rule == RuleProgramOrder {
			out[n-1].To = int(y)
			continue
		}
		e := OrderEdge{Rule: r, From: int(x), To: int(y)}
		if r == RuleLock {
			e.Because = s.because[x]
		}
		out = append(out, e)
	}
	return out
}

// lockEdges calls f(rel, why) for each release rel ≥ lo of an earlier
// critical section on the lock that acq takes, in another goroutine, that
// the lock rule orders before acq: an event of that section must happen
// before an event of acq's section that the schedule runs (up to exit,
// the last event of acq's goroutine on the chain), as why shows. Then the
// two sections cannot overlap and cannot run the other way round.
func (w *whySearch) lockEdges(acq, lo, exit, noIn int32, f func(rel int32, why []OrderEdge)) {
	c := w.c
	e := &c.ev[acq]
	g := int32(e.G)
	sec, ok := c.section(g, e.Obj, c.pos[acq])
	if !ok {
		return
	}
	// The events of acq's section that the schedule runs end at y.
	y := exit
	if sec.rel != 0 && c.pos[exit] > sec.rel {
		y = c.at(g, sec.rel)
	}
	secs := w.sections(e.Obj)
	// Earlier sections by release, latest first.
	k, _ := slices.BinarySearchFunc(secs, acq, func(s section, t int32) int { return cmp.Compare(s.rel, t) })
	tried := 0
	for k--; k >= 0 && tried < maxLockCandidates; k-- {
		s1 := secs[k]
		if s1.rel < lo {
			break
		}
		if s1.g == g || s1.shared && sec.shared {
			continue
		}
		tried++
		a1, r1 := c.pos[s1.acq], c.pos[s1.rel]
		inC1 := func(x int32) bool { return int32(c.ev[x].G) == s1.g && c.pos[x] >= a1 && c.pos[x] <= r1 }
		if why := w.search(&w.inner, s1.acq, y, noIn, inC1, false); why != nil {
			// A last step inside acq's section adds nothing.
			if n := len(why); n > 1 && why[n-1].Rule == RuleProgramOrder && c.pos[why[n-1].From] >= c.pos[acq] {
				why = why[:n-1]
			}
			f(s1.rel, why)
		}
	}
}

// sections returns the released critical sections of lock l, by release.
func (w *whySearch) sections(l trace.ObjID) []section {
	if w.byLock == nil {
		w.byLock = map[trace.ObjID][]section{}
		c := w.c
		for k, list := range c.cs {
			for _, s := range list {
				if s.rel != 0 {
					w.byLock[k.l] = append(w.byLock[k.l], section{g: k.g, acq: c.at(k.g, s.acq), rel: c.at(k.g, s.rel), shared: s.shared})
				}
			}
		}
		for _, list := range w.byLock {
			slices.SortFunc(list, func(a, b section) int { return cmp.Compare(a.rel, b.rel) })
		}
	}
	return w.byLock[l]
}

// commonLock returns a lock held at a and at b, exclusively by at least
// one, with the acquires of the two sections.
func (w *whySearch) commonLock(a, b int32) (trace.ObjID, int32, int32, bool) {
	c := w.c
	la, lb := c.lsOf(a), c.lsOf(b)
	if la == 0 || lb == 0 {
		return 0, 0, 0, false
	}
	for _, x := range c.locksets[la] {
		for _, y := range c.locksets[lb] {
			if x.l != y.l || x.shared && y.shared {
				continue
			}
			ga, gb := int32(c.ev[a].G), int32(c.ev[b].G)
			sa, okA := c.section(ga, x.l, c.pos[a])
			sb, okB := c.section(gb, x.l, c.pos[b])
			if okA && okB {
				return x.l, c.at(ga, sa.acq), c.at(gb, sb.acq), true
			}
		}
	}
	return 0, 0, 0, false
}
