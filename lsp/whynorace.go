// This file implements "why no race here?": hover on an access that
// conflicts with an access of another goroutine and has no finding tells
// what orders the two in every schedule (report.Ordered, worded by
// report.WhyNoRaceSentences, told by report.WhyNoRaceHover). The marks are
// hover-only: never published.

package lsp

import (
	"github.com/seer-tools/seer/predict/report"
)

// whyMarks returns a hover-only mark at each access of o that can be
// located.
func whyMarks(o *report.Ordered, v *views) []*mark {
	var marks []*mark
	for i := range o.Accesses {
		a := &o.Accesses[i]
		rng, ok := v.locate(a.File, a.Line, a.Column, a.EndLine, a.EndColumn)
		if !ok {
			continue
		}
		marks = append(marks, &mark{path: a.File, rng: rng, why: o, access: i})
	}
	return marks
}
