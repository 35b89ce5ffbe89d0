// This file implements the checker's indices (see check.go): one
// replay of the observed run records each goroutine's events, go
// statements and joins; for hot memory (touched by two goroutines and
// written) each read's writers byte range by byte range and each write's
// readers; for synchronisation kept as observed, each address's acquires
// and releases; for locks, each one's operations and the state after
// each. Everything a finding's check asks is then a lookup or a binary
// search (Şerbănuţă, Chen and Roşu, "Maximal Causal Models", Theorem 2,
// is what is checked; this is how the run's side of it is kept).

package witness

import (
	"slices"
	"sort"
	"sync"

	"github.com/seer-tools/seer/trace"
)

// obsRun says that the bytes of a read from offset off (to the next run)
// were last written by w in the observed run (-1: the initial value).
type obsRun struct {
	off uint32
	w   int32
}

// A Checker holds what the observed run did, computed once per trace,
// and checks schedules against it. Its methods may be called from several
// goroutines at once (Relax excepted, which must come first).
type Checker struct {
	t       *trace.Trace
	n, ng   int
	relaxed func(i int32) bool
	// valueFree: receives that may take another send (partner.go).
	valueFree func(recv int32) bool
	// selectCases: the other cases of a select (select.go).
	selectCases func(sel int32) ([]SelectCase, bool)

	posOf []int32 // position of each event in its goroutine (0-based)
	gOff  []int32 // events of goroutine g: gEv[gOff[g]:gOff[g+1]]
	gEv   []int32
	goOf  []int32         // per goroutine: its go event, or -1
	joinN map[int32]int32 // per join: events of the joined goroutine before it
	joins []int32         // join events, in order
	child map[int32]int32 // per go event that goOf names: the goroutine

	// Memory, for hot locations (touched by two goroutines and written;
	// reads of the others see the same writer in every schedule).
	loc      []int32
	spans    []trace.Span
	hotID    []int32   // per location: dense id, or -1
	hotW     [][]int32 // per hot location: its writes, in order
	hotReads []int32   // hot reads, in order
	runOff   []int32   // runs of hotReads[k]: runs[runOff[k]:runOff[k+1]]
	runs     []obsRun
	wrIdx    []int32 // hot writes with readers, in order
	rdOff    []int32 // readers of wrIdx[k]: rd[rdOff[k]:rdOff[k+1]]
	rd       []int32

	// Synchronisation kept as observed, per address: its acquires, its
	// releases of any kind, and its releases that replace the state
	// (Release, ReleaseAcquire), each in order.
	syncID map[uint64]int32
	acqEv  [][]int32
	relEv  [][]int32
	repEv  [][]int32

	// Locks, per object: operations in order, the state after each, and
	// whether the observed run itself breaks the specification.
	lockOps   map[trace.ObjID][]int32
	lockAfter map[trace.ObjID][]lockState
	lockBad   map[trace.ObjID]bool

	mis misuseCache // channels and WaitGroups, built at the first misuse check (misuse.go)
	// Built on first use, once: Check may be called from several
	// goroutines at once.
	chans     map[trace.ObjID][]int32 // per channel: its events (blocking.go)
	chansOnce sync.Once
	conds     map[trace.ObjID][]int32 // per sync.Cond: its signals and broadcasts
	condsOnce sync.Once
	bufs      map[trace.ObjID]*BufChan // per slot: its buffered channel (bufchan.go)
	orphans   []int32                  // closes of unknown channels (BufChans)
	bufsOnce  sync.Once
}

