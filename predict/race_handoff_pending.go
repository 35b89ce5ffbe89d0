// This file implements pendingReleases, the releases an address's clock
// holds as the handoff check's edgeBuilder (race_handoff.go) makes its
// edges: since the last release that overwrote the clock, the latest
// merging release of each goroutine.
//
// A release-merge (a WaitGroup's Done, a close) updates its goroutine's
// entry or adds one. Found by a scan of the address's entries, that was a
// square of the goroutines where many merge into one address: on the
// channel stress suite of 100,000 channels, whose every goroutine calls
// Done on one WaitGroup, the scan led the check (bench/RESULTS.md, "the
// handoff check's pending releases by goroutine"). So, as
// latestAccesses does for a location's accesses, the entries are found
// by a scan while they are few and by an index once they are many; they
// stay in the order first made, which is the order the edges are added
// at an acquire.

package predict

// pendingReleases holds an address's pending releases, one per goroutine
// (centry: the goroutine and its position after the release), in the
// order their goroutines first released; at indexes them by goroutine
// once there are more than latestScanUpTo.
type pendingReleases struct {
	ents []centry
	at   map[int32]int32
}

// overwrite makes g's release at p the only one: the address's clock is
// now g's.
func (pr *pendingReleases) overwrite(g, p int32) {
	pr.ents, pr.at = append(pr.ents[:0], centry{g, p}), nil
}

// merge makes g's release at p its latest: the address's clock now also
// holds g's.
func (pr *pendingReleases) merge(g, p int32) {
	if pr.at != nil {
		if j, ok := pr.at[g]; ok {
			pr.ents[j].v = p
			return
		}
		pr.at[g] = int32(len(pr.ents))
		pr.ents = append(pr.ents, centry{g, p})
		return
	}
	for j := range pr.ents {
		if pr.ents[j].g == g {
			pr.ents[j].v = p
			return
		}
	}
	pr.ents = append(pr.ents, centry{g, p})
	if len(pr.ents) > latestScanUpTo {
		pr.at = make(map[int32]int32, 2*len(pr.ents))
		for j, r := range pr.ents {
			pr.at[r.g] = int32(j)
		}
	}
}
