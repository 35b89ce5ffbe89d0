// This file implements the one key by which the layers after the races
// (deadlock_lockorder.go, deadlock_channel.go, leak_select.go, misuse.go)
// deduplicate their findings: the finding's kind and the source sites
// (Trace.Site) of its events, so that a pattern of sites is reported
// once, with the first witness found, however many event tuples show it
// (doc.go, "Findings"). The race layers key by siteKey (candidates.go),
// which the candidates' tables are indexed by as well.

package predict

import "github.com/seer-tools/seer/predict/report"

// patternKey names a finding by its kind and the sites of its events, in
// the order the layer gives them: n sites, the rest -1. A lock-order
// deadlock has the most: a held and a requested site per lock of the
// cycle.
type patternKey struct {
	kind  report.Kind
	n     uint8
	sites [2 * maxCycle]int32
}

// newPatternKey returns the key of kind and sites.
func newPatternKey(kind report.Kind, sites ...int32) patternKey {
	if len(sites) > 2*maxCycle {
		panic("predict: a pattern of more than 2*maxCycle sites")
	}
	k := patternKey{kind: kind, n: uint8(len(sites))}
	for j := range k.sites {
		k.sites[j] = -1
	}
	copy(k.sites[:], sites)
	return k
}