// NewChecker replays t once. loc and spans must be
// trace.GroupAccesses(t.Events)'s (an analysis that computed them may
// pass them on; Check computes them itself).
func NewChecker(t *trace.Trace, loc []int32, spans []trace.Span) *Checker {
	n := len(t.Events)
	ng := len(t.Goroutines)
	k := &Checker{t: t, n: n, ng: ng, posOf: make([]int32, n), gOff: make([]int32, ng+1),
		goOf: make([]int32, ng), joinN: make(map[int32]int32),
		loc: loc, spans: spans, syncID: make(map[uint64]int32),
		lockOps: make(map[trace.ObjID][]int32), lockAfter: make(map[trace.ObjID][]lockState), lockBad: make(map[trace.ObjID]bool)}
	for g := range k.goOf {
		k.goOf[g] = -1
	}
	count := make([]int32, ng)
	locks := make(map[trace.ObjID]*lockState)
	// Each lock's lists, sized exactly (appending would leave as much
	// garbage as they hold).
	lockN := make(map[trace.ObjID]int)
	syncN := make(map[uint64]*[3]int32) // acquires, releases, replacing releases
	for i := 0; i < n; i++ {
		e := &t.Events[i]
		if int(e.G) <= 0 || int(e.G) >= ng {
			continue
		}
		if e.Op.IsLock() {
			lockN[e.Obj]++
		}
		if chkSync(e) {
			c := syncN[e.Addr]
			if c == nil {
				c = new([3]int32)
				syncN[e.Addr] = c
			}
			if e.Sync.Acquires() {
				c[0]++
			}
			if e.Sync.Releases() {
				c[1]++
			}
			if e.Sync == trace.SyncRelease || e.Sync == trace.SyncReleaseAcquire {
				c[2]++
			}
		}
	}
	for o, c := range lockN {
		k.lockOps[o] = make([]int32, 0, c)
		k.lockAfter[o] = make([]lockState, 0, c)
	}
	for i := 0; i < n; i++ {
		e := &t.Events[i]
		g := e.G
		if int(g) <= 0 || int(g) >= ng {
			continue
		}
		k.posOf[i] = count[g]
		count[g]++
		if e.Op == trace.OpGo && e.Peer > 0 && int(e.Peer) < ng && k.goOf[e.Peer] < 0 && count[e.Peer] == 0 {
			k.goOf[e.Peer] = int32(i) // (a go after the child ran orders nothing)
		}
		if e.Op == trace.OpJoin && e.Peer > 0 && int(e.Peer) < ng {
			k.joinN[int32(i)] = count[e.Peer]
			k.joins = append(k.joins, int32(i))
		}
		if chkSync(e) {
			id, ok := k.syncID[e.Addr]
			if !ok {
				id = int32(len(k.acqEv))
				k.syncID[e.Addr] = id
				c := syncN[e.Addr]
				k.acqEv = append(k.acqEv, make([]int32, 0, c[0]))
				k.relEv = append(k.relEv, make([]int32, 0, c[1]))
				k.repEv = append(k.repEv, make([]int32, 0, c[2]))
			}
			if e.Sync.Acquires() {
				k.acqEv[id] = append(k.acqEv[id], int32(i))
			}
			if e.Sync.Releases() {
				k.relEv[id] = append(k.relEv[id], int32(i))
			}
			if e.Sync == trace.SyncRelease || e.Sync == trace.SyncReleaseAcquire {
				k.repEv[id] = append(k.repEv[id], int32(i))
			}
		}
		if e.Op.IsLock() {
			l := locks[e.Obj]
			if l == nil {
				l = &lockState{}
				locks[e.Obj] = l
			}
			if !l.step(e.Op) {
				k.lockBad[e.Obj] = true
			}
			k.lockOps[e.Obj] = append(k.lockOps[e.Obj], int32(i))
			k.lockAfter[e.Obj] = append(k.lockAfter[e.Obj], *l)
		}
	}
	for g := 1; g < ng; g++ {
		k.gOff[g+1] = k.gOff[g] + count[g]
	}
	k.gOff[1] = 0
	k.gEv = make([]int32, n)
	fill := append([]int32(nil), k.gOff[:ng]...)
	for i := 0; i < n; i++ {
		if g := t.Events[i].G; int(g) > 0 && int(g) < ng {
			k.gEv[fill[g]] = int32(i)
			fill[g]++
		}
	}
	k.replayMemory()
	return k
}

// Shared reports whether location l is touched by two goroutines and
// written: the only locations whose reads may see another writer in
// another schedule.
func (k *Checker) Shared(l int32) bool { return k.hotID[l] >= 0 }

// Relax lets the plain reads for which relaxed reports true see another
// writer than in the observed run: reads whose value an analysis proved
// to decide nothing that the finding depends on (predict's relevance
// closure, Huang, Meredith and Roşu, "Maximal Sound Predictive Race
// Detection with Control Flow Abstraction"). Without it, every read but a
// goroutine's last in the schedule must see its observed writer.
func (k *Checker) Relax(relaxed func(i int32) bool) { k.relaxed = relaxed }

