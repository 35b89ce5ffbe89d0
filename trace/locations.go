// This file implements the address model that seer's analyses
// (predict's pre-pass and relevance closure) and its independent witness
// checker (predict/witness) share, and nothing else: grouping the memory accesses of a trace into
// locations (maximal runs of overlapping byte ranges), and the last
// writer of every byte of a location. It decides no feasibility question.
//
// A recorded test touches millions of addresses (Go's race suite does:
// bench/RESULTS.md) and copies of megabytes, so the grouping uses an
// open-addressing table instead of Go maps (and, for the bytes of small
// heap lives, a dense array by life: locations_lives.go), and the last
// writers are kept per page: a page that one write covered entirely is one
// number, so that a 16 MB copy costs one step per page rather than per
// byte.

package trace

import (
	"math"
	"slices"
)

// Span is a location: the bytes [Lo, Hi).
type Span struct{ Lo, Hi uint64 }

// addrTable is an open-addressing hash table from addresses to uint32.
type addrTable struct {
	keys  []uint64 // address+1; 0 is empty
	vals  []uint32
	n     int
	shift uint // 64 - log2(len(keys))
}

func newAddrTable() *addrTable {
	const bits = 10
	return &addrTable{keys: make([]uint64, 1<<bits), vals: make([]uint32, 1<<bits), shift: 64 - bits}
}

func (t *addrTable) slot(a uint64) int {
	mask := uint64(len(t.keys) - 1)
	k := a + 1
	h := (k * 0x9E3779B97F4A7C15) >> t.shift // Fibonacci hashing
	for {
		h &= mask
		if t.keys[h] == k || t.keys[h] == 0 {
			return int(h)
		}
		h++
	}
}

// get returns the value of a, or false.
func (t *addrTable) get(a uint64) (uint32, bool) {
	s := t.slot(a)
	return t.vals[s], t.keys[s] != 0
}

// ref returns a pointer to a's value, inserting a zero value if absent.
func (t *addrTable) ref(a uint64) *uint32 {
	if 4*(t.n+1) > 3*len(t.keys) {
		old, oldv := t.keys, t.vals
		t.keys, t.vals = make([]uint64, 2*len(old)), make([]uint32, 2*len(old))
		t.shift--
		for i, k := range old {
			if k != 0 {
				s := t.slot(k - 1)
				t.keys[s], t.vals[s] = k, oldv[i]
			}
		}
	}
	s := t.slot(a)
	if t.keys[s] == 0 {
		t.keys[s] = a + 1
		t.n++
	}
	return &t.vals[s]
}

// IsMem reports whether e accesses memory: a plain or atomic access of
// at least one byte, whose bytes do not wrap around the address space
// (no program makes one; a damaged or crafted trace may, and the tables
// here keep address+1 and end addresses).
func (e *Event) IsMem() bool {
	return e.Size > 0 && e.Addr <= math.MaxUint64-uint64(e.Size) && (e.Op.IsAccess() || e.Op.IsAtomic())
}

