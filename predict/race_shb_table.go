// This file implements the SHB layer's table of latest accesses
// (race_shb.go's shbLayer): for every location in use, each goroutine's
// latest access at each source site, of each kind and byte range, with
// the positions of all of them.
//
// A long run keeps about a million locations in use at once: a heap
// address serves object after object, and its location lives until the
// last of them is accessed. Held as slices of slices, one per location,
// group and entry, the table was pointers that the garbage collector
// marked at every cycle: on a trace of goroutines that all exchange
// messages, the heap sat at its limit and the collector took much of
// seer predict's CPU time. Here a location's groups and a group's entries
// are each a run in one of two pools that hold no pointers, which the
// collector does not scan; an entry is 16 bytes (it was 56, and a slice
// of its own). A run that outgrows its room moves to the end of its
// pool, and a pool a quarter of which is left-behind room is compacted:
// a pool then holds at most four thirds of its runs' room, which is at
// most twice what they hold (compacting at a half instead peaked higher
// and took longer, paired).
// Runs keep what they hold together, as the slices did: the pass looks at
// a location's nodes at every access to it (race_shb_fold.go keeps them
// few: groups, and batches and bags of groups). Only the entries with
// more than one access have a slice, of their positions.

package predict

import (
	"math/bits"
	"slices"

	"github.com/seer-tools/seer/trace"
)

// span is a run in a pool: pool[off:off+n], with room up to off+cap.
type span struct{ off, n, cap int32 }

// push appends x to run r of *pool, moving the run to the end of the
// pool with twice the room if it is full. It returns the room it left
// behind.
func push[T any](pool *[]T, r *span, x T) (dead int) {
	if r.n == r.cap {
		c := max(2*r.cap, 1)
		p := slices.Grow(*pool, int(c))
		off := int32(len(p))
		p = append(p, p[r.off:r.off+r.n]...)
		*pool = p[:int(off)+int(c)]
		dead = int(r.cap)
		r.off, r.cap = off, c
	}
	(*pool)[r.off+r.n] = x
	r.n++
	return dead
}

// shbEntry is the latest access of one goroutine, at one source site, of
// one kind and byte range, to a location: FastTrack's last-access epoch
// (Flanagan and Freund, PLDI 2009), one per site, so that every pair of
// sites is found, not only the first race of each location. Its site,
// address and size are those of event last. If an access a of goroutine h
// races with a later access e, so does the latest access of h at a's site
// before e: it comes after a in h, so e's clock does not know it either;
// and it is the closest.
type shbEntry struct {
	last, pos int32 // the latest access: trace index, position in its goroutine
	// The positions of all its accesses, for counting pairs, are
	// t.poss[poss]; while there is one, it is pos, and poss is -1.
	poss          int32
	write, atomic bool
	// fp is the top 16 bits of the entry's key (shbKey), in what was
	// padding: a group's scan compares it before it reads the event of
	// an entry (same), a random read of the event table.
	fp uint16
}

// shbGroup holds a goroutine's entries for one location.
type shbGroup struct {
	g      int32
	maxPos int32 // the largest pos among its entries
	ents   span  // in the table's ents pool, in the order they were made
	// Which words its entries touch, by kind: a group that cannot
	// conflict with an access is passed over before its goroutine's clock
	// entry is looked up (a WaitGroup's word, which every goroutine
	// touches with atomics alone, costs nothing; nor does a pool's
	// configuration, which every task reads, to a task's atomic add to
	// the pool's counter beside it).
	masks shbMasks
	// indexed: its entries are in the table's index. A goroutine that
	// walks a large allocation (a map's buckets) makes an entry per
	// address and site, and each access looked for its own among all of
	// them, a large share of the layer's time on x/sync's syncmap test.
	indexed bool
	// closed: the group holds its goroutine's last access to the
	// location, so that no later access joins it and it may move into a
	// batch (race_shb_fold.go).
	closed bool
	// batch: the node is not a goroutine's group but a batch of nodes
	// that all happen before one access of the location, its guard:
	// event maxPos of goroutine g, or, if g is -1, a bag of nodes with
	// the same masks that no access may pass over for its clock. Its ents
	// are then its nodes, a run in the groups pool, and its masks the
	// union of theirs.
	batch bool
	// idle counts the accesses of other goroutines that passed over the
	// group at its location's top since its own goroutine's latest
	// access, up to 255 (race_shb_open.go: which open groups to bag). It
	// sits in what was padding.
	idle uint8
	seq  int32 // the order the groups of a location were made in (not for batches)
}