// replayMemory finds the hot locations and records each hot read's
// observed writers and each hot write's readers.
func (k *Checker) replayMemory() {
	t := k.t
	type lg struct {
		g0          trace.GoID
		multi, wrtn bool
	}
	st := make([]lg, len(k.spans))
	for i, l := range k.loc {
		if l < 0 {
			continue
		}
		e := &t.Events[i]
		s := &st[l]
		if s.g0 == 0 {
			s.g0 = e.G
		} else if s.g0 != e.G {
			s.multi = true
		}
		if chkWrites(e.Op) {
			s.wrtn = true
		}
	}
	k.hotID = make([]int32, len(k.spans))
	for l := range st {
		k.hotID[l] = -1
		if st[l].multi && st[l].wrtn {
			k.hotID[l] = int32(len(k.hotW))
			k.hotW = append(k.hotW, nil)
		}
	}
	// Each hot location is tracked from its first access to its last.
	wm := trace.NewWriterMap()
	last := trace.LastAccesses(k.loc, len(k.spans))
	// Sizes, so that the lists below are allocated once: hot reads
	// exactly, their runs and read-from pairs at one per read to start.
	// hot calls f with each memory event on a hot location.
	hot := func(f func(i int, l int32, e *trace.Event)) {
		for i, l := range k.loc {
			if l < 0 || k.hotID[l] < 0 {
				continue
			}
			if e := &t.Events[i]; chkMem(e) {
				f(i, l, e)
			}
		}
	}
	nr := 0
	hotN := make([]int32, len(k.hotW))
	hot(func(_ int, l int32, e *trace.Event) {
		if chkReads(e.Op) {
			nr++
		}
		if chkWrites(e.Op) {
			hotN[k.hotID[l]]++
		}
	})
	for h, c := range hotN {
		k.hotW[h] = make([]int32, 0, c)
	}
	k.hotReads = make([]int32, 0, nr)
	k.runOff = make([]int32, 0, nr+1)
	k.runs = make([]obsRun, 0, nr)
	type pair struct{ w, r int32 }
	pairs := make([]pair, 0, nr)
	hot(func(i int, l int32, e *trace.Event) {
		wm.Track(l, k.spans[l])
		if chkReads(e.Op) {
			k.hotReads = append(k.hotReads, int32(i))
			k.runOff = append(k.runOff, int32(len(k.runs)))
			wm.Read(l, e.Addr, e.Size, func(lo, _ uint64, w int32) {
				k.runs = append(k.runs, obsRun{uint32(lo - e.Addr), w})
				if w >= 0 {
					pairs = append(pairs, pair{w, int32(i)})
				}
			})
		}
		if chkWrites(e.Op) {
			wm.Write(l, e.Addr, e.Size, int32(i))
			h := k.hotID[l]
			k.hotW[h] = append(k.hotW[h], int32(i))
		}
		if last[l] == int32(i) {
			wm.Forget(l)
		}
	})
	k.runOff = append(k.runOff, int32(len(k.runs)))
	slices.SortFunc(pairs, func(a, b pair) int {
		if a.w != b.w {
			return int(a.w - b.w)
		}
		return int(a.r - b.r)
	})
	pairs = slices.Compact(pairs)
	nw := 0
	for j, p := range pairs {
		if j == 0 || p.w != pairs[j-1].w {
			nw++
		}
	}
	k.wrIdx = make([]int32, 0, nw)
	k.rdOff = make([]int32, 0, nw+1)
	k.rd = make([]int32, 0, len(pairs))
	for j, p := range pairs {
		if j == 0 || p.w != pairs[j-1].w {
			k.wrIdx = append(k.wrIdx, p.w)
			k.rdOff = append(k.rdOff, int32(j))
		}
		k.rd = append(k.rd, p.r)
	}
	k.rdOff = append(k.rdOff, int32(len(pairs)))
}

// readRuns returns the observed runs of hot read i (nil if i is not one).
func (k *Checker) readRuns(i int32) []obsRun {
	j, ok := slices.BinarySearch(k.hotReads, i)
	if !ok {
		return nil
	}
	return k.runs[k.runOff[j]:k.runOff[j+1]]
}

// readers returns the hot reads that observed write w at some byte.
func (k *Checker) readers(w int32) []int32 {
	j, ok := slices.BinarySearch(k.wrIdx, w)
	if !ok {
		return nil
	}
	return k.rd[k.rdOff[j]:k.rdOff[j+1]]
}

// countBelow returns how many events of goroutine g have index < x.
func (k *Checker) countBelow(g int, x int) int32 {
	evs := k.gEv[k.gOff[g]:k.gOff[g+1]]
	return int32(sort.Search(len(evs), func(j int) bool { return int(evs[j]) >= x }))
}

// syncState returns the state of sync address a just before event
// index x, counting only the releases for which in says yes: the latest
// release and the merges since.
func (k *Checker) syncBefore(a uint64, x int32, in func(int32) bool) syncState {
	t := k.t
	st := syncState{rel: -1}
	id, ok := k.syncID[a]
	if !ok {
		return st
	}
	list := k.relEv[id]
	q := sort.Search(len(list), func(j int) bool { return list[j] >= x }) - 1
	for ; q >= 0; q-- {
		r := list[q]
		if !in(r) {
			continue
		}
		if t.Events[r].Sync == trace.SyncReleaseMerge {
			st.merges = append(st.merges, int(r))
			continue
		}
		st.rel = int(r)
		break
	}
	return st
}
