// This file implements the storage of clock histories (vc.go): for every
// goroutine g and every goroutine k it ever knows of, the positions of g
// at which component k of g's clock rose, with the new values. A pass
// replays the trace with persistent clocks (clock.go) and records, after
// each event, only the components that rose; the history is then indexed
// per (g, k). The log is varint-coded (4 to 6 bytes a rise rather than
// 12) and the pass records a private copy of each clock's delta, which
// the pass may then update in place (clock.go's joinOwn).
//
// Storing each state of a clock instead, as persistent clocks would allow,
// costs a copy of the clock's changed part per state: when thousands of
// goroutines talk to all (a worker pool around an atomic counter), every
// join changes hundreds of components and makes a new base of thousands,
// and ten million events took gigabytes. Here a state costs what rose in
// it; a component is read in two binary searches, and a whole clock (for
// the causal cone) in one per component it holds.

package predict

import (
	"encoding/binary"
	"slices"
)

// pv is one rise of a component: from position pos of its goroutine on,
// the component is v.
type pv struct{ pos, v int32 }

// kpv is a rise of component k, as logged during a pass.
type kpv struct{ k, pos, v int32 }

// history is the indexed record of one pass.
type history struct {
	keys [][]int32 // per goroutine: the components it ever knows of, sorted
	off  [][]int32 // per goroutine: rises of keys[g][j] are ents[g][off[g][j]:off[g][j+1]]
	ents [][]pv
	// p16, for a history built packed, holds instead of ents[g] the
	// rises of a goroutine whose positions and values all fit in 16 bits,
	// as pos<<16|v (4 bytes a rise, not 8: thousands of goroutines that
	// all talk to all make tens of millions of rises, each of them short).
	p16 [][]uint32
}

// historyLog records a pass.
type historyLog struct {
	log  []kpvLog // per goroutine: rises, in order of position
	last []vclock // per goroutine: the clock last recorded, its delta a copy
	buf  []centry // scratch
}

// kpvLog is a goroutine's log of rises, append-only and read in order:
// each rise as three uvarints (component, position since the previous
// rise, value), usually 4 to 6 bytes instead of 12, in chunks that are
// never copied (growing one slice by doubling would leave as much garbage
// as the log holds).
type kpvLog struct {
	full [][]byte
	cur  []byte
	last int32 // position of the last rise
	n    int   // rises
	size int   // bytes
}

func (l *kpvLog) add(x kpv) {
	if cap(l.cur)-len(l.cur) < 3*binary.MaxVarintLen32 {
		if l.cur != nil {
			l.full = append(l.full, l.cur)
		}
		// Chunks grow with the log, up to 256 KiB.
		l.cur = make([]byte, 0, min(max(64, l.size/2), 1<<18))
	}
	n0 := len(l.cur)
	l.cur = binary.AppendUvarint(l.cur, uint64(uint32(x.k)))
	l.cur = binary.AppendUvarint(l.cur, uint64(uint32(x.pos-l.last)))
	l.cur = binary.AppendUvarint(l.cur, uint64(uint32(x.v)))
	l.last = x.pos
	l.n++
	l.size += len(l.cur) - n0
}

// each calls f for every rise, in order.
func (l *kpvLog) each(f func(x kpv)) {
	pos := int32(0)
	dec := func(b []byte) {
		for len(b) > 0 {
			k, n1 := binary.Uvarint(b)
			d, n2 := binary.Uvarint(b[n1:])
			v, n3 := binary.Uvarint(b[n1+n2:])
			b = b[n1+n2+n3:]
			pos += int32(uint32(d))
			f(kpv{int32(uint32(k)), pos, int32(uint32(v))})
		}
	}
	for _, ch := range l.full {
		dec(ch)
	}
	dec(l.cur)
}

func newHistoryLog(ng int) *historyLog {
	return &historyLog{log: make([]kpvLog, ng), last: make([]vclock, ng)}
}

// record logs the components of cur, goroutine g's clock after its first
// pos events, that rose since the last record (clocks only grow).
func (l *historyLog) record(g, pos int32, cur vclock) {
	old := l.last[g]
	l.rises(g, pos, old, cur)
	// A copy of the delta, in the storage of the one it replaces (read
	// by now): the pass may update cur's delta in place.
	l.last[g] = vclock{base: cur.base, delta: append(old.delta[:0], cur.delta...)}
}

// rises logs the components of cur that exceed old's.
func (l *historyLog) rises(g, pos int32, old, cur vclock) {
	out := &l.log[g]
	if old.base == cur.base {
		// The bases agree: only delta entries can differ.
		for _, e := range cur.delta {
			if e.v > old.get(e.g) {
				out.add(kpv{e.g, pos, e.v})
			}
		}
		return
	}
	prev := l.buf[:0] // old's components, in order
	old.each(func(k, v int32) { prev = append(prev, centry{k, v}) })
	l.buf = prev
	j := 0
	cur.each(func(k, v int32) {
		for j < len(prev) && prev[j].g < k {
			j++
		}
		if j < len(prev) && prev[j].g == k && prev[j].v >= v {
			return
		}
		out.add(kpv{k, pos, v})
	})
}