// shbMasks summarise the words of a location that a node's entries touch,
// by kind of access: bit k stands for the 8-byte words whose index is k
// modulo 32. Two accesses whose bytes overlap share a word, so that a
// node none of whose masks meets an access's where the access's kind
// looks cannot hold an entry that conflicts with it.
type shbMasks struct {
	any, write, plain, plainWrite uint32
}

// wordMask returns the bits of the words that size bytes at addr touch.
func wordMask(addr uint64, size uint32) uint32 {
	if size == 0 {
		return 0 // overlaps nothing
	}
	lo, hi := addr>>3, (addr+uint64(size)-1)>>3
	if hi-lo >= 31 {
		return ^uint32(0)
	}
	return bits.RotateLeft32(uint32(1)<<(hi-lo+1)-1, int(lo&31))
}

// add adds the words mask of an access of that kind.
func (m *shbMasks) add(mask uint32, write, atomic bool) {
	m.any |= mask
	if write {
		m.write |= mask
	}
	if !atomic {
		m.plain |= mask
		if write {
			m.plainWrite |= mask
		}
	}
}

// or adds the masks of o.
func (m *shbMasks) or(o shbMasks) {
	m.any |= o.any
	m.write |= o.write
	m.plain |= o.plain
	m.plainWrite |= o.plainWrite
}

// conflicts reports whether an entry under m may conflict with an access
// of that kind to the words of mask: overlap, one of them writes, and
// not both are atomic.
func (m shbMasks) conflicts(mask uint32, write, atomic bool) bool {
	switch {
	case write && !atomic:
		return m.any&mask != 0
	case write:
		return m.plain&mask != 0
	case !atomic:
		return m.write&mask != 0
	default:
		return m.plainWrite&mask != 0
	}
}

// shbTable is the table of every location's groups.
type shbTable struct {
	c      *ctp
	m      *memory
	loc    []span  // per location: its groups, in the groups pool
	last   []int32 // per location: its last access (see retire)
	groups []shbGroup
	ents   []shbEntry
	// The positions of the entries with more than one, and the places
	// in poss that dropped entries left free. They are slices of their
	// own, not runs of a pool: an entry of a location that a loop hits
	// millions of times holds millions, and a pool's runs would be
	// copied as they grow and leave room behind them. A slice's backing
	// array holds no pointer, so that the collector scans a header for
	// each, and entries of one access (most) have none.
	poss     [][]int32
	freePoss []int32
	// The room that runs left behind in each pool.
	deadG, deadE int
	// index maps the key of an entry of an indexed group (shbKey) to its
	// place in its group. Keys of two entries may collide: an entry is
	// taken for an access's only once they are compared (same), and a
	// miss makes a new entry, so that a collision costs at most an
	// entry made twice, each holding some of the accesses. The layer
	// then counts the same pairs, and finds the same closest one.
	index map[uint64]int32
	// lastOf marks each access that is its goroutine's last (shared)
	// access to its location: its group closes there.
	lastOf bitset
	seq    int32 // groups made so far
	// The open bags (race_shb_open.go): which locations have them (a
	// bit, not a word, per location: a run may use millions), their
	// bags, and where each bagged group is, by location and goroutine.
	open   bitset
	opens  map[int32][]shbOpenBag
	openAt map[uint64]shbOpenSlot
	runs   shbRuns // the compactions' scratch
}

// shbIndexAt is the number of entries from which a group indexes them,
// and shbCompactAt the room left behind from which a pool may be
// compacted (variables for the tests, which compare indexing always and
// never, and compact at every chance and never). Below shbIndexAt a group
// is scanned, its entries' fingerprints first: up to a kilobyte read in
// order, against a lookup in an index of up to a million keys, which
// misses the caches (bench/RESULTS.md, "pond: the SHB table's groups
// scanned by fingerprint").
var (
	shbIndexAt   = 64
	shbCompactAt = 1 << 16
)

