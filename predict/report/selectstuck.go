// This file tells why a select can never proceed (issue 32, item 5;
// predict/deadlock_select.go): the goroutine's case in the run lost its
// partner, and each other case, named by its channel, has no operation
// left that could complete it.

package report

import (
	"fmt"
	"strings"
)

// A StuckSelect is a select a goroutine waits in for ever in the
// witness: the goroutine, the select's place, the channel of the case it
// took in the run and its other cases.
type StuckSelect struct {
	Goroutine int          `json:"goroutine"`
	File      string       `json:"file"`
	Line      int          `json:"line"`
	Taken     string       `json:"taken,omitempty"` // the taken case's channel
	Others    []SelectCase `json:"others"`
}

// A SelectCase is one other case of a stuck select: whether it sends,
// its channel's name ("" if unknown), and the places of the operations
// in the program that could complete it (none: nothing could).
type SelectCase struct {
	Send     bool     `json:"send,omitempty"`
	Channel  string   `json:"channel,omitempty"`
	Partners []Access `json:"partners,omitempty"`
}

// StuckSentences tells, for each select f's witness leaves waiting for
// ever (Finding.Stuck), why none of its cases can proceed: "goroutine 2's
// select at p_test.go:19 can never proceed: its send on ch has lost its
// partner, and its receive from quit can never complete: no operation in
// the program could complete it".
func StuckSentences(f *Finding, rel func(string) string) []string {
	var out []string
	for _, s := range f.Stuck {
		at := positioner(rel)
		var b strings.Builder
		fmt.Fprintf(&b, "goroutine %d's select at %s can never proceed: its case", s.Goroutine, at(s.File, s.Line))
		if s.Taken != "" {
			fmt.Fprintf(&b, " on %s", s.Taken)
		}
		b.WriteString(" taken in the recorded run has lost its partner")
		for _, c := range s.Others {
			b.WriteString(", and its ")
			b.WriteString(caseNoun(c))
			b.WriteString(" can never complete: ")
			if len(c.Partners) == 0 {
				b.WriteString("no operation in the program could complete it")
				continue
			}
			places := make([]string, len(c.Partners))
			for k, p := range c.Partners {
				places[k] = at(p.File, p.Line)
			}
			fmt.Fprintf(&b, "the only operations that could (at %s) do not run again, every goroutine having ended or waiting for ever", strings.Join(places, ", "))
		}
		out = append(out, b.String())
	}
	return out
}

// caseNoun names a select's case in prose: "receive from quit".
func caseNoun(c SelectCase) string {
	noun, prep := "receive", " from "
	if c.Send {
		noun, prep = "send", " on "
	}
	if c.Channel == "" {
		return noun + " case"
	}
	return noun + prep + c.Channel
}
