// This file implements leaving out the goroutine-local accesses of a
// converted trace (compactLocal): the plain accesses to memory that no
// other goroutine touched.
//
// No sound relation orders or reports anything through such an access: a
// data race, an atomicity violation and a read-from edge between
// goroutines all need two goroutines to touch a common byte, and an access
// whose bytes no other goroutine touched is ordered with every other
// access to them by program order alone, in the recorded run and in every
// witness (a read among them sees the same write in both, or the initial
// value in both). Leaving them out changes no finding; it changes the
// cost. On Go's race suite nearly all events are such accesses
// (a test's own buffers and stack, the testing package's bookkeeping), and
// they were most of the analysis's time and memory.
//
// Memory is taken at trace addresses, after conversion has renamed heap
// memory by allocation life (and goroutine stacks with it), so memory the
// allocator passes from one goroutine to another is not shared. It is
// taken by 8-byte word: two goroutines touching different bytes of one
// word keep both accesses, which is conservative. Accesses of more than
// smallWords words are taken by page, so that a copy of megabytes costs a
// step per page: a page records every goroutine that touched it (all) and
// every goroutine that touched it with a large access (large); a small
// access is local when its words and the large accesses of its pages are
// its goroutine's alone, a large one when its pages are. Synchronisation
// and atomics mark their words as shared: never left out themselves, they
// keep the plain accesses to their memory.
//
// A heap life that go statements hand from goroutine to goroutine (each
// new owner started, through its ancestors, by a go statement of the one
// before, after that one's last event on the life) is taken as local too:
// local_handoff.go says why no finding depends on its accesses either.
//
// Two events of each goroutine stay whatever they are: its last, and its
// last with a frame of the user's code. The observed-blocking analysis
// (predict.ObservedBlocked) reads them: where a goroutine was when the run
// ended, and in which call it was blocked.

package trace

import (
	"slices"

	"github.com/seer-tools/seer/internal/bigslice"
)

const (
	wordShift   = 3
	ownPageBits = 12
	smallWords  = 64
	multiOwner  = ^uint32(0)
)

// owners says which goroutine touched each word and page of a trace's
// memory: a goroutine id, or multiOwner.
type owners struct {
	words *addrTable // word -> owner
	all   *addrTable // page -> owner, over every access
	large *addrTable // page -> owner, over large accesses
}

func newOwners() *owners {
	return &owners{words: newAddrTable(), all: newAddrTable(), large: newAddrTable()}
}

func markOwner(t *addrTable, k uint64, g uint32) {
	v := t.ref(k)
	switch *v {
	case 0:
		*v = g
	case g:
	default:
		*v = multiOwner
	}
}

func wordsPages(addr uint64, size uint32) (w0, w1, p0, p1 uint64) {
	end := addr + uint64(max(size, 1))
	return addr >> wordShift, (end - 1) >> wordShift, addr >> ownPageBits, (end - 1) >> ownPageBits
}

// touch notes that goroutine g (> 0, or multiOwner) touched
// [addr, addr+size).
func (o *owners) touch(g uint32, addr uint64, size uint32) {
	w0, w1, p0, p1 := wordsPages(addr, size)
	if w1-w0 < smallWords {
		for w := w0; w <= w1; w++ {
			markOwner(o.words, w, g)
		}
		for p := p0; p <= p1; p++ {
			markOwner(o.all, p, g)
		}
		return
	}
	for p := p0; p <= p1; p++ {
		markOwner(o.all, p, g)
		markOwner(o.large, p, g)
	}
}

// local reports whether no goroutine but g touched a byte of
// [addr, addr+size).
func (o *owners) local(g uint32, addr uint64, size uint32) bool {
	w0, w1, p0, p1 := wordsPages(addr, size)
	if w1-w0 < smallWords {
		for w := w0; w <= w1; w++ {
			if v, _ := o.words.get(w); v != g {
				return false
			}
		}
		for p := p0; p <= p1; p++ {
			if v, ok := o.large.get(p); ok && v != g {
				return false
			}
		}
		return true
	}
	for p := p0; p <= p1; p++ {
		if v, _ := o.all.get(p); v != g {
			return false
		}
	}
	return true
}

