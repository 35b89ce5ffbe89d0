// This file implements the near misses of seer check -explore's findings
// strategy (explore.go, issue 28): orders a run came close to that would
// have run code it did not, each the next run's target, with the delay
// that aims at it.
//
//   - A close that came just after a select of another goroutine (a
//     cancel, whose ctx.Done() channel the select may have waited on):
//     had the select come after it, the select could have taken that
//     case, and run the branch that its other case skipped (GFuzz, Liu
//     et al., ASPLOS'22, section 4, which reorders the messages a select
//     sees). The target delays the select's goroutine before the select,
//     where it holds no lock (lockFree), so that the close comes first and
//     every case that can be ready is.
//   - A critical section that read a location, followed on its mutex by
//     another goroutine's critical section that stored to it (a Close
//     that resets a field the reader then uses): in the other order the
//     reader sees the store (a nil its dereference panics on). The target
//     delays the reader before its Lock, so that the writer's section
//     comes first; the recorded values of plain stores are not known, so
//     every such store counts.
//
// A near miss whose target run did not take the other order shows again
// in that run (or its select takes the same case again), and is aimed at
// again, up to NearMissTries times: Go chooses among ready select cases
// at random.

package check

import (
	"github.com/seer-tools/seer/trace"
)

// NearMissTries bounds the runs aimed at one near miss.
var NearMissTries = 4

// nearMissWindow is how many events after a select a close still comes
// "just after" it.
const nearMissWindow = 256

// maxSections bounds the finished critical sections kept for each mutex,
// and maxReads the locations kept for each critical section.
const (
	maxSections = 4
	maxReads    = 64
)

// A nearMiss is an order the last run came close to: key names it by
// source lines, delay is where the next run delays a goroutine to take it.
type nearMiss struct {
	key   string
	delay spot
	// A select's: its line and the case it took; a run aimed at it that
	// took that case again missed it too.
	site, took string
}

// nearMisses finds the near misses of one run, fed its events in order by
// plan.
type nearMisses struct {
	selects []pendingSelect
	open    map[trace.GoID][]*section
	done    map[trace.ObjID][]*section
	found   []nearMiss
	seen    map[string]bool
	took    map[string]bool // select line + case: the cases selects took
}

// A pendingSelect is a select of the run, still close enough to a close.
type pendingSelect struct {
	i          int
	g          trace.GoID
	site, took string
	at         spot
}

// A section is a goroutine's critical section on a mutex: where its Lock
// is, and what it read.
type section struct {
	g     trace.GoID
	obj   trace.ObjID
	site  string
	at    spot
	reads map[uint64]bool
}

func newNearMisses() *nearMisses {
	return &nearMisses{open: map[trace.GoID][]*section{}, done: map[trace.ObjID][]*section{}, seen: map[string]bool{}, took: map[string]bool{}}
}

func (nm *nearMisses) add(n nearMiss) {
	if !nm.seen[n.key] {
		nm.seen[n.key] = true
		nm.found = append(nm.found, n)
	}
}

// selected notes that select event i of goroutine g, at site, took case
// took; at is where to delay g before it (its lock-free spot), ok whether
// there is one.
func (nm *nearMisses) selected(i int, g trace.GoID, site, took string, at spot, ok bool) {
	nm.took[site+" "+took] = true
	if ok {
		nm.selects = append(nm.selects, pendingSelect{i, g, site, took, at})
	}
}

// event takes in event i of a goroutine of a test; at is its spot, ok
// whether it has one.
func (nm *nearMisses) event(t *trace.Trace, i int, at spot, ok bool) {
	e := &t.Events[i]
	switch e.Op {
	case trace.OpClose:
		k := 0
		for k < len(nm.selects) && i-nm.selects[k].i > nearMissWindow {
			k++
		}
		nm.selects = nm.selects[k:]
		for _, s := range nm.selects {
			if s.g != e.G {
				nm.add(nearMiss{key: "select " + s.site + " < close " + runSite(t, i), delay: s.at, site: s.site, took: s.took})
			}
		}
	case trace.OpLock:
		if ok {
			nm.open[e.G] = append(nm.open[e.G], &section{g: e.G, obj: e.Obj, site: runSite(t, i), at: at, reads: map[uint64]bool{}})
		}
	case trace.OpUnlock:
		ss := nm.open[e.G]
		for k := len(ss) - 1; k >= 0; k-- {
			if s := ss[k]; s.obj == e.Obj {
				nm.open[e.G] = append(ss[:k], ss[k+1:]...)
				d := append(nm.done[e.Obj], s)
				nm.done[e.Obj] = d[max(0, len(d)-maxSections):]
				break
			}
		}
	case trace.OpRead:
		for _, s := range nm.open[e.G] {
			if len(s.reads) < maxReads {
				s.reads[e.Addr] = true
			}
		}
	case trace.OpWrite:
		for _, held := range nm.open[e.G] {
			for _, s := range nm.done[held.obj] {
				if s.g != e.G && s.reads[e.Addr] {
					nm.add(nearMiss{key: "section " + s.site + " < store " + runSite(t, i), delay: s.at})
				}
			}
		}
	}
}

// aim queues the near misses of the last run never aimed at, and those
// the last run aimed at and missed (it showed the near miss again, or its
// select took the same case again), while none has been aimed at
// NearMissTries times. A near miss aimed at once that shows again in a
// run that did not aim at it is not aimed at again: the order it came
// close to was taken.
func (ex *explorer) aim(nm *nearMisses) {
	queued := map[string]bool{}
	for _, n := range ex.near {
		queued[n.key] = true
	}
	var again []nearMiss
	for _, n := range nm.found {
		if ex.nearTries[n.key] == 0 {
			again = append(again, n)
		}
	}
	for _, n := range ex.aimed {
		if nm.seen[n.key] || n.site != "" && nm.took[n.site+" "+n.took] {
			again = append(again, n)
		}
	}
	ex.aimed = nil
	for _, n := range again {
		if !queued[n.key] && ex.nearTries[n.key] < NearMissTries {
			queued[n.key] = true
			ex.near = append(ex.near, n)
		}
	}
}

// nearSchedule steers the next run at the near misses queued first, as
// many as take a goroutine each (ExploreMaxDelays at most).
func (ex *explorer) nearSchedule(seed uint64) *trace.ExploreSchedule {
	sc := &trace.ExploreSchedule{Seed: seed, StepWait: ExploreStepWait, Budget: ExploreBudget}
	taken := map[uint64]bool{}
	var left []nearMiss
	for _, n := range ex.near {
		if taken[n.delay.path] || len(sc.Delays) >= ExploreMaxDelays {
			left = append(left, n)
			continue
		}
		taken[n.delay.path] = true
		ex.nearTries[n.key]++
		ex.aimed = append(ex.aimed, n)
		sc.Delays = append(sc.Delays, trace.ExploreDelay{Path: n.delay.path, Pos: n.delay.pos, Wait: ExploreDelay})
	}
	ex.near = left
	return sc
}
