// This file implements an independent naive oracle for the vector-clock
// passes (clock_pass.go) and the race layers that read them: plain dense
// vector clocks, one []int32 per goroutine, copied whole at every release,
// go statement and write, joined component by component, with no epochs,
// no sharing, no journal, no folds, spills or histories. It reads only the
// trace's events (package trace): none of predict's CTP, memory or clock
// code, so that a fault in their common path cannot hide a race from both
// sides of a differential test.
//
// The relations, written from their definitions:
//
//   - must-happen-before (clock_pass.go's doc): program order, go → the
//     child's first event, join → after the joined goroutine's last event,
//     and the fixed synchronisation with ThreadSanitizer's meanings
//     (trace.SyncKind; atomics: loads acquire, stores release,
//     read-modify-writes release-acquire); locks stay locks, except a lock
//     no critical section explains (locked while held, unlocked by another
//     goroutine or while free), kept in observed order as release-acquire;
//   - happens-before as ThreadSanitizer computes it: the same, with every
//     lock operation a release (Unlock), release-merge (RUnlock) or acquire
//     (Lock, RLock) in observed order;
//   - schedulable happens-before (Mathur, Kini and Viswanathan, "What
//     happens-after the first race?", OOPSLA 2018, §4): happens-before
//     plus an edge from the last write of every byte a read reads to the
//     read, with each release-acquire event (and each operation on a lock
//     kept in observed order) acquiring first and then releasing all it
//     knows;
//   - the causal cone (clock_pass.go's doc): must-happen-before plus the
//     same read-from edges, each release-acquire event releasing its clock
//     from before its acquire, as in must-happen-before.
//
// A clock component g = v means "the first v events of g". The model's
// own choices are kept as the trace and CTP documents define them: a
// plain write over an atomic variable (its latest release an atomic
// operation) ends that variable's release chain (ctp.go's buildSync). A
// pair of conflicting accesses (two goroutines, one writes, not both
// atomic, overlapping bytes) races under a relation when neither is
// ordered before the other judged from the state just before each: the
// later access's own read-from does not order it (Mathur et al.'s rule).

package predict

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/seer-tools/seer/trace"
)

// naiveRel names a relation the naive oracle computes.
type naiveRel uint8

const (
	naiveMHB  naiveRel = iota // must-happen-before: locks stay locks
	naiveHB                   // happens-before, locks in observed order
	naiveSHB                  // schedulable happens-before
	naiveCone                 // must-happen-before and read-from
)

func (r naiveRel) String() string { return [...]string{"mhb", "hb", "shb", "cone"}[r] }

// naiveClocks is one relation over a trace: every goroutine's clock after
// each of its positions.
type naiveClocks struct {
	t   *trace.Trace
	rel naiveRel
	pos []int32   // per event: its 1-based position in its goroutine
	byG [][]int32 // per goroutine: its events
	// at[g][p] is g's clock after its first p events; at[g][0] is the
	// clock its first event starts from (its go statement's).
	at [][][]int32
}

// naiveObservedLocks returns the locks that no critical section explains:
// locked while held, read-locked while write-held, unlocked by another
// goroutine or while free, read-unlocked by a goroutine that holds no
// read lock.
func naiveObservedLocks(ev []trace.Event) map[trace.ObjID]bool {
	obs := map[trace.ObjID]bool{}
	writer := map[trace.ObjID]trace.GoID{}
	readers := map[trace.ObjID]map[trace.GoID]int{}
	for i := range ev {
		e := &ev[i]
		o := e.Obj
		if readers[o] == nil {
			readers[o] = map[trace.GoID]int{}
		}
		switch e.Op {
		case trace.OpLock:
			if writer[o] != 0 || len(readers[o]) > 0 {
				obs[o] = true
			}
			writer[o] = e.G
		case trace.OpRLock:
			if writer[o] != 0 {
				obs[o] = true
			}
			readers[o][e.G]++
		case trace.OpUnlock:
			if writer[o] != e.G {
				obs[o] = true
			}
			writer[o] = 0
		case trace.OpRUnlock:
			if readers[o][e.G] == 0 {
				obs[o] = true
			} else if readers[o][e.G]--; readers[o][e.G] == 0 {
				delete(readers[o], e.G)
			}
		}
	}
	return obs
}

// naiveKind is the synchronisation meaning of e under rel.
func naiveKind(e *trace.Event, rel naiveRel, observed map[trace.ObjID]bool) trace.SyncKind {
	switch {
	case e.Op.IsLock():
		if observed[e.Obj] && rel != naiveHB {
			return trace.SyncReleaseAcquire
		}
		if rel == naiveMHB || rel == naiveCone {
			return trace.SyncNone
		}
		switch e.Op {
		case trace.OpLock, trace.OpRLock:
			return trace.SyncAcquire
		case trace.OpUnlock:
			return trace.SyncRelease
		}
		return trace.SyncReleaseMerge // RUnlock
	case e.Op == trace.OpAtomicLoad, e.Op == trace.OpOnceCheck:
		return trace.SyncAcquire
	case e.Op == trace.OpAtomicRMW:
		return trace.SyncReleaseAcquire
	case e.Op == trace.OpAtomicStore, e.Op == trace.OpOnceDone:
		return trace.SyncRelease
	case e.Op.IsAccess(), e.Op == trace.OpGo, e.Op == trace.OpStart, e.Op == trace.OpEnd,
		e.Op == trace.OpJoin, e.Op.IsMarker():
		return trace.SyncNone
	}
	return e.Sync
}