// CompactLocal leaves out t's goroutine-local plain accesses (see the
// file comment), counting them in t.Local, and returns how many it left
// out. Event indices change; objects no event names any more are dropped
// and the others numbered anew.
func CompactLocal(t *Trace) int {
	n := len(t.Events)
	left, rp := compactLocal(t, t.replayPos, nil)
	t.replayPos = shrinkEvents(t, rp, n)
	if left > 0 {
		b := &Builder{t: t}
		b.compactObjects()
	}
	return left
}

// A localScan gathers, event by event, what compactLocal needs to know
// of a whole trace: whether each heap life (by number, see lifeBase) was
// touched by more than one goroutine, the owners of the words of all
// other memory, and each goroutine's last event and last event with a
// user frame. Conversion feeds it each event as it adds it, while the
// test still runs, so that little of the compaction is left for after.
type localScan struct {
	lifeOwner []uint32 // per life: the goroutine whose it is (own or handed over, local_handoff.go), or multiOwner
	lifeLast  []uint32 // per life: its owner's count (goTree) at its last event on the life
	tree      goTree
	o         *owners // memory outside heap lives
	last      []int32 // per goroutine g: its last event (2g) and last with a user frame (2g+1), or -1; -2-k: record k of the side log (local_side.go)
	user      []int8  // per stack id: 1 if it has a user frame, -1 if not, 0 not yet known
	stacks    *StackTable
	goroot    string
	lives     *lifeWords // the words of shared lives, once sharedLives has run (local_lives.go)
}

func newLocalScan(stacks *StackTable, goroot string) *localScan {
	return &localScan{o: newOwners(), stacks: stacks, goroot: goroot}
}

// observe notes event i, or record -2-i of the side log (local_side.go),
// and reports whether e made its heap life shared: lifeOwner turned
// multiOwner, which it stays from then on (ownedBy).
func (s *localScan) observe(i int, e *Event) bool {
	n := s.noteLast(i, e)
	owner := uint32(e.G)
	if !e.Op.IsAccess() {
		owner = multiOwner
	}
	if e.Addr >= lifeBase {
		l := (e.Addr - lifeBase) >> lifeShift
		s.growLives(l)
		was := s.lifeOwner[l]
		if was == 0 || was == owner || s.ownedBy(l, owner) { // ownedBy's first case inlined
			s.lifeOwner[l], s.lifeLast[l] = owner, n // its own, or handed over by a go statement
		} else {
			s.lifeOwner[l] = multiOwner
		}
		return was != multiOwner && s.lifeOwner[l] == multiOwner
	}
	if e.Op.IsAccess() || e.Addr != 0 {
		s.o.touch(owner, e.Addr, e.Size)
	}
	return false
}

// observeOwned is observe for an access e of life l that leaves l its
// goroutine's (ownedAfter said so): it never makes l shared.
func (s *localScan) observeOwned(i int, e *Event, l uint64) {
	n := s.noteLast(i, e)
	s.growLives(l)
	s.lifeOwner[l], s.lifeLast[l] = uint32(e.G), n
}

// growLives makes room in lifeOwner and lifeLast for life l.
func (s *localScan) growLives(l uint64) {
	for uint64(len(s.lifeOwner)) <= l {
		k := len(s.lifeOwner) + 1024
		s.lifeOwner = bigslice.Extend(s.lifeOwner, k) // as the collector can stop
		s.lifeLast = bigslice.Extend(s.lifeLast, k)
	}
}

// noteLast notes event i (or record -2-i of the side log) in goTree and
// as e's goroutine's last event, and its last with a user frame if it is
// one, and returns the goroutine's count at it (goTree.note).
func (s *localScan) noteLast(i int, e *Event) uint32 {
	g := int(e.G)
	var n uint32
	if t := &s.tree; g < len(t.count) && e.Op != OpGo {
		t.count[g]++ // goTree.note's, inlined, for an event not a go statement
		n = t.count[g]
	} else {
		n = t.note(g, e)
	}
	if len(s.last) <= 2*g+1 {
		s.growLast(g)
	}
	last := s.last[2*g : 2*g+2 : 2*g+2]
	last[0] = int32(i)
	if e.Stack != 0 {
		if int(e.Stack) >= len(s.user) {
			s.user = bigslice.Extend(s.user, int(e.Stack)+1024)
		}
		u := s.user[e.Stack]
		if u == 0 {
			u = s.judgeUser(e.Stack)
		}
		if u > 0 {
			last[1] = int32(i)
		}
	}
	return n
}

