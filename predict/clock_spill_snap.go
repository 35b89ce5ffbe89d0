// This file implements the spilling of read-from snapshots under the SHB
// pass's memory budget (clock_spill.go; issue 31, item 2). With
// read-from, a pass keeps a writer's clock from its write until the last
// read that joins it (clock_pass.go's snap): on pond's trace (issue 31),
// tens of thousands of tasks wrote what the test read only later, and
// those clocks' deltas were most of what the SHB pass held once its
// pending merges were folded (clock_fold.go). The snapshots written
// longest ago go to the spill file with the addresses' clocks, and come
// back at their next read. Only the delta (merged with the middle layer,
// clock_layer.go) is written: the base stays in
// memory (the arena's sweeps keep it), shared with the clocks that still
// hold it, so a snapshot comes back with the same base and the same
// components, and the pass computes the same clocks (TestSpillSameSHB).

package predict

// snapSpill is a spilled snapshot: its base, and where its delta is.
type snapSpill struct {
	base *frozen
	at   spillRef
}

// spilledSnaps, for tests, counts the snapshots written out since the
// process started.
var spilledSnaps int

// spillSnap writes out the delta of write w's snapshot.
func (ps *pass) spillSnap(w int32) error {
	clk := ps.snap[w]
	ents := clk.delta
	if clk.mid != nil { // clock_layer.go
		ents = clk.overTo(nil)
	}
	r, err := ps.sf.writeEnts(ents)
	if err != nil {
		return err
	}
	if ps.snapAt == nil {
		ps.snapAt = make(map[int32]snapSpill)
	}
	ps.snapAt[w] = snapSpill{base: clk.base, at: r}
	delete(ps.snap, w)
	spilledSnaps++
	return nil
}

// snapClock returns write w's snapshot, read back into memory if it was
// spilled.
func (ps *pass) snapClock(w int32) (vclock, error) {
	if clk, ok := ps.snap[w]; ok || ps.snapAt == nil {
		return clk, nil
	}
	sp, ok := ps.snapAt[w]
	if !ok {
		return vclock{}, nil
	}
	delete(ps.snapAt, w)
	ents, err := ps.sf.readEnts(sp.at)
	if err != nil {
		return vclock{}, err
	}
	clk := vclock{base: sp.base, delta: ents}
	ps.snap[w] = clk
	return clk, nil
}
