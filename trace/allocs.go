// This file implements the allocation map of the conversion: which heap
// allocation each address the records touch was in, at that point of the
// run, so that memory the allocator reuses is never mistaken for shared
// (convert.go names each allocation's life apart).
//
// It runs as a stage of its own between merge's decoding and the
// conversion (spool.merge): it applies the allocation records and marks
// every record that locates memory with its allocation (rawEvent.aid,
// astart, aend), so that on two cores the map's upkeep, most of the
// conversion's time on malloc-heavy tests, overlaps the rest.

package trace

const pageShift = 13

// alloc is one allocation: [start, end), numbered from 1 in the order of
// the allocation records (id).
type alloc struct {
	start, end uint64
	id         uint32
}

// allocMap: each 8 KiB page holds the allocations that overlap it, sorted
// by start address (allocations do not overlap one another: a new one
// ends every life it overlaps). Allocations over 64 KiB are kept apart,
// so no allocation is listed in more than nine pages. Lists hold values,
// not pointers: an allocation is never changed once made, and lists
// without pointers cost the collector nothing and move without write
// barriers.
type allocMap struct {
	pages pageLists
	large []alloc
	n     uint32   // allocations so far
	hit   alloc    // the allocation find found last in a page's list, while no malloc or free overlaps it (unhit; id 0: none)
	hit2  alloc    // the one it found before hit, while it lasts
	cut   []alloc  // free's: the allocations it ends that reach past its pages
	ended []uint32 // the allocations the current record ended (mark)
}

func newAllocMap() *allocMap { return &allocMap{pages: pageLists{leaves: map[uint64]*pageLeaf{}}} }

// pageLists holds each page's list of allocations in a two-level table:
// leaves of 1<<16 pages (512 MiB of address space), found by a map but
// for the last one used. A test's heap spans a few of them, and hashing
// every page number in a map was a third of the allocation stage's time.
type pageLists struct {
	leaves map[uint64]*pageLeaf
	lastK  uint64
	last   *pageLeaf
}

const pageLeafBits = 16

type pageLeaf struct {
	lists [1 << pageLeafBits][]alloc
	// hint is, per page, the index in its list of the allocation find
	// found there last (inPage).
	hint [1 << pageLeafBits]uint16
}

// list returns the list of page pg, or nil when the page has none and
// make is false.
func (p *pageLists) list(pg uint64, make bool) *[]alloc {
	k := pg >> pageLeafBits
	if p.last == nil || k != p.lastK {
		l := p.leaves[k]
		if l == nil {
			if !make {
				return nil
			}
			l = new(pageLeaf)
			p.leaves[k] = l
		}
		p.lastK, p.last = k, l
	}
	return &p.last.lists[pg&(1<<pageLeafBits-1)]
}

// mark applies r if it is an allocation record, or sets r.aid (0: in no
// allocation), r.astart and r.aend if it locates memory. On an
// allocation record, it leaves in r the allocations the record ended, for
// the conversion to settle their lives (converter.retire): one in r.aid,
// more in r.pcs.
func (m *allocMap) mark(r *rawEvent) {
	switch r.kind {
	case rMalloc, rFree:
		m.ended = m.ended[:0]
		if r.kind == rMalloc {
			m.malloc(r.addr, r.size)
		} else {
			m.free(r.addr, r.size)
		}
		r.aid, r.pcs = 0, nil
		switch len(m.ended) {
		case 0:
		case 1:
			r.aid = m.ended[0]
		default:
			r.pcs = make([]uint64, len(m.ended))
			for i, id := range m.ended {
				r.pcs[i] = uint64(id)
			}
		}
	case rRead, rWrite, rReadRange, rWriteRange, rAcquire, rRelease, rReleaseMerge, rReleaseAcquire, rAtomic:
		if a, ok := m.find(r.addr); ok {
			r.aid, r.astart, r.aend = a.id, a.start, a.end
		}
	}
}

func (m *allocMap) malloc(p, size uint64) {
	if size == 0 {
		size = 1
	}
	m.n++
	a := alloc{start: p, end: p + size, id: m.n}
	if size > 1<<16 {
		m.free(p, size)
		m.large = append(m.large, a)
		return
	}
	pg := p >> pageShift
	if pg == (a.end-1)>>pageShift {
		// The allocator reuses a slot of the same size: the new life
		// takes the old one's place (what free then the insertion below
		// would do, without moving the list twice).
		var list []alloc
		if l := m.pages.list(pg, false); l != nil {
			list = *l
		}
		i := after(list, p)
		if i > 0 && list[i-1].start == p && list[i-1].end == a.end {
			m.unhit(p, a.end)
			m.ended = append(m.ended, list[i-1].id)
			list[i-1] = a
			m.freeLarge(p, a.end)
			return
		}
	}
	m.free(p, size)
	for pg := p >> pageShift; pg <= (a.end-1)>>pageShift; pg++ {
		l := m.pages.list(pg, true)
		i := after(*l, p)
		list := append(*l, alloc{})
		copy(list[i+1:], list[i:])
		list[i] = a
		*l = list
	}
}

