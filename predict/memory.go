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

// location is a maximal set of overlapping accesses.
type location struct {
	trace.Span
	g0    int32 // first goroutine to touch it
	multi bool  // touched by more than one goroutine
	write bool  // written at least once
}

func (l *location) shared() bool { return l.multi && l.write }

// memory is the result of the pre-pass.
type memory struct {
	loc  []int32 // per event: location id, or -1 (not a memory access)
	locs []location
	// CSR over the reads of shared locations (numbered by reads): the
	// writers of the k-th are w[wOff[k]:wOff[k+1]].
	reads rankSet
	wOff  []int32
	w     []int32 // writer events; -1 is the initial value
}

// shared reports whether event i accesses a shared location.
func (m *memory) shared(i int32) bool {
	l := m.loc[i]
	return l >= 0 && m.locs[l].shared()
}

// spans returns every location's byte range, by location: what the
// witness checker needs of the locations.
func (m *memory) spans() []trace.Span {
	out := make([]trace.Span, len(m.locs))
	for l := range m.locs {
		out[l] = m.locs[l].Span
	}
	return out
}

// writers returns the writers of read i (empty unless i reads a shared
// location).
func (m *memory) writers(i int32) []int32 {
	k := m.reads.index(i)
	if k < 0 {
		return nil
	}
	return m.w[m.wOff[k]:m.wOff[k+1]]
}

func newMemory(c *ctp) *memory {
	loc, spans := trace.GroupAccesses(c.ev)
	return newMemoryOf(c.ev, loc, spans)
}

// newMemoryOf is newMemory of the CTP's events ev (the trace's) given
// trace.GroupAccesses(ev). It reads the events alone, never the CTP:
// Analyze's pre-pass makes it beside newCTP (analysis.prePass).
func newMemoryOf(ev []trace.Event, loc []int32, spans []trace.Span) *memory {
	m := &memory{loc: loc}
	m.locs = make([]location, len(spans))
	for l, s := range spans {
		m.locs[l] = location{Span: s, g0: -1}
	}
	for i := range ev {
		l := m.loc[i]
		if l < 0 {
			continue
		}
		e := &ev[i]
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
	m.readFrom(ev)
	return m
}

// readFrom replays the observed order and records each shared read's
// writers, byte by byte.
func (m *memory) readFrom(ev []trace.Event) {
	// Each location is tracked from its first access to its last.
	wm := trace.NewWriterMap()
	last := trace.LastAccesses(m.loc, len(m.locs))
	m.reads = newRankSet(len(ev), func(i int) bool {
		l := m.loc[i]
		return l >= 0 && m.locs[l].shared() && isRead(ev[i].Op)
	})
	m.wOff = make([]int32, m.reads.n+1)
	// Most reads have one writer: start with room for one each.
	m.w = make([]int32, 0, m.reads.n)
	nr := 0
	for i := range ev {
		e := &ev[i]
		l := m.loc[i]
		if l < 0 || !m.locs[l].shared() {
			continue
		}
		wm.Track(l, m.locs[l].Span)
		if isRead(e.Op) {
			m.wOff[nr] = int32(len(m.w))
			nr++
			start := len(m.w)
			wm.Read(l, e.Addr, e.Size, func(_, _ uint64, w int32) {
				if len(m.w)-start < 8 && slices.Contains(m.w[start:], w) {
					return
				}
				m.w = append(m.w, w)
			})
			if len(m.w)-start > 8 { // many runs: deduplicate once
				ws := m.w[start:]
				slices.Sort(ws)
				m.w = m.w[:start+len(slices.Compact(ws))]
			}
		}
		if isWrite(e.Op) {
			wm.Write(l, e.Addr, e.Size, int32(i))
		}
		if last[l] == int32(i) {
			wm.Forget(l)
		}
	}
	m.wOff[nr] = int32(len(m.w))
}
