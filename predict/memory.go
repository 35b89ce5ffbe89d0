// This file implements the memory pre-pass: it groups accesses into
// locations (maximal runs of overlapping byte ranges), drops thread-local
// and read-only locations (no race and no three-access atomicity violation
// can involve them, and reads of them keep their writer in every prefix of
// the program order), and records, for every read of a shared location,
// the writes it read from, byte by byte. Read-from is what the maximal
// causal model preserves (Şerbănuţă, Chen and Roşu, "Maximal Causal
// Models", §3 and Theorem 2): a read keeps its value if it keeps its writer.

package predict

import (
	"slices"

	"github.com/seer-tools/seer/trace"
)

// isRead reports whether op reads memory (plain or atomic).
func isRead(op trace.Op) bool {
	switch op {
	case trace.OpRead, trace.OpAtomicLoad, trace.OpOnceCheck, trace.OpAtomicRMW:
		return true
	}
	return false
}

// isWrite reports whether op writes memory (plain or atomic).
func isWrite(op trace.Op) bool {
	switch op {
	case trace.OpWrite, trace.OpAtomicStore, trace.OpOnceDone, trace.OpAtomicRMW:
		return true
	}
	return false
}

// isMem reports whether e is a memory access the analyses consider.
func isMem(e *trace.Event) bool {
	return e.Size > 0 && (e.Op.IsAccess() || e.Op.IsAtomic())
}

// location is a maximal set of overlapping accesses.
type location struct {
	lo, hi uint64
	g0     int32 // first goroutine to touch it
	multi  bool  // touched by more than one goroutine
	write  bool  // written at least once
}

func (l *location) shared() bool { return l.multi && l.write }

// memory is the result of the pre-pass.
type memory struct {
	loc  []int32 // per event: location id, or -1 (not a memory access)
	locs []location
	wOff []int32 // CSR: writers of read i are w[wOff[i]:wOff[i+1]]
	w    []int32 // writer events; -1 is the initial value
}

// shared reports whether event i accesses a shared location.
func (m *memory) shared(i int32) bool {
	l := m.loc[i]
	return l >= 0 && m.locs[l].shared()
}

// writers returns the writers of read i (empty unless i reads a shared
// location).
func (m *memory) writers(i int32) []int32 { return m.w[m.wOff[i]:m.wOff[i+1]] }

func newMemory(c *ctp) *memory {
	n := len(c.ev)
	m := &memory{loc: make([]int32, n), wOff: make([]int32, n+1)}
	// A small direct-mapped cache in front of the maps: tests hit the
	// same addresses again and again.
	const cacheSize = 1 << 12
	var ckey [cacheSize]uint64
	var cend [cacheSize]uint64
	ends := make(map[uint64]uint64)
	for i := range c.ev {
		e := &c.ev[i]
		if !isMem(e) {
			continue
		}
		h := (e.Addr >> 3) & (cacheSize - 1)
		end := e.End()
		if ckey[h] == e.Addr+1 && end <= cend[h] {
			continue
		}
		if end > ends[e.Addr] {
			ends[e.Addr] = end
		}
		ckey[h], cend[h] = e.Addr+1, ends[e.Addr]
	}
	addrs := make([]uint64, 0, len(ends))
	for a := range ends {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	id := make(map[uint64]int32, len(addrs))
	for _, a := range addrs {
		if k := len(m.locs); k > 0 && a < m.locs[k-1].hi {
			if ends[a] > m.locs[k-1].hi {
				m.locs[k-1].hi = ends[a]
			}
		} else {
			m.locs = append(m.locs, location{lo: a, hi: ends[a], g0: -1})
		}
		id[a] = int32(len(m.locs) - 1)
	}
	var cid [cacheSize]int32
	ckey = [cacheSize]uint64{}
	for i := range c.ev {
		e := &c.ev[i]
		if !isMem(e) {
			m.loc[i] = -1
			continue
		}
		h := (e.Addr >> 3) & (cacheSize - 1)
		var l int32
		if ckey[h] == e.Addr+1 {
			l = cid[h]
		} else {
			l = id[e.Addr]
			ckey[h], cid[h] = e.Addr+1, l
		}
		m.loc[i] = l
		loc := &m.locs[l]
		if loc.g0 < 0 {
			loc.g0 = int32(e.G)
		} else if loc.g0 != int32(e.G) {
			loc.multi = true
		}
		if isWrite(e.Op) {
			loc.write = true
		}
	}
	m.readFrom(c)
	return m
}

// readFrom replays the observed order and records each shared read's
// writers, byte by byte.
func (m *memory) readFrom(c *ctp) {
	// Per shared location: last writer of each byte, in a dense pool when
	// the location is small, else in a map.
	const dense = 1 << 12
	off := make([]int, len(m.locs))
	total := 0
	for l := range m.locs {
		off[l] = -1
		if loc := &m.locs[l]; loc.shared() && loc.hi-loc.lo <= dense {
			off[l] = total
			total += int(loc.hi - loc.lo)
		}
	}
	pool := make([]int32, total)
	for i := range pool {
		pool[i] = -1
	}
	sparse := make(map[uint64]int32)
	last := func(l int32, a uint64) int32 {
		if o := off[l]; o >= 0 {
			return pool[o+int(a-m.locs[l].lo)]
		}
		if w, ok := sparse[a]; ok {
			return w
		}
		return -1
	}
	for i := range c.ev {
		e := &c.ev[i]
		l := m.loc[i]
		m.wOff[i] = int32(len(m.w))
		if l < 0 || !m.locs[l].shared() {
			continue
		}
		if isRead(e.Op) {
			start := len(m.w)
			for a := e.Addr; a < e.End(); a++ {
				w := last(l, a)
				if !slices.Contains(m.w[start:], w) {
					m.w = append(m.w, w)
				}
			}
		}
		if isWrite(e.Op) {
			for a := e.Addr; a < e.End(); a++ {
				if o := off[l]; o >= 0 {
					pool[o+int(a-m.locs[l].lo)] = int32(i)
				} else {
					sparse[a] = int32(i)
				}
			}
		}
	}
	m.wOff[len(c.ev)] = int32(len(m.w))
}
