// This file implements the readers of a history over chains of goroutines
// (clock_chain.go) that the causal cone's closures need (solve_plan.go's
// closeInto and settle): a clock's components above a cut, the rises at a
// release-acquire event, and the first position of a goroutine whose clock
// knows more of another than a barrier. Each goes through the one
// translation of a chain's value into goroutines' counts (chainMap.count
// and value, by way of riseLog's each and riseCursor's valueAt), so that
// the cone's pass may count per chain as must-happen-before's and SHB's
// do: on issue 31's ring the cone's clocks learnt a component per
// short-lived goroutine.

package predict

// eachAboveChains is eachAbove for a history over chains: every goroutine
// k of which goroutine g's clock after its first p events knows more
// than floor[k] events, translated (each).
func (h *riseLog) eachAboveChains(g, p int32, floor []int32, f func(k, v int32)) {
	h.each(g, p, func(k, v int32) {
		if v > floor[k] {
			f(k, v)
		}
	})
}

// eachKnown calls f(k, n) for every goroutine k of which a clock whose
// component x is v knows n > 0 events: x itself without chains; with
// chains, the members of chain x (chainMap.eachOf). What a closure reads
// of the rises a pass kept at a release-acquire event (eventRises), which
// are components.
func (h *riseLog) eachKnown(x, v int32, f func(k, n int32)) {
	if !h.chained() {
		f(x, v)
		return
	}
	h.ch.eachOf(x, v, -1, f)
}

// knowsList is how many events of goroutine k goroutine g's clock knows,
// by position of g: the rises of component k, or with chains those of
// k's chain read through riseCursor's translation.
type knowsList struct {
	r riseList
	// With chains: the clock's goroutine g, k, and g's events.
	ch      *chainMap
	g, k, n int32
}

// knowsRises returns how many events of goroutine k goroutine g's clock
// knows, by position of g.
func (h *riseLog) knowsRises(g, k int32) knowsList {
	if !h.chained() {
		return knowsList{r: h.componentRises(g, k)}
	}
	return knowsList{r: h.componentRises(g, h.ch.of[k]), ch: h.ch, g: g, k: k, n: h.ch.n[g]}
}

// valueAt returns how many events of k the clock knows after g's first p
// events.
func (x knowsList) valueAt(p int32) int32 {
	if x.ch == nil {
		return x.r.valueAt(p)
	}
	c := riseCursor{r: x.r, ch: x.ch, g: x.g, k: x.k}
	return c.valueAt(p)
}

// firstAbove returns the first position of g whose clock knows more than
// v events of k, or -1. What a clock knows only grows with its
// position, translated too (a chain's value past one of its goroutines
// counts what its successor knew of it, which is all that any clock but
// its own knows: clock_chain.go), so the position is found by binary
// search over g's positions.
func (x knowsList) firstAbove(v int32) int32 {
	if x.ch == nil {
		return x.r.firstAbove(v)
	}
	lo, hi := int32(0), x.n+1 // the answer is in [lo, hi]; hi: none
	for lo < hi {
		m := lo + (hi-lo)/2
		if x.valueAt(m) > v {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo > x.n {
		return -1
	}
	return lo
}

// eachKnowsMarked is eachRisesMarked for a history over chains: f is
// called for the members k with mark[k] of every chain goroutine g's
// clock has a component of, and of g's own chain, k's counts translated
// (knowsRises). A member that the clock never knows of reads 0 throughout.
func (h *riseLog) eachKnowsMarked(g int32, mark []bool, f func(k int32, rs knowsList)) {
	ch := h.ch
	visit := func(x int32) {
		ch.members(x, func(k int32) bool {
			if mark[k] {
				f(k, h.knowsRises(g, k))
			}
			return true
		})
	}
	ks := h.keysOf(g)
	own := false
	for j := range ks.len() {
		x := ks.at(j)
		own = own || x == ch.of[g]
		visit(x)
	}
	if !own {
		visit(ch.of[g])
	}
}

// last returns how many events of k the clock knows after all g's
// events: the most it ever knows.
func (x knowsList) last() int32 {
	if x.ch == nil {
		return x.r.last()
	}
	return x.valueAt(x.n)
}
