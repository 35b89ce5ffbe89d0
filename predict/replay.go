// This file implements HappensBefore, the observed-race test (race_observed.go)
// for one pair of events of any trace: what confirms a replayed witness.

package predict

import (
	"fmt"

	"github.com/seer-tools/seer/trace"
)

// HappensBefore reports whether, in t, event a happens before event b or
// b before a under the run's own happens-before with locks (the relation
// ThreadSanitizer computes, and the one Finding.Predicted is decided by).
// Two conflicting accesses that it leaves unordered are a race the run
// itself showed.
func HappensBefore(t *trace.Trace, a, b int) (bool, error) {
	if a < 0 || b < 0 || a >= len(t.Events) || b >= len(t.Events) {
		return false, fmt.Errorf("predict: events %d and %d: the trace has %d", a, b, len(t.Events))
	}
	if a > b {
		a, b = b, a
	}
	if a == b || t.Events[a].G == t.Events[b].G {
		return true, nil
	}
	c := newCTP(t)
	return hbBefore(c, []hbQuery{{int32(a), int32(b)}})&1 != 0, nil
}