// ownedLife reports whether life l was one goroutine's so far: it has room
// in lifeOwner (growLives) and is not multiOwner there (an owner 0, no
// event of it noted yet, counts as owned). Once it ends, its accesses but
// the last of each goroutine may be left out (settle, the side log).
func (s *localScan) ownedLife(l uint64) bool {
	return l < uint64(len(s.lifeOwner)) && s.lifeOwner[l] != multiOwner
}

// growLast makes room in last for goroutine g's events (noteLast).
func (s *localScan) growLast(g int) {
	for len(s.last) <= 2*g+1 {
		s.last = append(s.last, -1)
	}
}

// judgeUser notes in user whether stack has a user frame (1) or not (-1),
// and returns it.
func (s *localScan) judgeUser(stack StackID) int8 {
	u := int8(-1)
	if _, user := UserFrame(s.stacks.Frames(stack), s.goroot); user {
		u = 1
	}
	s.user[stack] = u
	return u
}

// ownedBy reports whether life l, already in lifeOwner, is owner's (not
// multiOwner) once owner touches it: no one touched it yet, or owner
// alone, or its owner handed it to owner by go statements.
func (s *localScan) ownedBy(l uint64, owner uint32) bool {
	switch v := s.lifeOwner[l]; {
	case v == 0, v == owner:
		return true
	case handoffLives && v != multiOwner && owner != multiOwner && s.tree.handedTo(v, owner, s.lifeLast[l]):
		return true
	}
	return false
}

// ownedAfter reports whether life l is still one goroutine's after an
// access of goroutine g (observe would not make it shared): what the
// converter asks before holding the access back (local_side.go). It reads
// what observe's goTree.note does not change for an access.
func (s *localScan) ownedAfter(l uint64, g uint32) bool {
	return l >= uint64(len(s.lifeOwner)) || s.ownedBy(l, g)
}

// compactLocal is CompactLocal; rp, if not nil, holds a value per event
// (the replay positions) and is compacted alike. scan, if not nil, has
// observed every event of t.
func compactLocal(t *Trace, rp []uint32, scan *localScan) (int, []uint32) {
	left, rp, _ := compactLocalObjects(t, nil, rp, scan)
	return left, rp
}

// compactLocalObjects is compactLocal, which, given b (t's builder), may
// count the objects the kept events name as it finds which to keep
// (dropSet, local_compact.go): it returns them, ready to be made
// (objNames.renameAll), or nil.
func compactLocalObjects(t *Trace, b *Builder, rp []uint32, scan *localScan) (int, []uint32, *objNames) {
	if scan == nil {
		scan = newLocalScan(t.Stacks, t.Header.GOROOT)
		for i := range t.Events {
			scan.observe(i, &t.Events[i])
		}
	}
	scan.sharedLives(t)
	lifeOwner, o, lives := scan.lifeOwner, scan.o, scan.lives
	local := func(e *Event) bool {
		if e.Addr >= lifeBase {
			l, w0 := lifeWord(e.Addr)
			if v := lifeOwner[l]; v != multiOwner {
				return true // the life is e.G's own, or handed over by go statements (local_handoff.go)
			}
			_, w1 := lifeWord(e.Addr + uint64(max(e.Size, 1)) - 1)
			if ws := lives.words(l, w0, w1); ws != nil {
				return ownedWords(ws, uint32(e.G))
			}
		}
		return o.local(uint32(e.G), e.Addr, e.Size)
	}
	drop := func(i int, e *Event) bool {
		return e.Op.IsAccess() && local(e) && !scan.isLast(i, e.G)
	}
	if twoCores(len(t.Events)) {
		var r *objNames
		if b != nil {
			r = newObjNames(b)
		}
		set, left, perG := dropSet(t.Events, drop, r) // local_compact.go
		left, rp = compactBySet(t, rp, set, left, perG)
		return left, rp, r
	}
	left, rp, _ := compactEvents(t, rp, drop, nil)
	return left, rp, nil
}