// GroupAccesses returns, for every event, the location of the bytes it
// accesses (-1 for events that are not memory accesses, see IsMem), and
// the locations sorted by address. Two accesses are in one location iff
// their byte ranges are connected by a chain of overlapping accesses.
func GroupAccesses(ev []Event) (loc []int32, spans []Span) {
	loc = make([]int32, len(ev))
	// A small direct-mapped cache in front of the table: tests hit the
	// same addresses again and again.
	const cacheSize = 1 << 12
	var ckey [cacheSize]uint64 // address+1
	var cval [cacheSize]uint32
	tbl := newAddrTable()
	lives := newGroupLives(ev) // small heap lives: locations_lives.go
	for i := range ev {
		e := &ev[i]
		if !e.IsMem() || lives.note(e.Addr, e.Size) {
			continue
		}
		h := (e.Addr >> 3) & (cacheSize - 1)
		if ckey[h] == e.Addr+1 && e.Size <= cval[h] {
			continue
		}
		v := tbl.ref(e.Addr)
		if e.Size > *v {
			*v = e.Size
		}
		ckey[h], cval[h] = e.Addr+1, *v
	}
	addrs := make([]uint64, 0, tbl.n)
	for _, k := range tbl.keys {
		if k != 0 {
			addrs = append(addrs, k-1)
		}
	}
	slices.Sort(addrs)
	// At most one span an address: sized once, the millions of spans of
	// Go's race suite are not copied by append's doublings.
	spans = make([]Span, 0, len(addrs)+lives.starts())
	nextLife := 0 // the dense lives go in between by life number
	for _, a := range addrs {
		if a >= lifeBase {
			l, _ := lifeByte(a)
			spans = lives.spansTo(spans, &nextLife, int(min(l, math.MaxInt32)))
		}
		v := tbl.ref(a)
		end := a + uint64(*v)
		if k := len(spans); k > 0 && a < spans[k-1].Hi {
			spans[k-1].Hi = max(spans[k-1].Hi, end)
		} else {
			spans = append(spans, Span{a, end})
		}
		*v = uint32(len(spans) - 1)
	}
	spans = lives.spansTo(spans, &nextLife, math.MaxInt32)
	addrs = nil
	ckey = [cacheSize]uint64{}
	for i := range ev {
		e := &ev[i]
		if !e.IsMem() {
			loc[i] = -1
			continue
		}
		if l, ok := lives.loc(e.Addr); ok {
			loc[i] = l
			continue
		}
		h := (e.Addr >> 3) & (cacheSize - 1)
		if ckey[h] != e.Addr+1 {
			v, _ := tbl.get(e.Addr)
			ckey[h], cval[h] = e.Addr+1, v
		}
		loc[i] = int32(cval[h])
	}
	return loc, spans
}

// LastAccesses returns, for each of n locations, the index of the last
// event that loc (as GroupAccesses returns it) puts in it; -1 if none.
// A pass in trace order can drop what it holds of a location after that
// event (WriterMap.Forget): heap objects come and go, and a run makes
// millions of them, few of them live at once.
func LastAccesses(loc []int32, n int) []int32 {
	last := make([]int32, n)
	for i := range last {
		last[i] = -1
	}
	for i, l := range loc {
		if l >= 0 {
			last[l] = int32(i)
		}
	}
	return last
}

// pageSize is the granularity of WriterMap.
const pageSize = 256

// WriterMap holds the last writer of every byte of the locations it
// tracks (-1: the initial value).
//
// A pass tracks each location from its first access to its last, and a
// channel stress test has a location a message, 1.28M of them: the
// tracked locations are a slice by location number, not a map, and a
// forgotten location of one page keeps its storage (the page and its
// bytes) for the next one tracked, instead of three allocations a
// location (bench/RESULTS.md, "stress-chan-3m: GroupAccesses by life").
type WriterMap struct {
	locs []*wloc // by location; nil: not tracked
	free []*wloc // forgotten small locations, for Track
}

type wloc struct {
	Span
	pages []wpage
}

// wpage is the last writers of up to pageSize bytes: w for all of them if
// d is empty, else d per byte (a reused page keeps d's capacity).
type wpage struct {
	w int32
	d []int32
}

// freeLocs bounds the forgotten locations Forget keeps for Track: of one
// page each (most locations; a larger one's pages are not kept).
const freeLocs = 1 << 12

// NewWriterMap returns a map that tracks no location.
func NewWriterMap() *WriterMap { return &WriterMap{} }

