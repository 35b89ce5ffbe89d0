// This file implements the words of test outcomes for other renderers
// than the report's text (seer check's live progress on a terminal).

package report

import (
	"fmt"
	"strings"
)

// OutcomeWord says what a test's outcome means ("passed", "timed out").
func OutcomeWord(outcome string) string { return words(outcome) }

// OutcomeCounts words counts of tests by outcome, in the order the
// summary line counts them: "2 passed, 1 failed".
func OutcomeCounts(counts map[string]int) string {
	var out []string
	for _, o := range outcomeWords {
		if n := counts[o.outcome]; n > 0 {
			out = append(out, fmt.Sprintf("%d %s", n, o.words))
		}
	}
	return strings.Join(out, ", ")
}