func newSHBTable(c *ctp, m *memory) *shbTable {
	return &shbTable{c: c, m: m, loc: make([]span, len(m.locs)), last: trace.LastAccesses(m.loc, len(m.locs)),
		index: make(map[uint64]int32), lastOf: lastPerGoroutine(c, m),
		open: newBitset(len(m.locs)), opens: make(map[int32][]shbOpenBag), openAt: make(map[uint64]shbOpenSlot)}
}

// lastPerGoroutine marks every goroutine's last shared access to each
// location it accesses: one backward walk of each goroutine, with a
// stamp per location saying which goroutine has been seen at it.
func lastPerGoroutine(c *ctp, m *memory) bitset {
	last := newBitset(len(c.ev))
	seen := make([]int32, len(m.locs))
	for g, evs := range c.byG {
		for k := len(evs) - 1; k >= 0; k-- {
			if i := evs[k]; m.shared(i) && seen[m.loc[i]] != int32(g)+1 {
				seen[m.loc[i]] = int32(g) + 1
				last.set(i)
			}
		}
	}
	return last
}

// shbKey hashes what makes two accesses to a location one entry: the
// location, the goroutine, the site, the kind, the address and the size.
// (A 64-bit key hashes several times faster than the fields would.)
func shbKey(l, g, site int32, write, atomic bool, addr uint64, size uint32) uint64 {
	h := addr*0x9e3779b97f4a7c15 ^ uint64(uint32(site))<<32 ^ uint64(size)<<2 ^
		(uint64(uint32(l))<<32|uint64(uint32(g)))*0xc2b2ae3d27d4eb4f
	if write {
		h ^= 1
	}
	if atomic {
		h ^= 2
	}
	return h
}

// keyOf is the key of entry a of location l.
func (t *shbTable) keyOf(l int32, a *shbEntry) uint64 {
	e := &t.c.ev[a.last]
	return shbKey(l, int32(e.G), t.c.site(a.last), a.write, a.atomic, e.Addr, e.Size)
}

// same reports whether a is the entry of access i of its group, at site.
func (t *shbTable) same(a *shbEntry, i, site int32, write, atomic bool) bool {
	if a.write != write || a.atomic != atomic {
		return false
	}
	x, e := &t.c.ev[a.last], &t.c.ev[i]
	return x.Addr == e.Addr && x.Size == e.Size && t.c.site(a.last) == site
}

// groupsOf returns location l's groups.
func (t *shbTable) groupsOf(l int32) []shbGroup {
	s := t.loc[l]
	return t.groups[s.off : s.off+s.n]
}

// entries returns group gr's entries.
func (t *shbTable) entries(gr *shbGroup) []shbEntry {
	return t.ents[gr.ents.off : gr.ents.off+gr.ents.n]
}

// after returns how many of entry a's accesses lie after position known
// of its goroutine.
func (t *shbTable) after(a *shbEntry, known int32) int64 {
	if a.poss < 0 {
		if a.pos > known {
			return 1
		}
		return 0
	}
	ps := t.poss[a.poss]
	j, _ := slices.BinarySearch(ps, known+1)
	return int64(len(ps) - j)
}

// record records access i of goroutine g to location l (at position pos
// of g, at site) in g's group, made if need be, and closes the group if
// i is g's last access to l. own is the group's place among l's nodes
// if the caller found it, else -1.
func (t *shbTable) record(l, g int32, own int, i, pos, site int32, write, atomic bool) {
	t.compact()
	if own < 0 {
		t.deadG += push(&t.groups, &t.loc[l], shbGroup{g: g, seq: t.seq})
		t.seq++
		own = int(t.loc[l].n - 1)
	}
	gr := &t.groups[t.loc[l].off+int32(own)]
	gr.maxPos = pos
	gr.idle = 0
	gr.closed = t.lastOf.has(i)
	e := &t.c.ev[i]
	gr.masks.add(wordMask(e.Addr, e.Size), write, atomic)
	key := shbKey(l, g, site, write, atomic, e.Addr, e.Size)
	fp := uint16(key >> 48)
	if gr.indexed {
		if k, ok := t.index[key]; ok {
			if a := &t.entries(gr)[k]; t.same(a, i, site, write, atomic) {
				t.again(a, i, pos)
				return
			}
		}
	} else {
		ents := t.entries(gr)
		for k := range ents {
			if a := &ents[k]; a.fp == fp && t.same(a, i, site, write, atomic) {
				t.again(a, i, pos)
				return
			}
		}
	}
	t.deadE += push(&t.ents, &gr.ents, shbEntry{last: i, pos: pos, poss: -1, write: write, atomic: atomic, fp: fp})
	switch k := gr.ents.n - 1; {
	case gr.indexed:
		t.index[key] = k
	case gr.ents.n >= int32(shbIndexAt):
		gr.indexed = true
		ents := t.entries(gr)
		for k := range ents {
			t.index[t.keyOf(l, &ents[k])] = int32(k)
		}
	}
}

