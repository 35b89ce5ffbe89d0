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
// Runs keep what they hold together, as the slices did: the pass scans a
// location's groups at every access to it, and a location that every
// goroutine touches has thousands. Only the entries with more than one
// access have a slice, of their positions.

package predict

import (
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
}

// shbGroup holds a goroutine's entries for one location.
type shbGroup struct {
	g      int32
	maxPos int32 // the largest pos among its entries
	ents   span  // in the table's ents pool, in the order they were made
	// Whether any of its entries writes, and any is plain (not atomic):
	// a group that cannot conflict with an access is passed over before
	// its goroutine's clock entry is looked up (a WaitGroup's word, which
	// every goroutine touches with atomics alone, costs nothing).
	write, plain bool
	// indexed: its entries are in the table's index. A goroutine that
	// walks a large allocation (a map's buckets) makes an entry per
	// address and site, and each access looked for its own among all of
	// them, a large share of the layer's time on x/sync's syncmap test.
	indexed bool
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
}

// shbIndexAt is the number of entries from which a group indexes them,
// and shbCompactAt the room left behind from which a pool may be
// compacted (variables for the tests, which compare indexing always and
// never, and compact at every chance and never).
var (
	shbIndexAt   = 8
	shbCompactAt = 1 << 16
)

func newSHBTable(c *ctp, m *memory) *shbTable {
	return &shbTable{c: c, m: m, loc: make([]span, len(m.locs)), last: trace.LastAccesses(m.loc, len(m.locs)), index: make(map[uint64]int32)}
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
// of g, at site) in g's group, made if need be. own is the group's place
// among l's groups if the caller found it, else -1.
func (t *shbTable) record(l, g int32, own int, i, pos, site int32, write, atomic bool) {
	t.compact()
	if own < 0 {
		t.deadG += push(&t.groups, &t.loc[l], shbGroup{g: g})
		own = int(t.loc[l].n - 1)
	}
	gr := &t.groups[t.loc[l].off+int32(own)]
	gr.maxPos = pos
	gr.write = gr.write || write
	gr.plain = gr.plain || !atomic
	var key uint64
	if gr.indexed {
		e := &t.c.ev[i]
		key = shbKey(l, g, site, write, atomic, e.Addr, e.Size)
		if k, ok := t.index[key]; ok {
			if a := &t.entries(gr)[k]; t.same(a, i, site, write, atomic) {
				t.again(a, i, pos)
				return
			}
		}
	} else {
		ents := t.entries(gr)
		for k := range ents {
			if a := &ents[k]; t.same(a, i, site, write, atomic) {
				t.again(a, i, pos)
				return
			}
		}
	}
	t.deadE += push(&t.ents, &gr.ents, shbEntry{last: i, pos: pos, poss: -1, write: write, atomic: atomic})
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
	for k := range t.groupsOf(l) {
		gr := &t.groupsOf(l)[k]
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
	t.deadG += int(t.loc[l].cap)
	t.loc[l] = span{}
}

// compact copies the runs in use into new pools, for each pool a quarter
// of which is room left behind. Runs move, so no one may hold an entry or a
// group across a call.
func (t *shbTable) compact() {
	if t.deadE > shbCompactAt && 4*t.deadE > len(t.ents) {
		pool := make([]shbEntry, 0, len(t.ents)-t.deadE+len(t.ents)/8)
		for l := range t.loc {
			gs := t.groupsOf(int32(l))
			for k := range gs {
				gr := &gs[k]
				off := int32(len(pool))
				pool = append(pool, t.ents[gr.ents.off:gr.ents.off+gr.ents.cap]...)
				gr.ents.off = off
			}
		}
		t.ents, t.deadE = pool, 0
	}
	if t.deadG > shbCompactAt && 4*t.deadG > len(t.groups) {
		pool := make([]shbGroup, 0, len(t.groups)-t.deadG+len(t.groups)/8)
		for l := range t.loc {
			s := &t.loc[l]
			off := int32(len(pool))
			pool = append(pool, t.groups[s.off:s.off+s.cap]...)
			s.off = off
		}
		t.groups, t.deadG = pool, 0
	}
}