// index builds the history, releasing the log: a counting sort of each
// goroutine's rises by component, stable in position. With pack, a
// goroutine's rises are stored in p16 where they fit.
func (l *historyLog) index(pack bool) *history {
	ng := len(l.log)
	h := &history{keys: make([][]int32, ng), off: make([][]int32, ng), ents: make([][]pv, ng), p16: make([][]uint32, ng)}
	cnt := make([]int32, ng) // per component: rises, then next slot
	for g := range l.log {
		log := &l.log[g]
		if log.n == 0 {
			continue
		}
		var keys []int32
		top := int32(0) // the largest position or value
		log.each(func(x kpv) {
			if cnt[x.k] == 0 {
				keys = append(keys, x.k)
			}
			cnt[x.k]++
			top = max(top, x.pos, x.v)
		})
		slices.Sort(keys)
		off := make([]int32, len(keys)+1)
		for j, k := range keys {
			off[j+1] = off[j] + cnt[k]
			cnt[k] = off[j]
		}
		if pack && top < 1<<16 {
			p16 := make([]uint32, log.n)
			log.each(func(x kpv) {
				p16[cnt[x.k]] = uint32(x.pos)<<16 | uint32(x.v)
				cnt[x.k]++
			})
			h.p16[g] = p16
		} else {
			ents := make([]pv, log.n)
			log.each(func(x kpv) {
				ents[cnt[x.k]] = pv{x.pos, x.v}
				cnt[x.k]++
			})
			h.ents[g] = ents
		}
		for _, k := range keys {
			cnt[k] = 0
		}
		h.keys[g], h.off[g] = keys, off
		l.log[g] = kpvLog{}
	}
	l.last = nil
	return h
}

// rises returns the rises of component k of goroutine g's clock (for a
// packed goroutine, a copy).
func (h *history) rises(g, k int32) []pv {
	keys := h.keys[g]
	j, ok := slices.BinarySearch(keys, k)
	if !ok {
		return nil
	}
	return h.list(g, j)
}

// list returns the rises of component keys[g][j].
func (h *history) list(g int32, j int) []pv {
	lo, hi := h.off[g][j], h.off[g][j+1]
	if p := h.p16[g]; p != nil {
		rs := make([]pv, 0, hi-lo)
		for _, x := range p[lo:hi] {
			rs = append(rs, pv{int32(x >> 16), int32(x & 0xffff)})
		}
		return rs
	}
	return h.ents[g][lo:hi]
}

// valueAt16 is valueAt for packed rises.
func valueAt16(rs []uint32, p int32) int32 {
	if p >= 1<<16-1 {
		if len(rs) == 0 {
			return 0
		}
		return int32(rs[len(rs)-1] & 0xffff)
	}
	if p < 0 {
		return 0
	}
	// The first rise after p is the first entry >= (p+1)<<16.
	j, _ := slices.BinarySearch(rs, uint32(p+1)<<16)
	if j == 0 {
		return 0
	}
	return int32(rs[j-1] & 0xffff)
}

// valueAt returns the last value of rs at or before position p (0 if
// none). Most lists are short (a component rises a few times in a
// goroutine's clock): those are scanned, the rest searched.
func valueAt(rs []pv, p int32) int32 {
	if len(rs) <= 8 {
		v := int32(0)
		for _, r := range rs {
			if r.pos > p {
				break
			}
			v = r.v
		}
		return v
	}
	lo, hi := 0, len(rs)
	for lo < hi { // first rise after p
		m := int(uint(lo+hi) >> 1)
		if rs[m].pos <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return rs[lo-1].v
}

// size returns how many components goroutine g's clock ever has.
func (h *history) size(g int32) int { return len(h.keys[g]) }

// get returns component k of goroutine g's clock after its first p
// events.
func (h *history) get(g, p, k int32) int32 {
	keys := h.keys[g]
	j, ok := slices.BinarySearch(keys, k)
	if !ok {
		return 0
	}
	if p16 := h.p16[g]; p16 != nil {
		return valueAt16(p16[h.off[g][j]:h.off[g][j+1]], p)
	}
	return valueAt(h.ents[g][h.off[g][j]:h.off[g][j+1]], p)
}

// each calls f for every non-zero component of goroutine g's clock after
// its first p events, in goroutine order.
func (h *history) each(g, p int32, f func(k, v int32)) {
	off, p16 := h.off[g], h.p16[g]
	for j, k := range h.keys[g] {
		var v int32
		if p16 != nil {
			v = valueAt16(p16[off[j]:off[j+1]], p)
		} else {
			v = valueAt(h.ents[g][off[j]:off[j+1]], p)
		}
		if v > 0 {
			f(k, v)
		}
	}
}

// eachRisesMarked calls f with the rises of every component k of
// goroutine g's clock that has mark[k], in goroutine order. f must not
// keep rs (for a packed goroutine, a buffer reused between calls).
func (h *history) eachRisesMarked(g int32, mark []bool, f func(k int32, rs []pv)) {
	off, p16 := h.off[g], h.p16[g]
	var buf []pv
	for j, k := range h.keys[g] {
		if !mark[k] {
			continue
		}
		if p16 == nil {
			f(k, h.ents[g][off[j]:off[j+1]])
			continue
		}
		buf = buf[:0]
		for _, x := range p16[off[j]:off[j+1]] {
			buf = append(buf, pv{int32(x >> 16), int32(x & 0xffff)})
		}
		f(k, buf)
	}
}

// firstAboveIn returns the position of the first rise of rs (a
// component's rises, see rises) above v, or -1: the first position of
// the goroutine whose clock knows more than v.
func firstAboveIn(rs []pv, v int32) int32 {
	j, _ := slices.BinarySearchFunc(rs, v, func(x pv, v int32) int {
		if x.v <= v {
			return -1
		}
		return 1
	})
	if j == len(rs) {
		return -1
	}
	return rs[j].pos
}