// again records a later access of entry a, event i at position pos.
func (t *shbTable) again(a *shbEntry, i, pos int32) {
	if a.poss < 0 {
		if n := len(t.freePoss); n > 0 {
			a.poss = t.freePoss[n-1]
			t.freePoss = t.freePoss[:n-1]
		} else {
			a.poss = int32(len(t.poss))
			t.poss = append(t.poss, nil)
		}
		t.poss[a.poss] = []int32{a.pos, pos}
	} else {
		t.poss[a.poss] = append(t.poss[a.poss], pos)
	}
	a.last, a.pos = i, pos
}

// retire drops location l's groups if access i is its last: nothing
// consults them after it, so that the table follows the locations in use
// (heap objects come and go), not every location of the run.
func (t *shbTable) retire(l, i int32) {
	if t.last[l] == i {
		t.drop(l)
	}
}

// drop frees location l's groups, entries and positions.
func (t *shbTable) drop(l int32) {
	t.dropRun(l, t.loc[l])
	t.loc[l] = span{}
	t.dropOpen(l)
}

// dropRun frees the nodes of run r of location l's groups and batches.
func (t *shbTable) dropRun(l int32, r span) {
	for k := r.off; k < r.off+r.n; k++ {
		gr := &t.groups[k]
		if gr.batch {
			t.dropRun(l, gr.ents)
			continue
		}
		t.dropEntries(l, gr)
	}
	t.deadG += int(r.cap)
}

// dropEntries frees group gr's entries, their index keys and positions.
func (t *shbTable) dropEntries(l int32, gr *shbGroup) {
	for j := range t.entries(gr) {
		a := &t.entries(gr)[j]
		if gr.indexed {
			if key := t.keyOf(l, a); t.index[key] == int32(j) {
				delete(t.index, key)
			}
		}
		if a.poss >= 0 {
			t.poss[a.poss] = nil
			t.freePoss = append(t.freePoss, a.poss)
		}
	}
	t.deadE += int(gr.ents.cap)
}

// compactDue reports whether a pool of length n and capacity c, dead of
// it room that runs left behind, is to be compacted, and the capacity of
// the new pool: when a quarter of it is dead, the old length and an
// eighth; when an eighth is and its capacity is nearly spent, so that the
// next runs' moves would regrow it (growslice, which copies the dead room
// too, and the compaction after it copies what lives again), the old
// length and a quarter, as growslice would have made it.
func compactDue(n, c, dead int) (bool, int) {
	switch {
	case dead <= shbCompactAt:
		return false, 0
	case 4*dead > n:
		return true, n + n/8
	case 8*dead > n && c-n < n/16:
		return true, n + n/4
	}
	return false, 0
}

// compact compacts each pool that is due (compactDue): its runs in use
// move to its start, each with its room, and the room runs left behind
// between them goes. A pool whose capacity has the room compactDue asks
// for is compacted in place, its runs moved down in the order of their
// offsets (the sliding compaction of a mark-compact collector: a run
// moves only onto room below it that is dead or already moved from), so
// that its pages, already faulted in, serve again: a new pool at every
// compaction was the SHB pass's largest allocation, each of its pages
// faulted in and zeroed anew. Otherwise the runs are copied into a new
// pool of more than that room (compactRuns): a pool that had to grow before its next compaction
// copied all it held, dead room too (bench/RESULTS.md, branches shb9 and
// pondshb). Runs move, so no one may hold an entry or a group across a
// call.
func (t *shbTable) compact() {
	if due, room := compactDue(len(t.ents), cap(t.ents), t.deadE); due {
		s := &t.runs
		for l := range t.opens {
			s.opens = append(s.opens, l)
		}
		t.walkEnts(s.collect)
		t.ents, t.deadE = compactRuns(t.ents, s, room), 0
		t.walkEnts(s.update)
		s.reset()
	}
	if due, room := compactDue(len(t.groups), cap(t.groups), t.deadG); due {
		s := &t.runs
		t.walkGroups(s.collect)
		t.groups, t.deadG = compactRuns(t.groups, s, room), 0
		t.walkGroups(s.update)
		s.reset()
	}
}