// naiveAddr is the address e synchronises on: a lock's object; an atomic's
// address, in a space of its own (the specification keeps atomics apart
// from the generic annotations on the same address); else Addr.
func naiveAddr(e *trace.Event) uint64 {
	if e.Op.IsLock() {
		return uint64(e.Obj) | 1<<63
	}
	if e.Op.IsAtomic() {
		return e.Addr | 1<<62
	}
	return e.Addr
}

func naiveReads(op trace.Op) bool {
	return op == trace.OpRead || op == trace.OpAtomicLoad || op == trace.OpOnceCheck || op == trace.OpAtomicRMW
}

func naiveWrites(op trace.Op) bool {
	return op == trace.OpWrite || op == trace.OpAtomicStore || op == trace.OpOnceDone || op == trace.OpAtomicRMW
}

// naiveJoin raises each component of dst to src's.
func naiveJoin(dst, src []int32) {
	for k, v := range src {
		if v > dst[k] {
			dst[k] = v
		}
	}
}

// newNaiveClocks replays t under rel.
func newNaiveClocks(t *trace.Trace, rel naiveRel) *naiveClocks {
	ev := t.Events
	ng := len(t.Goroutines)
	o := &naiveClocks{t: t, rel: rel, pos: make([]int32, len(ev)), byG: make([][]int32, ng), at: make([][][]int32, ng)}
	goEv := make([]int, ng) // the go statement that created each goroutine
	for g := range goEv {
		goEv[g] = -1
	}
	for i := range ev {
		e := &ev[i]
		o.byG[e.G] = append(o.byG[e.G], int32(i))
		o.pos[i] = int32(len(o.byG[e.G]))
		if e.Op == trace.OpGo && e.Peer > 0 && int(e.Peer) < ng && goEv[e.Peer] < 0 {
			goEv[e.Peer] = i
		}
	}
	observed := naiveObservedLocks(ev)
	cur := make([][]int32, ng)
	for g := range cur {
		cur[g] = make([]int32, ng)
		o.at[g] = make([][]int32, len(o.byG[g])+1)
	}
	goClk := make([][]int32, ng)
	vars := map[uint64][]int32{}   // each address's released clock
	atomicRel := map[uint64]bool{} // its latest release is an atomic operation
	var writes []int32             // the writes so far, in order
	last := make([]int32, ng)      // each goroutine's latest event, or -1
	for g := range last {
		last[g] = -1
	}
	for i := range ev {
		e := &ev[i]
		g, p := e.G, o.pos[i]
		c := cur[g]
		if p == 1 {
			if gi := goEv[g]; gi >= 0 && gi < i {
				naiveJoin(c, goClk[g])
			}
			o.at[g][0] = slices.Clone(c)
		}
		c[g] = p
		switch e.Op {
		case trace.OpGo:
			if goEv[e.Peer] == i {
				goClk[e.Peer] = slices.Clone(c)
			}
		case trace.OpJoin:
			if k := e.Peer; k > 0 && int(k) < ng && last[k] >= 0 {
				naiveJoin(c, cur[k])
			}
		}
		a := naiveAddr(e)
		if av := e.Addr | 1<<62; e.Op == trace.OpWrite && atomicRel[av] {
			delete(vars, av)
			atomicRel[av] = false
		}
		if k := naiveKind(e, naiveMHB, observed); k == trace.SyncRelease || k == trace.SyncReleaseAcquire {
			atomicRel[a] = e.Op.IsAtomic()
		}
		serialRelease := false
		switch naiveKind(e, rel, observed) {
		case trace.SyncAcquire:
			if v := vars[a]; v != nil {
				naiveJoin(c, v)
			}
		case trace.SyncRelease:
			vars[a] = slices.Clone(c)
		case trace.SyncReleaseMerge:
			if vars[a] == nil {
				vars[a] = make([]int32, ng)
			}
			naiveJoin(vars[a], c)
		case trace.SyncReleaseAcquire:
			old := vars[a]
			if rel == naiveSHB {
				serialRelease = true // released after read-from, below
			} else {
				vars[a] = slices.Clone(c)
			}
			if old != nil {
				naiveJoin(c, old)
			}
		}
		if e.IsMem() {
			if (rel == naiveSHB || rel == naiveCone) && naiveReads(e.Op) {
				for _, w := range naiveWriters(ev, writes, e) {
					if ev[w].G != g {
						naiveJoin(c, o.at[ev[w].G][o.pos[w]])
					}
				}
			}
			if naiveWrites(e.Op) {
				writes = append(writes, int32(i))
			}
		}
		if serialRelease {
			vars[a] = slices.Clone(c)
		}
		o.at[g][p] = slices.Clone(c)
		last[g] = int32(i)
	}
	return o
}

