// This file implements the second sound layer: sync-preserving races
// (Mathur, Pavlogiannis and Viswanathan, "Optimal prediction of
// synchronization-preserving races", POPL 2021, §3).
//
// Contract: it reports only pairs of conflicting accesses that neither
// lies in the sync-preserving closure of the events before the two
// accesses: the causal cone, closed under the lock rule of cut.go (of two
// acquires of a lock in the set, the earlier one's release is too). It
// builds the witness from that closure: the cut in observed order, then
// the two accesses (cutWitness, race_layers.go). The paper decides every
// pair in Õ(N); seer tries the closest pairs of each pair of access
// classes (Options.MaxTries per pair of sites, layerTries), from the
// cone's clocks.

package predict

// syncPWitness returns the sync-preserving witness of race cd, if there is
// one: its closure in observed order, then the two accesses.
func (e *engine) syncPWitness(cd cand, cut []int32) (Finding, bool) {
	if !e.syncPreserving(cd, cut) {
		return Finding{}, false
	}
	return e.cutWitness(cd, cut)
}

// syncPreserving computes in cut the sync-preserving closure of race cd
// (Mathur, Pavlogiannis and Viswanathan, POPL 2021, §3): the causal cone
// of the events before each access, closed under "if two acquires of a
// lock are in the set, the earlier one's release is too" (shared sections
// of a read-write lock do not exclude each other). It reports whether
// neither access is in the closure, which is then a witness's cut.
func (e *engine) syncPreserving(cd cand, cut []int32) bool {
	ga, gb := e.raceCone(cd, cut)
	pa, pb := e.c.pos[cd.ev[0]], e.c.pos[cd.ev[1]]
	return e.closeCut(cut, ga, gb, func(cut []int32) bool { return cut[ga] < pa && cut[gb] < pb })
}
