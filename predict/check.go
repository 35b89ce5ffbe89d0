// This file implements the witness checker: an independent re-check of
// every reported schedule against the serial specifications, following
// Şerbănuţă, Chen and Roşu, "Maximal Causal Models", Theorem 2: a schedule
// is feasible iff it is a consistent extended interleaving prefix of the
// observed trace. The checker shares nothing with the encoder but the
// trace model: it replays the observed trace and the witness itself.
//
// Checked: every goroutine's events form a prefix of its observed events;
// each read sees, byte by byte, the same writer as in the observed run,
// except a goroutine's last event (its value may differ) and plain reads
// named control-irrelevant; locks are exclusive (shared mode excepted);
// each non-lock synchronisation that acquires sees the same release (and
// release-merges) as observed; a goroutine starts after its go statement;
// a join comes after all the joined goroutine's observed events; and the
// schedule shows the finding (a race's two accesses last and adjacent; an
// atomicity violation's remote access between its local accesses, the
// second of which ends the schedule).

package predict

import (
	"errors"
	"fmt"

	"github.com/seer-tools/seer/trace"
)

func chkReads(op trace.Op) bool {
	return op == trace.OpRead || op == trace.OpAtomicLoad || op == trace.OpOnceCheck || op == trace.OpAtomicRMW
}

func chkWrites(op trace.Op) bool {
	return op == trace.OpWrite || op == trace.OpAtomicStore || op == trace.OpOnceDone || op == trace.OpAtomicRMW
}

func chkMem(e *trace.Event) bool { return e.Size > 0 && (e.Op.IsAccess() || e.Op.IsAtomic()) }

// chkSync reports whether e is synchronisation kept as observed (not a
// lock, not an atomic, not a goroutine life-cycle event).
func chkSync(e *trace.Event) bool {
	if e.Sync == trace.SyncNone || e.Op.IsLock() || e.Op.IsAtomic() || e.Op.IsAccess() {
		return false
	}
	switch e.Op {
	case trace.OpGo, trace.OpStart, trace.OpEnd, trace.OpJoin, trace.OpTxBegin, trace.OpTxEnd:
		return false
	}
	return true
}

// syncState is what an acquire sees: the latest release and the merges
// since.
type syncState struct {
	rel    int
	merges []int
}

func (s syncState) equal(o syncState) bool {
	if s.rel != o.rel || len(s.merges) != len(o.merges) {
		return false
	}
	seen := make(map[int]bool, len(s.merges))
	for _, m := range s.merges {
		seen[m] = true
	}
	for _, m := range o.merges {
		if !seen[m] {
			return false
		}
	}
	return true
}

func (s *syncState) apply(e *trace.Event, i int) {
	switch e.Sync {
	case trace.SyncRelease, trace.SyncReleaseAcquire:
		s.rel, s.merges = i, nil
	case trace.SyncReleaseMerge:
		s.merges = append(s.merges, i)
	}
}

// checker holds what the observed run did, computed once per trace by
// replaying it: each goroutine's program order, the writer each read saw
// byte by byte, the release state each acquire saw, and a dense id per
// 8-byte memory word so that replaying a witness needs no hashing.
type checker struct {
	t      *trace.Trace
	posOf  []int32 // position of each event in its goroutine (0-based)
	goOf   []int32 // per goroutine: its go event, or -1
	word   []int32 // per memory access: dense id of its first word
	words  map[uint64]int32
	obsW   []int32 // per read: its writer, -1 initial, -2 mixed (see mixed)
	mixed  map[int32][]int32
	obsS   map[int32]syncState
	joinN  []int32 // per join: events of the joined goroutine before it
	nwords int
}

// newChecker replays t once.
func newChecker(t *trace.Trace) *checker {
	n := len(t.Events)
	ng := len(t.Goroutines)
	k := &checker{t: t, posOf: make([]int32, n), goOf: make([]int32, ng), word: make([]int32, n),
		words: make(map[uint64]int32), obsW: make([]int32, n), mixed: make(map[int32][]int32),
		obsS: make(map[int32]syncState), joinN: make([]int32, n)}
	for g := range k.goOf {
		k.goOf[g] = -1
	}
	count := make([]int32, ng)
	var last [][8]int32 // per word: writer of each byte, plus one
	sst := make(map[uint64]*syncState)
	writer := func(a uint64) int32 {
		if id, ok := k.words[a>>3]; ok {
			return last[id][a&7] - 1
		}
		return -1
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
			k.joinN[i] = count[e.Peer]
		}
		if chkMem(e) {
			for w := e.Addr >> 3; w <= (e.End()-1)>>3; w++ {
				if _, ok := k.words[w]; !ok {
					k.words[w] = int32(len(last))
					last = append(last, [8]int32{})
				}
			}
			k.word[i] = k.words[e.Addr>>3]
			if chkReads(e.Op) {
				w0 := writer(e.Addr)
				k.obsW[i] = w0
				for a := e.Addr + 1; a < e.End(); a++ {
					if writer(a) != w0 {
						var ws []int32
						for b := e.Addr; b < e.End(); b++ {
							ws = append(ws, writer(b))
						}
						k.obsW[i] = -2
						k.mixed[int32(i)] = ws
						break
					}
				}
			}
			if chkWrites(e.Op) {
				for a := e.Addr; a < e.End(); a++ {
					last[k.words[a>>3]][a&7] = int32(i) + 1
				}
			}
		}
		if chkSync(e) {
			s := sst[e.Addr]
			if s == nil {
				s = &syncState{rel: -1}
				sst[e.Addr] = s
			}
			if e.Sync.Acquires() {
				k.obsS[int32(i)] = syncState{rel: s.rel, merges: append([]int(nil), s.merges...)}
			}
			s.apply(e, i)
		}
	}
	k.nwords = len(last)
	return k
}