// knows returns how many events of goroutine k goroutine g knows of after
// its first p events.
func (o *naiveClocks) knows(g trace.GoID, p int32, k trace.GoID) int32 {
	if g == k {
		return p
	}
	return o.at[g][p][k]
}

// before reports whether event a is ordered before event b (a ≠ b), b's
// own joins included.
func (o *naiveClocks) before(a, b int32) bool {
	ea, eb := &o.t.Events[a], &o.t.Events[b]
	if ea.G == eb.G {
		return o.pos[a] < o.pos[b]
	}
	return o.knows(eb.G, o.pos[b], ea.G) >= o.pos[a]
}

// concurrent reports whether neither of a, b is ordered before the other,
// judged from the states just before each.
func (o *naiveClocks) concurrent(a, b int32) bool {
	ea, eb := &o.t.Events[a], &o.t.Events[b]
	if ea.G == eb.G {
		return false
	}
	return o.knows(eb.G, o.pos[b]-1, ea.G) < o.pos[a] && o.knows(ea.G, o.pos[a]-1, eb.G) < o.pos[b]
}

// naiveConflict reports whether accesses a and b conflict: of different
// goroutines, one of them a write, not both atomic, overlapping.
func naiveConflict(a, b *trace.Event) bool {
	return a.G != b.G && (naiveWrites(a.Op) || naiveWrites(b.Op)) && !(a.Op.IsAtomic() && b.Op.IsAtomic()) &&
		a.Addr < b.End() && b.Addr < a.End()
}

// naiveSitePair is an unordered pair of source sites.
type naiveSitePair [2]trace.Frame

func naiveSites(t *trace.Trace, a, b int) naiveSitePair {
	x, y := t.Site(&t.Events[a]), t.Site(&t.Events[b])
	if naiveFrameCmp(y, x) < 0 {
		x, y = y, x
	}
	return naiveSitePair{x, y}
}

func naiveFrameCmp(x, y trace.Frame) int {
	return cmp.Or(strings.Compare(x.File, y.File), cmp.Compare(x.Line, y.Line), strings.Compare(x.Func, y.Func))
}

func (s naiveSitePair) String() string {
	return fmt.Sprintf("%s:%d-%s:%d", s[0].Func, s[0].Line, s[1].Func, s[1].Line)
}

// naiveRaces are the pairs of conflicting accesses a relation leaves
// unordered: their number in all, and by pair of sites.
type naiveRaces struct {
	total   int64
	bySites map[naiveSitePair]int64
}

// races checks every pair of conflicting accesses and counts those o
// leaves unordered.
func (o *naiveClocks) races() naiveRaces {
	t := o.t
	out := naiveRaces{bySites: map[naiveSitePair]int64{}}
	var mem []int32
	for b := range t.Events {
		eb := &t.Events[b]
		if !eb.IsMem() {
			continue
		}
		for _, a := range mem {
			if ea := &t.Events[a]; naiveConflict(ea, eb) && o.concurrent(a, int32(b)) {
				out.total++
				out.bySites[naiveSites(t, int(a), b)]++
			}
		}
		mem = append(mem, int32(b))
	}
	return out
}

// naiveWriters returns the writers of the bytes read r reads: for each
// byte, the latest of writes (in trace order) that wrote it. It walks the
// writes from the latest, keeping the bytes no later write covered.
func naiveWriters(ev []trace.Event, writes []int32, r *trace.Event) []int32 {
	var out []int32
	left := [][2]uint64{{r.Addr, r.End()}} // bytes [lo, hi) not written yet
	for k := len(writes) - 1; k >= 0 && len(left) > 0; k-- {
		w := &ev[writes[k]]
		var rest [][2]uint64
		hit := false
		for _, s := range left {
			lo, hi := max(s[0], w.Addr), min(s[1], w.End())
			if lo >= hi {
				rest = append(rest, s)
				continue
			}
			hit = true
			if s[0] < lo {
				rest = append(rest, [2]uint64{s[0], lo})
			}
			if hi < s[1] {
				rest = append(rest, [2]uint64{hi, s[1]})
			}
		}
		if hit {
			out = append(out, writes[k])
		}
		left = rest
	}
	return out
}

// diffSiteCounts describes how two counts by pair of sites differ, or
// returns "".
func diffSiteCounts(want, got map[naiveSitePair]int64) string {
	if maps.Equal(want, got) {
		return ""
	}
	var out []string
	keys := slices.Collect(maps.Keys(want))
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y naiveSitePair) int {
		return cmp.Or(naiveFrameCmp(x[0], y[0]), naiveFrameCmp(x[1], y[1]))
	})
	for _, k := range keys {
		if want[k] != got[k] {
			out = append(out, fmt.Sprintf("%v: oracle %d, seer %d", k, want[k], got[k]))
		}
	}
	return strings.Join(out, "; ")
}
