// This file implements the storage of clock histories (vc.go): for every
// goroutine g and every goroutine k it ever knows of, the positions of g
// at which component k of g's clock rose, with the new values. A pass
// replays the trace with persistent clocks (clock.go) and records, after
// each event, only the components that rose; the history is then indexed
// per (g, k).
//
// Storing each state of a clock instead, as persistent clocks would allow,
// costs a copy of the clock's changed part per state: when thousands of
// goroutines talk to all (a worker pool around an atomic counter), every
// join changes hundreds of components and makes a new base of thousands,
// and ten million events took gigabytes. Here a state costs what rose in
// it; a component is read in two binary searches, and a whole clock (for
// the causal cone) in one per component it holds.

package predict

import "slices"

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
}

// historyLog records a pass.
type historyLog struct {
	log  [][]kpv  // per goroutine: rises, in order of position
	last []vclock // per goroutine: the clock last recorded
	buf  []centry // scratch
}

func newHistoryLog(ng int) *historyLog {
	return &historyLog{log: make([][]kpv, ng), last: make([]vclock, ng)}
}

// record logs the components of cur, goroutine g's clock after its first
// pos events, that rose since the last record (clocks only grow).
func (l *historyLog) record(g, pos int32, cur vclock) {
	old := l.last[g]
	l.last[g] = cur
	out := l.log[g]
	if old.base == cur.base {
		// The bases agree: only delta entries can differ.
		for _, e := range cur.delta {
			if e.v > old.get(e.g) {
				out = append(out, kpv{e.g, pos, e.v})
			}
		}
		l.log[g] = out
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
		out = append(out, kpv{k, pos, v})
	})
	l.log[g] = out
}

// index builds the history, releasing the log: a counting sort of each
// goroutine's rises by component, stable in position.
func (l *historyLog) index() *history {
	ng := len(l.log)
	h := &history{keys: make([][]int32, ng), off: make([][]int32, ng), ents: make([][]pv, ng)}
	cnt := make([]int32, ng) // per component: rises, then next slot
	for g, log := range l.log {
		if len(log) == 0 {
			continue
		}
		var keys []int32
		for _, x := range log {
			if cnt[x.k] == 0 {
				keys = append(keys, x.k)
			}
			cnt[x.k]++
		}
		slices.Sort(keys)
		off := make([]int32, len(keys)+1)
		for j, k := range keys {
			off[j+1] = off[j] + cnt[k]
			cnt[k] = off[j]
		}
		ents := make([]pv, len(log))
		for _, x := range log {
			ents[cnt[x.k]] = pv{x.pos, x.v}
			cnt[x.k]++
		}
		for _, k := range keys {
			cnt[k] = 0
		}
		h.keys[g], h.off[g], h.ents[g] = keys, off, ents
		l.log[g] = nil
	}
	l.last = nil
	return h
}

// rises returns the rises of component k of goroutine g's clock.
func (h *history) rises(g, k int32) []pv {
	keys := h.keys[g]
	j, ok := slices.BinarySearch(keys, k)
	if !ok {
		return nil
	}
	return h.ents[g][h.off[g][j]:h.off[g][j+1]]
}

// valueAt returns the last value of rs at or before position p (0 if
// none).
func valueAt(rs []pv, p int32) int32 {
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
func (h *history) get(g, p, k int32) int32 { return valueAt(h.rises(g, k), p) }

// each calls f for every non-zero component of goroutine g's clock after
// its first p events, in goroutine order.
func (h *history) each(g, p int32, f func(k, v int32)) {
	ents := h.ents[g]
	off := h.off[g]
	for j, k := range h.keys[g] {
		if v := valueAt(ents[off[j]:off[j+1]], p); v > 0 {
			f(k, v)
		}
	}
}

// firstAbove returns the first position of goroutine g whose clock's
// component k exceeds v, or -1.
func (h *history) firstAbove(g, k, v int32) int32 {
	rs := h.rises(g, k)
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