// walkEnts calls visit on the span of every run in the entries pool:
// each group's, at its location or in a batch or, for the locations in
// t.runs.opens, in an open bag.
func (t *shbTable) walkEnts(visit func(r *span)) {
	var walk func(r span)
	walk = func(r span) {
		for k := r.off; k < r.off+r.n; k++ {
			if gr := &t.groups[k]; gr.batch {
				walk(gr.ents)
			} else {
				visit(&gr.ents)
			}
		}
	}
	for l := range t.loc {
		walk(t.loc[l])
	}
	for _, l := range t.runs.opens {
		bags := t.opens[l]
		for k := range bags {
			for j := range bags[k].groups {
				visit(&bags[k].groups[j].ents)
			}
		}
	}
}

// walkGroups calls visit on the span of every run in the groups pool:
// each location's, then below it its batches', looked for in the run at
// its offset once visit returns (visit may move it).
func (t *shbTable) walkGroups(visit func(r *span)) {
	var walk func(r *span)
	walk = func(r *span) {
		visit(r)
		for k := r.off; k < r.off+r.n; k++ {
			if gr := &t.groups[k]; gr.batch {
				walk(&gr.ents)
			}
		}
	}
	for l := range t.loc {
		walk(&t.loc[l])
	}
}

// shbRuns is a compaction's list of a pool's runs in use, kept from one
// compaction to the next so that it is not made anew each time: runs
// holds their spans in the order a walk visits them (collect), keys their
// offsets, each with its run's place in runs, to sort by, and next the
// place of the next span to update. opens lists the locations with open
// bags, for the walks of the entries pool to visit in one order (a map's
// is another at each range).
type shbRuns struct {
	runs  []span
	keys  []uint64
	next  int
	opens []int32
}

// collect lists run r (a run without room has nothing to move).
func (s *shbRuns) collect(r *span) {
	if r.cap == 0 {
		return
	}
	s.keys = append(s.keys, uint64(r.off)<<32|uint64(len(s.runs)))
	s.runs = append(s.runs, *r)
}

// update gives run r its new offset: visited in the order collect was,
// it is the next listed run.
func (s *shbRuns) update(r *span) {
	if r.cap == 0 {
		return
	}
	r.off = s.runs[s.next].off
	s.next++
}

// reset empties s for the next compaction, once every run it listed has
// been updated.
func (s *shbRuns) reset() {
	if s.next != len(s.runs) {
		panic("predict: a compaction updated a different set of runs than it moved")
	}
	s.runs, s.keys, s.next, s.opens = s.runs[:0], s.keys[:0], 0, s.opens[:0]
}

// compactRuns moves the runs s lists, each with its room, to the start of
// pool if it has room's capacity, in the order of their offsets, or else
// into a new pool of more than that room, and returns the compacted pool; s's runs
// hold their new offsets, for update.
func compactRuns[T any](pool []T, s *shbRuns, room int) []T {
	to := pool[:0]
	if cap(pool) >= room {
		// Below each run lie only runs moved already and dead room,
		// so that the move (a memmove) overwrites nothing in use.
		slices.Sort(s.keys)
	} else {
		// A quarter more than the room: a pool whose runs in use keep
		// growing is then compacted in place at its next compactions
		// too, its array grown geometrically as append's, where one of
		// just the room was outgrown at once, and a new array made at
		// nearly every compaction (bench/RESULTS.md, branch churn).
		// The room past what the runs fill is not touched until used.
		to = make([]T, 0, room+room/4)
	}
	for _, k := range s.keys {
		r := &s.runs[uint32(k)]
		off := int32(len(to))
		to = append(to, pool[r.off:r.off+r.cap]...)
		r.off = off
	}
	return to
}