// observed returns the writer read i saw at address a.
func (k *checker) observed(i int, a uint64) int {
	w := k.obsW[i]
	if w == -2 {
		return int(k.mixed[int32(i)][a-k.t.Events[i].Addr])
	}
	return int(w)
}

// CheckWitness checks f's witness against t. irrelevant must be the
// ControlIrrelevant function the analysis ran with (or nil). A nil error
// means the witness is a feasible schedule of the program that recorded t
// and it exhibits f.
func CheckWitness(t *trace.Trace, f *Finding, irrelevant func(*trace.Trace, int) bool) error {
	return newChecker(t).check(f, irrelevant)
}

func (k *checker) check(f *Finding, irrelevant func(*trace.Trace, int) bool) error {
	t := k.t
	n := len(t.Events)
	ng := len(t.Goroutines)
	if len(f.Witness) == 0 {
		return errors.New("empty witness")
	}
	for _, i := range f.Events {
		if i < 0 || i >= n {
			return fmt.Errorf("event %d out of range", i)
		}
	}
	done := make([]bool, n)
	lastOf := make([]int32, ng)
	for _, i := range f.Witness {
		if i < 0 || i >= n {
			return fmt.Errorf("event %d out of range", i)
		}
		if done[i] {
			return fmt.Errorf("event %d twice in the witness", i)
		}
		done[i] = true
		if g := t.Events[i].G; int(g) > 0 && int(g) < ng {
			lastOf[g] = int32(i)
		}
	}
	clear(done)
	next := make([]int32, ng)
	wmem := make([][8]int32, k.nwords)
	wwriter := func(a uint64) int {
		return int(wmem[k.words[a>>3]][a&7]) - 1
	}
	wsync := make(map[uint64]*syncState)
	type lockState struct {
		writer  bool
		readers int
	}
	locks := make(map[trace.ObjID]*lockState)
	for step, i := range f.Witness {
		e := &t.Events[i]
		g := e.G
		if int(g) <= 0 || int(g) >= ng || k.posOf[i] != next[g] {
			return fmt.Errorf("step %d: event %d is not the next event of goroutine %d", step, i, g)
		}
		if j := k.goOf[g]; j >= 0 && next[g] == 0 && !done[j] {
			return fmt.Errorf("step %d: goroutine %d starts before its go statement (event %d)", step, g, j)
		}
		next[g]++
		if chkMem(e) && chkReads(e.Op) {
			exempt := int(lastOf[g]) == i || (e.Op == trace.OpRead && irrelevant != nil && irrelevant(t, i))
			if !exempt {
				one := e.Addr&7+uint64(e.Size) <= 8
				for a := e.Addr; a < e.End(); a++ {
					var w int
					if one {
						w = int(wmem[k.word[i]][a&7]) - 1
					} else {
						w = wwriter(a)
					}
					if o := k.observed(i, a); w != o {
						return fmt.Errorf("step %d: read %d sees writer %d at %#x, observed %d", step, i, w, a, o)
					}
				}
			}
		}
		if chkMem(e) && chkWrites(e.Op) {
			if e.Addr&7+uint64(e.Size) <= 8 {
				w := &wmem[k.word[i]]
				for a := e.Addr; a < e.End(); a++ {
					w[a&7] = int32(i) + 1
				}
			} else {
				for a := e.Addr; a < e.End(); a++ {
					wmem[k.words[a>>3]][a&7] = int32(i) + 1
				}
			}
		}
		if e.Op.IsLock() {
			l := locks[e.Obj]
			if l == nil {
				l = &lockState{}
				locks[e.Obj] = l
			}
			switch e.Op {
			case trace.OpLock:
				if l.writer || l.readers > 0 {
					return fmt.Errorf("step %d: lock %d acquired while held", step, i)
				}
				l.writer = true
			case trace.OpRLock:
				if l.writer {
					return fmt.Errorf("step %d: read lock %d acquired while write-held", step, i)
				}
				l.readers++
			case trace.OpUnlock:
				if !l.writer {
					return fmt.Errorf("step %d: unlock %d of a lock not held", step, i)
				}
				l.writer = false
			case trace.OpRUnlock:
				if l.readers == 0 {
					return fmt.Errorf("step %d: read unlock %d of a lock not read-held", step, i)
				}
				l.readers--
			}
		}
		if chkSync(e) {
			s := wsync[e.Addr]
			if s == nil {
				s = &syncState{rel: -1}
				wsync[e.Addr] = s
			}
			if o := k.obsS[int32(i)]; e.Sync.Acquires() && !s.equal(o) {
				return fmt.Errorf("step %d: acquire %d synchronises with %d%v, observed %d%v", step, i, s.rel, s.merges, o.rel, o.merges)
			}
			s.apply(e, i)
		}
		if e.Op == trace.OpJoin && e.Peer > 0 && int(e.Peer) < ng && next[e.Peer] < k.joinN[i] {
			return fmt.Errorf("step %d: join %d before the joined goroutine's event %d", step, i, next[e.Peer])
		}
		done[i] = true
	}
	return checkProperty(t, f)
}