// Track makes location l, the bytes of s, tracked (all bytes initial).
func (m *WriterMap) Track(l int32, s Span) {
	if m.get(l) != nil {
		return
	}
	if l < 0 {
		panic("trace: WriterMap.Track of a negative location")
	}
	if n := int(l) + 1; n > len(m.locs) {
		if n > cap(m.locs) { // (past len, the slice's elements are nil)
			m.locs = append(m.locs[:cap(m.locs)], make([]*wloc, max(n, 2*cap(m.locs), 64)-cap(m.locs))...)
		}
		m.locs = m.locs[:n]
	}
	n := int((s.Hi - s.Lo + pageSize - 1) / pageSize)
	var x *wloc
	if k := len(m.free); k > 0 && n == 1 {
		x, m.free = m.free[k-1], m.free[:k-1]
		x.Span = s
		x.pages[0].w, x.pages[0].d = -1, x.pages[0].d[:0]
	} else {
		x = &wloc{s, make([]wpage, n)}
		for i := range x.pages {
			x.pages[i].w = -1
		}
	}
	m.locs[l] = x
}

// Forget stops tracking location l. A pass that tracks each location
// from its first access and forgets it after its last (LastAccesses)
// holds the locations in use, not every one of the run: a channel stress
// test's locations, byte-written, took hundreds of megabytes tracked at
// once (bench/RESULTS.md, "Figures once in comments").
func (m *WriterMap) Forget(l int32) {
	x := m.get(l)
	if x == nil {
		return
	}
	m.locs[l] = nil
	if len(x.pages) == 1 && len(m.free) < freeLocs {
		m.free = append(m.free, x)
	}
}

// get returns tracked location l, or nil.
func (m *WriterMap) get(l int32) *wloc {
	if l < 0 || int(l) >= len(m.locs) {
		return nil
	}
	return m.locs[l]
}

// Tracked reports whether location l is tracked.
func (m *WriterMap) Tracked(l int32) bool { return m.get(l) != nil }

// Write records w as the writer of [a, a+size) in tracked location l.
func (m *WriterMap) Write(l int32, a uint64, size uint32, w int32) {
	x := m.get(l)
	end := a + uint64(size)
	for k := int((a - x.Lo) / pageSize); k <= int((end-1-x.Lo)/pageSize); k++ {
		p := &x.pages[k]
		plo := x.Lo + uint64(k)*pageSize
		phi := min(plo+pageSize, x.Hi)
		if a <= plo && end >= phi {
			p.w, p.d = w, p.d[:0]
			if len(x.pages) > 1 {
				// Only a location of one page keeps d's capacity, for
				// its next partial write and for Track once forgotten
				// (Forget): a channel's message is written whole, then
				// field by field, and each one made d anew. A larger
				// one's pages let theirs go, as Forget does.
				p.d = nil
			}
			continue
		}
		lo, hi := max(a, plo)-plo, min(end, phi)-plo
		if len(p.d) == 0 {
			if n := int(phi - plo); cap(p.d) >= n {
				p.d = p.d[:n]
			} else {
				p.d = make([]int32, n)
			}
			fill(p.d[:lo], p.w) // the bytes around the write keep the page's writer
			fill(p.d[hi:], p.w)
		}
		fill(p.d[lo:hi], w)
	}
}

// fill sets every element of d to w.
func fill(d []int32, w int32) {
	for i := range d {
		d[i] = w
	}
}

// Read calls f for the maximal runs [lo, hi) of [a, a+size) in tracked
// location l whose bytes have one last writer w, in address order.
func (m *WriterMap) Read(l int32, a uint64, size uint32, f func(lo, hi uint64, w int32)) {
	x := m.get(l)
	end := a + uint64(size)
	runLo, runW := a, int32(-2)
	emit := func(b uint64, w int32) { // byte b onwards has writer w
		if w != runW {
			if runW != -2 {
				f(runLo, b, runW)
			}
			runLo, runW = b, w
		}
	}
	for k := int((a - x.Lo) / pageSize); k <= int((end-1-x.Lo)/pageSize); k++ {
		p := &x.pages[k]
		plo := x.Lo + uint64(k)*pageSize
		phi := min(plo+pageSize, x.Hi)
		lo, hi := max(a, plo), min(end, phi)
		if len(p.d) == 0 {
			emit(lo, p.w)
			continue
		}
		for b := lo; b < hi; b++ {
			emit(b, p.d[b-plo])
		}
	}
	if runW != -2 {
		f(runLo, end, runW)
	}
}
