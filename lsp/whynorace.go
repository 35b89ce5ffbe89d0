// This file implements "why no race here?": hover on an access that
// conflicts with an access of another goroutine and has no finding tells
// what orders the two in every schedule (report.Ordered, worded by
// report.WhyNoRaceSentences). The marks are hover-only: never published.

package lsp

import (
	"fmt"
	"strings"

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

// whyMarkdown explains, from access i of o, why it does not race with
// the other access: the rules in order, as a numbered list. first says
// whether this is the first explanation of the hover, which shows the
// source line.
func whyMarkdown(o *report.Ordered, i int, short func(string) string, src func(string, int) string, first bool) string {
	var b strings.Builder
	a, other := &o.Accesses[i], &o.Accesses[1-i]
	if line := src(a.File, a.Line); first && line != "" {
		fmt.Fprintf(&b, "```go\n%s\n```\n\n", line)
	}
	on := ""
	if o.Variable != "" {
		on = fmt.Sprintf(" on `%s`", o.Variable)
	}
	ordered := o.Lock != "" || len(o.Chain) > 0
	if ordered {
		fmt.Fprintf(&b, "**No race**%s between the **%s** here (goroutine %d) and the **%s** at %s (goroutine %d): every schedule orders them.\n\n",
			on, a.Op, a.Goroutine, other.Op, site(other.File, other.Line, short), other.Goroutine)
	} else {
		fmt.Fprintf(&b, "**No race found**%s between the **%s** here (goroutine %d) and the **%s** at %s (goroutine %d).\n\n",
			on, a.Op, a.Goroutine, other.Op, site(other.File, other.Line, short), other.Goroutine)
	}
	sentences := report.WhyNoRaceSentences(o, short)
	if len(sentences) == 1 {
		fmt.Fprintf(&b, "%s.\n", capitalize(sentences[0]))
		return b.String()
	}
	for k, s := range sentences {
		fmt.Fprintf(&b, "%d. %s\n", k+1, capitalize(s))
	}
	return b.String()
}