// checkProperty checks that the witness shows the finding.
func checkProperty(t *trace.Trace, f *Finding) error {
	w := f.Witness
	ev := func(i int) *trace.Event { return &t.Events[i] }
	overlaps := func(a, b *trace.Event) bool { return a.Addr < b.End() && b.Addr < a.End() }
	switch f.Kind {
	case KindRace:
		if len(f.Events) != 2 || len(w) < 2 {
			return errors.New("race needs two events and a witness of two or more")
		}
		a, b := ev(f.Events[0]), ev(f.Events[1])
		if a.G == b.G || !chkMem(a) || !chkMem(b) || !overlaps(a, b) ||
			!(chkWrites(a.Op) || chkWrites(b.Op)) || (a.Op.IsAtomic() && b.Op.IsAtomic()) {
			return fmt.Errorf("events %v do not conflict", f.Events)
		}
		x, y := w[len(w)-2], w[len(w)-1]
		if !((x == f.Events[0] && y == f.Events[1]) || (x == f.Events[1] && y == f.Events[0])) {
			return fmt.Errorf("witness does not end with the racing events %v", f.Events)
		}
	case KindAtomicity:
		if len(f.Events) != 3 {
			return errors.New("atomicity needs three events")
		}
		c1, r, c2 := f.Events[0], f.Events[1], f.Events[2]
		e1, er, e2 := ev(c1), ev(r), ev(c2)
		if e1.G != e2.G || er.G == e1.G || c1 >= c2 {
			return fmt.Errorf("events %v: want two local accesses around a remote one", f.Events)
		}
		if !chkMem(e1) || !chkMem(er) || !chkMem(e2) || !overlaps(e1, er) || !overlaps(er, e2) {
			return fmt.Errorf("events %v do not touch common memory", f.Events)
		}
		wc, wr, wc2 := chkWrites(e1.Op), chkWrites(er.Op), chkWrites(e2.Op)
		if !wr && !(wc && wc2) { // R-R-R, R-R-W, W-R-R are serializable
			return fmt.Errorf("events %v form a serializable pattern", f.Events)
		}
		if !sameTransaction(t, c1, c2) {
			return fmt.Errorf("events %d and %d are not in one transaction", c1, c2)
		}
		if w[len(w)-1] != c2 {
			return fmt.Errorf("witness does not end with %d", c2)
		}
		pc, pr := -1, -1
		for k, i := range w {
			switch i {
			case c1:
				pc = k
			case r:
				pr = k
			}
		}
		if pc < 0 || pr < 0 || pc > pr {
			return fmt.Errorf("witness does not order %d before %d", c1, r)
		}
	default:
		return fmt.Errorf("unknown kind %q", f.Kind)
	}
	return nil
}

// sameTransaction reports whether events c1 < c2 of one goroutine lie in
// one transaction: one outermost begin..end region, or one critical
// section of some lock.
func sameTransaction(t *trace.Trace, c1, c2 int) bool {
	g := t.Events[c1].G
	depth, depthAtC1 := 0, 0
	endedBetween := false
	held := make(map[trace.ObjID]bool)
	for i := 0; i < c2; i++ {
		e := &t.Events[i]
		if e.G != g {
			continue
		}
		switch e.Op {
		case trace.OpTxBegin:
			depth++
		case trace.OpTxEnd:
			if depth > 0 {
				depth--
				if depth == 0 && i > c1 {
					endedBetween = true
				}
			}
		case trace.OpLock, trace.OpRLock:
			if i < c1 {
				held[e.Obj] = true
			}
		case trace.OpUnlock, trace.OpRUnlock:
			delete(held, e.Obj)
		}
		if i == c1 {
			depthAtC1 = depth
		}
	}
	return (depthAtC1 > 0 && !endedBetween) || len(held) > 0
}
