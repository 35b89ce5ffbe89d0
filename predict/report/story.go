// This file implements the sentences that tell a finding's story, shared
// by `seer check`, the editor's hover and witness document, and SARIF:
// which recorded events a witness starts from, and which synchronisation
// it runs in the other order. A rel function shortens file names for the
// reader (the CLI's relative paths, the editor's short names).

package report

import (
	"fmt"
	"strings"
)

// maxPrefixStops is how many goroutines PrefixPhrase names the positions
// of; the others it counts. A witness on a pool's queue stops hundreds of
// workers, and a sentence that names each is no longer read (the
// report's PrefixStops keep them all).
const maxPrefixStops = 4

// PrefixPhrase describes the recorded events that f's witness runs before
// its steps, or "" when the steps are the whole schedule: "the recorded
// run before event 3792, less goroutine 9's events from bank.go:21 on (3
// events)".
func PrefixPhrase(f *Finding, rel func(string) string) string {
	if f.PrefixEnd <= 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the recorded run before event %d", f.PrefixEnd)
	var parts []string
	harness, harnessEvents := 0, 0
	more, moreEvents := 0, 0
	for _, s := range f.PrefixStops {
		if s.Harness {
			harness++
			harnessEvents += s.Left
			continue
		}
		if len(parts) == maxPrefixStops {
			more++
			moreEvents += s.Left
			continue
		}
		parts = append(parts, fmt.Sprintf("goroutine %d's events from %s on (%s)", s.Goroutine, position(s.File, s.Line, rel), plural(s.Left, "event")))
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("the later events of %d more goroutines (%s)", more, plural(moreEvents, "event")))
	}
	switch {
	case harness == 1:
		parts = append(parts, fmt.Sprintf("%s of a goroutine in the runtime or the test harness", plural(harnessEvents, "later event")))
	case harness > 1:
		parts = append(parts, fmt.Sprintf("%s of %d goroutines in the runtime or the test harness", plural(harnessEvents, "later event"), harness))
	}
	if len(parts) > 0 {
		b.WriteString(", less ")
		b.WriteString(joinAnd(parts))
	}
	return b.String()
}

// ReorderedSentences says, for each lock whose critical sections f's
// witness runs in another order than the recorded run, what ran first
// there and what runs first in the witness: "in the recorded run goroutine
// 9's critical section on a.mu at bank.go:22 ran before goroutine 10's at
// :32; the witness runs goroutine 10's first, and nothing else orders
// them".
func ReorderedSentences(f *Finding, rel func(string) string) []string {
	var out []string
	for _, r := range Reorderings(f, rel) {
		out = append(out, r.Sentence)
	}
	return out
}

// A Reordering is one lock's critical sections that a witness runs in
// another order than the recorded run: the acquisitions (the last one is
// the one the witness runs first) and the sentence that tells it
// (ReorderedSentences), so that a reader, such as the editor's related
// locations, can put the sentence at each of them.
type Reordering struct {
	Syncs    []Sync
	Sentence string
}

// Reorderings is ReorderedSentences with the acquisitions each sentence
// is about.
func Reorderings(f *Finding, rel func(string) string) []Reordering {
	var out []Reordering
	start := 0
	marked := false
	for _, s := range f.Reordered {
		marked = marked || s.First
	}
	for k := range f.Reordered {
		// Reports without First (older ones) hold one lock's group.
		if !f.Reordered[k].First && (marked || k < len(f.Reordered)-1) {
			continue
		}
		group, last := f.Reordered[start:k], &f.Reordered[k]
		start = k + 1
		if len(group) == 0 {
			continue
		}
		section := "critical section" // of group[0], whose words come first
		if group[0].Op == "rlock" {
			section = "read-locked section"
		}
		on := ""
		if last.Object != "" {
			on = " on " + last.Object
		}
		at := positioner(rel)
		var before []string
		for i, s := range group {
			what := fmt.Sprintf("goroutine %d's", s.Goroutine)
			if i == 0 {
				what += " " + section + on
			}
			before = append(before, fmt.Sprintf("%s at %s", what, at(s.File, s.Line)))
		}
		out = append(out, Reordering{Syncs: f.Reordered[k-len(group) : k+1], Sentence: fmt.Sprintf("in the recorded run %s ran before goroutine %d's at %s; the witness runs goroutine %d's first, and nothing else orders them",
			joinAnd(before), last.Goroutine, at(last.File, last.Line), last.Goroutine)})
	}
	return out
}

// StoryStep reports whether a witness step belongs in the story told in
// words: not a memory access made inside a library call (a mutex's read
// of its own state), which the call's own step tells.
func StoryStep(s *Step) bool { return s.Within == "" }

// StepText is what a step does, in words: its Text, or its operation and
// object for reports written before steps had words.
func StepText(s *Step) string {
	if s.Text != "" {
		return s.Text
	}
	if s.Object != "" {
		return s.Op + " " + s.Object
	}
	return s.Op
}

// positioner returns a function that names positions for a sentence: a
// position in the file of the one before it is told by its line alone
// (":21").
func positioner(rel func(string) string) func(file string, line int) string {
	last := ""
	return func(file string, line int) string {
		if file != "" && file == last {
			return fmt.Sprintf(":%d", line)
		}
		last = file
		return position(file, line, rel)
	}
}

func position(file string, line int, rel func(string) string) string {
	if file == "" {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s:%d", rel(file), line)
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// joinAnd joins "a", "b", "c" as "a, b and c".
func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
