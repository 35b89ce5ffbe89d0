// This file implements a receiver's memory of the middle layers
// (clock_layer.go) it has joined whole, so that a later join of a clock
// on the same layer reads only that clock's delta.
//
// A join whose receiver knows the source's base takes the source's layer
// and delta as candidates and keeps those that raise the receiver
// (clock_vc.go's joinOwn, keepAbove, or joinDense's raise over a
// mirror). When many goroutines release clocks made from one long-lived
// goroutine's (pond's tasks, forked from the pool's dispatcher, share its
// layer), a goroutine that acquires from one after another reads that
// same layer again at every join, and nearly none of it rises. A layer is
// never changed once made and a goroutine's clock only grows within a
// pass, so once a join has taken a layer in, the receiver holds all of it
// for the rest of the pass: the layer can be left out of the candidates
// of its later joins, and the result, and what rose, are the same. It is
// the subtree test of tree clocks (Mathur, Pavlogiannis, Tunç and
// Viswanathan, "A Tree Clock Data Structure for Causal Orderings in
// Concurrent Executions", ASPLOS 2022, §3: a child the receiver already
// knows is passed over with everything under it), for the one node a
// layer is.

package predict

import "sync/atomic"

var (
	// skipKnownLayers turns the memory on; tests turn it off to compare.
	skipKnownLayers = true
	// layersSkipped counts, for tests, the layers left out of a join
	// (atomic: an analysis runs its passes on two goroutines).
	layersSkipped atomic.Int64
)

// knownLayers holds the last layers a goroutine's clock joined whole, the
// latest first. Two, so that a goroutine that takes turns between two
// sources keeps both.
type knownLayers [2]*layer

// has reports whether l is one of k's layers.
func (k *knownLayers) has(l *layer) bool {
	if k != nil && l != nil && skipKnownLayers && (k[0] == l || k[1] == l) {
		layersSkipped.Add(1)
		return true
	}
	return false
}

// note records that the clock joined l whole: l first, the previous
// first second (whether l was second or not).
func (k *knownLayers) note(l *layer) {
	if l == nil || k[0] == l {
		return
	}
	k[0], k[1] = l, k[0]
}