// shrinkEvents gives back the pages of t's event table, and of rp, a value
// per event, that compaction emptied; touched is how many events the table
// held before. Those pages hold nothing the analysis reads, yet would
// count for as long as it holds the trace, which is its whole run (tens of
// megabytes of a channel stress test at its peak: bench/RESULTS.md).
// Where Linux can take the
// pages back (discard), the tables keep their arrays, capped at their
// length, and the pages past it, the room never written included, are
// given back and counted as such by seer's memory limit (memlimit.go);
// elsewhere they are copied to tables of their length if an
// eighth or more was left out. A copy holds the events twice for a
// moment, which at the end of that test's conversion was more than the
// analysis's peak.
func shrinkEvents(t *Trace, rp []uint32, touched int) []uint32 {
	n := len(t.Events)
	// The room past touched too: reserved (Builder.Grow) and never
	// written, its pages may still be held if the runtime zeroed them.
	if ev := t.Events[n:cap(t.Events)]; len(ev) > 0 && giveBack(ev) { // memlimit.go
		t.Events = t.Events[:n:n]
		if len(rp) < cap(rp) {
			giveBack(rp[len(rp):cap(rp)])
			rp = rp[:len(rp):len(rp)]
		}
		return rp
	}
	if touched <= n || touched-n < touched/8 {
		return rp
	}
	t.Events = slices.Clone(t.Events)
	if rp != nil {
		rp = slices.Clone(rp)
	}
	return rp
}

// isLast reports whether event i is goroutine g's last event or its last
// with a user frame, which compactLocal (and settle) keep whatever they
// are.
func (s *localScan) isLast(i int, g GoID) bool {
	return 2*int(g)+1 < len(s.last) && (s.last[2*g] == int32(i) || s.last[2*g+1] == int32(i))
}

// compactEvents leaves out the events of t that drop names, counting them
// in t.Local, keeps the others in order, and renumbers what names events:
// a receive's send (Peer, never left out), Values, and rp, a value per
// event (the replay positions) compacted alike. The tables keep their
// arrays (see shrinkEvents). It returns how many events it left out, rp,
// and each event's new index (-1: left out), in idx if it is long enough.
func compactEvents(t *Trace, rp []uint32, drop func(i int, e *Event) bool, idx []int32) (int, []uint32, []int32) {
	n := len(t.Events)
	if cap(idx) < n {
		idx = make([]int32, n)
	}
	newIndex := idx[:n]
	for len(t.Local) < len(t.Goroutines) {
		t.Local = append(t.Local, 0)
	}
	kept, keptRP := 0, 0
	for i := 0; i < n; i++ {
		e := &t.Events[i] // not a copy: drop's argument would escape
		if drop(i, e) {
			newIndex[i] = -1
			t.Local[e.G]++
			continue
		}
		newIndex[i] = int32(kept)
		t.Events[kept] = *e
		if i < len(rp) {
			rp[kept] = rp[i]
			keptRP++
		}
		kept++
	}
	left := n - kept
	if left == 0 {
		return 0, rp, newIndex
	}
	t.Events = t.Events[:kept]
	if rp != nil {
		rp = rp[:keptRP]
	}
	for i := range t.Events {
		if e := &t.Events[i]; e.Op == OpRecv && e.Peer >= 0 && int(e.Peer) < n {
			e.Peer = newIndex[e.Peer]
		}
	}
	vals := t.Values[:0]
	for _, v := range t.Values {
		if k := newIndex[v.Event]; k >= 0 {
			v.Event = int(k)
			vals = append(vals, v)
		}
	}
	t.Values = vals
	return left, rp, newIndex
}

// compactObjects makes the heap objects that events name (lifeObj) and
// drops the objects no event names, numbering the others anew in order of
// first appearance, as conversion numbers them.
func (b *Builder) compactObjects() {
	t := b.t
	r := newObjNames(b)
	// First how many objects the events name, so that the table is made
	// once at its size: grown by append, it was most of this pass on a
	// channel stress test (bench/RESULTS.md).
	seen := r.seen()
	for i := range t.Events {
		r.mark(seen, t.Events[i].Obj)
	}
	r.start(seen)
	r.renameAll()
}