// free ends every life overlapping [p, p+size) (a size of 0 is taken as
// 1), in each page that lists it: a free of part of an allocation ends all
// of it, as a new allocation over part of it does.
func (m *allocMap) free(p, size uint64) {
	end := p + max(size, 1)
	m.unhit(p, end)
	first, last := p>>pageShift, min((end-1)>>pageShift, p>>pageShift+1<<20-1)
	m.cut = m.cut[:0]
	for pg := first; pg <= last; pg++ {
		l := m.pages.list(pg, false)
		if l == nil || len(*l) == 0 {
			continue
		}
		list := *l
		// The overlapping allocations are contiguous: from the last one
		// starting at or before p (if it reaches p) to the last one
		// starting before end.
		lo := after(list, p)
		if lo > 0 && list[lo-1].end > p {
			lo--
		}
		hi := after(list, end-1)
		if lo >= hi {
			continue
		}
		for _, a := range list[lo:hi] {
			if a0, a1 := a.start>>pageShift, (a.end-1)>>pageShift; pg == max(first, a0) {
				m.ended = append(m.ended, a.id)
				if a0 < first || a1 > last {
					m.cut = append(m.cut, a) // also listed outside [first, last]
				}
			}
		}
		*l = append(list[:lo], list[hi:]...)
	}
	for _, a := range m.cut {
		for pg := a.start >> pageShift; pg <= (a.end-1)>>pageShift; pg++ {
			if pg >= first && pg <= last {
				continue
			}
			l := m.pages.list(pg, false)
			if l == nil {
				continue
			}
			if i := after(*l, a.start) - 1; i >= 0 && (*l)[i].id == a.id {
				*l = append((*l)[:i], (*l)[i+1:]...)
			}
		}
	}
	m.freeLarge(p, end)
}

// freeLarge ends the large allocations overlapping [p, end).
func (m *allocMap) freeLarge(p, end uint64) {
	if len(m.large) > 0 {
		kept := m.large[:0]
		for _, a := range m.large {
			if !(a.start < end && p < a.end) {
				kept = append(kept, a)
			} else {
				m.ended = append(m.ended, a.id)
			}
		}
		m.large = kept
	}
}

// unhit forgets find's last hit if [p, end) overlaps it: a malloc or free
// there may end it. Lives elsewhere stay as they were, and so does hit.
func (m *allocMap) unhit(p, end uint64) {
	if m.hit.id != 0 && m.hit.start < end && p < m.hit.end {
		m.hit = alloc{}
	}
	if m.hit2.id != 0 && m.hit2.start < end && p < m.hit2.end {
		m.hit2 = alloc{}
	}
}

// find returns the allocation addr is in, if any.
func (m *allocMap) find(addr uint64) (alloc, bool) {
	if h := m.hit; h.id != 0 && h.start <= addr && addr < h.end {
		// hit is still listed in every page it overlaps (no malloc or
		// free over it since: unhit), and the allocations of one page's
		// list do not overlap: the search below would find hit again.
		// Runs of accesses to one allocation, broken by the mallocs
		// and frees of others, skip the search.
		return h, true
	}
	if h := m.hit2; h.id != 0 && h.start <= addr && addr < h.end {
		m.hit, m.hit2 = h, m.hit
		return h, true
	}
	if l := m.pages.list(addr>>pageShift, false); l != nil {
		hint := &m.pages.last.hint[addr>>pageShift&(1<<pageLeafBits-1)]
		if i, ok := inPage(*l, addr, hint); ok {
			a := (*l)[i]
			m.hit, m.hit2 = a, m.hit
			return a, true
		}
	}
	for _, a := range m.large {
		if a.start <= addr && addr < a.end {
			return a, true
		}
	}
	return alloc{}, false
}

// inPage returns the index of the allocation of list (one page's, sorted
// by start) that addr is in, if any. Before the search it tries the
// page's hint (the one it found there last), then the index that addr's
// place between the list's first and last starts makes likely: a page is
// one span's, so its allocations mostly sit a size class apart. Where
// accesses spread over many allocations of a page (syncmap), the two
// spare most searches (bench/RESULTS.md, "the spool walk's owned
// accesses"). Both are checked
// against the list as it is, so neither needs forgetting when the list
// changes; the allocations of a list do not overlap, so one that holds
// addr is the one the search would find.
func inPage(list []alloc, addr uint64, hint *uint16) (int, bool) {
	n := len(list)
	if i := int(*hint); i < n && list[i].start <= addr && addr < list[i].end {
		return i, true
	}
	// An allocation listed starts at most 64 KiB before the page, and a
	// page lists at most 8 KiB + 1 of them: the product cannot overflow,
	// and an index fits the hint.
	if n > 1 && addr >= list[0].start && list[n-1].start > list[0].start {
		i := int((addr - list[0].start) * uint64(n-1) / (list[n-1].start - list[0].start))
		if i < n && list[i].start <= addr && addr < list[i].end {
			*hint = uint16(i)
			return i, true
		}
	}
	if i := after(list, addr) - 1; i >= 0 && list[i].end > addr {
		*hint = uint16(i)
		return i, true
	}
	return 0, false
}

// after returns the index of the first allocation of list (sorted by
// start) that starts after p, or len(list): sort.Search's answer without
// a call per step, which cost the allocation stage a third of its time.
func after(list []alloc, p uint64) int {
	lo, hi := 0, len(list)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if list[m].start > p {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}
