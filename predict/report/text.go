// This file implements the text report that `seer check` and `seer
// predict` print: the tests that did not pass, the goroutines they leaked,
// each finding go vet style with its accesses, story and the end of its
// witness, and a line that sums up each package.

package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// outcomeWords says what a test's outcome means, in the order the
// summary counts them.
var outcomeWords = []struct{ outcome, words string }{
	{"pass", "passed"},
	{"fail", "failed"},
	{"skip", "skipped"},
	{"panic", "panicked"},
	{"timeout", "timed out"},
	{"exit", "exited early"},
	{"killed", "killed"},
	{"not-run", "not run"},
}

func words(outcome string) string {
	for _, o := range outcomeWords {
		if o.outcome == outcome {
			return o.words
		}
	}
	return outcome
}

// Render writes rep as text.
func (r Text) Render(w io.Writer, rep *Report) error {
	rel := r.rel()
	ew := &errWriter{w: w}
	writeText(ew, rep, rel)
	return ew.err
}

func writeText(w io.Writer, rep *Report, rel func(string) string) {
	notRun := map[string][]string{}
	for _, t := range rep.Tests {
		switch t.Outcome {
		case "build-error":
			for _, e := range t.Errors {
				fmt.Fprintln(w, e)
			}
			fmt.Fprintf(w, "seer: %s does not build\n", t.Package)
		case "not-run":
			notRun[t.Package] = append(notRun[t.Package], t.Name)
		case "pass", "skip":
			for _, e := range t.Errors {
				fmt.Fprintf(w, "seer: %s.%s: %s\n", t.Package, t.Name, e)
			}
		case "fail":
			fmt.Fprintf(w, "seer: %s.%s: failed; what it recorded was analysed\n", t.Package, t.Name)
			for _, e := range t.Errors {
				fmt.Fprintf(w, "seer: %s.%s: %s\n", t.Package, t.Name, e)
			}
			writeOutput(w, t.Output)
		default:
			msg := ""
			if len(t.Errors) > 0 {
				msg = ": " + t.Errors[0]
			}
			fmt.Fprintf(w, "seer: %s.%s: %s%s; what it recorded was analysed\n", t.Package, t.Name, words(t.Outcome), msg)
			for _, e := range t.Errors[min(1, len(t.Errors)):] {
				fmt.Fprintf(w, "seer: %s.%s: %s\n", t.Package, t.Name, e)
			}
			writeOutput(w, t.Output)
		}
	}
	for _, p := range rep.Packages {
		if names := notRun[p.Path]; len(names) > 0 {
			fmt.Fprintf(w, "seer: %s: %s not run: the run ended before %s started: %s\n",
				p.Path, plural(len(names), "test"), them(len(names)), strings.Join(names, ", "))
		}
	}
	for _, t := range rep.Tests {
		if n := len(t.Leaked); n > 0 {
			fmt.Fprintf(w, "seer: %s.%s: %d goroutine(s) still running when the test ended, created at %s\n",
				t.Package, t.Name, n, strings.Join(groupSites(relAll(t.Leaked, rel)), ", "))
		}
	}
	for _, f := range rep.Findings {
		fmt.Fprintln(w, FindingText(&f, rel))
		if f.Origin != nil {
			fmt.Fprintln(w, "\t"+f.Origin.Sentence())
		}
	}
	writeExplorations(w, rep)
	for _, p := range rep.Packages {
		fmt.Fprintf(w, "seer: %s\n", packageSummary(p))
	}
}

// writeOutput writes a test's own output under the line that says how it
// ended, as go test prints a failed test's: each line indented, as -v
// indents a test's log lines (its own already are).
func writeOutput(w io.Writer, output []string) {
	for _, line := range output {
		if !strings.HasPrefix(line, "    ") {
			line = "    " + line
		}
		fmt.Fprintln(w, line)
	}
}

// packageSummary is the line that sums up one package.
func packageSummary(p Package) string {
	switch p.Status {
	case "no-package":
		return fmt.Sprintf("%s: %s", p.Path, p.Error)
	case "no-test-files":
		return fmt.Sprintf("%s: no test files", p.Path)
	case "build-error":
		return fmt.Sprintf("%s: does not build", p.Path)
	}
	total := 0
	var counts []string
	for _, o := range outcomeWords {
		if n := p.Outcomes[o.outcome]; n > 0 {
			total += n
			counts = append(counts, fmt.Sprintf("%d %s", n, o.words))
		}
	}
	for outcome, n := range p.Outcomes { // none, unless check learns new ones
		if words(outcome) == outcome {
			total += n
			counts = append(counts, fmt.Sprintf("%d %s", n, outcome))
		}
	}
	tests := "no tests to run"
	if total > 0 {
		tests = fmt.Sprintf("%s (%s)", plural(total, "test"), strings.Join(counts, ", "))
	}
	findings := "no findings"
	if p.Findings > 0 {
		findings = plural(p.Findings, "finding")
	}
	cached := ""
	if p.Cached {
		cached = " (cached)"
	}
	return fmt.Sprintf("%s: %s, %s, %s%s", p.Path, tests, plural(p.Events, "event"), findings, cached)
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "they"
}

// groupSites groups repeated positions, in the order they first appear:
// "a.go:3 (×73), b.go:9".
func groupSites(sites []string) []string {
	count := map[string]int{}
	var order []string
	for _, s := range sites {
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	out := make([]string, len(order))
	for i, s := range order {
		out[i] = s
		if n := count[s]; n > 1 {
			out[i] = fmt.Sprintf("%s (×%d)", s, n)
		}
	}
	return out
}

// relAll applies rel to the file part of file:line positions.
func relAll(positions []string, rel func(string) string) []string {
	out := make([]string, len(positions))
	for i, p := range positions {
		if j := strings.LastIndex(p, ":"); j > 0 {
			out[i] = rel(p[:j]) + p[j:]
		} else {
			out[i] = p
		}
	}
	return out
}

// libraryFrames names the frames of an access inside code that is not
// the user's (the standard library, a dependency outside the module),
// innermost first, up to the user's line that the finding is reported at:
// the calls that explain why that line touches the memory.
func libraryFrames(a Access) string {
	var parts []string
	for _, fr := range a.Stack {
		if fr.File == a.File && fr.Line == a.Line {
			break
		}
		if len(parts) == 3 {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%s:%d)", fr.Func, filepath.Base(fr.File), fr.Line))
	}
	if len(parts) == len(a.Stack) {
		return "" // the reported line is not on the stack: nothing to explain
	}
	return strings.Join(parts, " called from ")
}

// FindingText renders one finding go vet style, as the text report
// prints it.
func FindingText(fp *Finding, rel func(string) string) string {
	f := *fp
	var b strings.Builder
	how := "predicted"
	if !f.Predicted {
		how = "observed"
	}
	a := f.Accesses[0]
	what := Title(&f)
	pos := func(a Access) string {
		if a.File == "" {
			return fmt.Sprintf("%d", a.Line)
		}
		if a.Column > 0 {
			return fmt.Sprintf("%s:%d:%d", rel(a.File), a.Line, a.Column)
		}
		return fmt.Sprintf("%s:%d", rel(a.File), a.Line)
	}
	on := ""
	if f.Variable != "" {
		on = " on " + f.Variable
	}
	fmt.Fprintf(&b, "%s: %s%s (%s", pos(a), what, on, how)
	if f.Test != "" {
		fmt.Fprintf(&b, ", %s", f.Test)
	}
	if f.Count > 1 && !ObservedBlocking(&f) {
		fmt.Fprintf(&b, ", %d times", f.Count)
	}
	b.WriteString(")")
	if ObservedBlocking(&f) {
		for _, sentence := range BlockedSentences(&f, rel) {
			fmt.Fprintf(&b, "\n\t%s", sentence)
		}
		return b.String() // the witness is the recorded run
	}
	for _, a := range f.Accesses {
		fmt.Fprintf(&b, "\n\t%s by goroutine %d at %s%s", a.Op, a.Goroutine, pos(a), createdPhrase(&a, rel))
		if inside := libraryFrames(a); inside != "" {
			fmt.Fprintf(&b, "\n\t\tinside %s", inside)
		}
	}
	if line := ReplaySentence(&f); line != "" {
		fmt.Fprintf(&b, "\n\t%s", line)
	}
	if s := LeakSentence(&f, rel); s != "" {
		fmt.Fprintf(&b, "\n\t%s", s)
	}
	if s := CycleSentence(&f, rel); s != "" {
		fmt.Fprintf(&b, "\n\t%s", s)
	}
	for _, sentence := range append(append(HoldSentences(&f, rel), RepairedSentences(&f, rel)...), ReorderedSentences(&f, rel)...) {
		fmt.Fprintf(&b, "\n\t%s", sentence)
	}
	if n := len(f.Witness); n > 0 {
		b.WriteString("\n\twitness: ")
		if prefix := PrefixPhrase(&f, rel); prefix != "" {
			fmt.Fprintf(&b, "%s, then ", prefix)
		}
		fmt.Fprintf(&b, "%s,%s", plural(n, "step"), f.Kind.witnessEnding()(&f))
	}
	return b.String()
}

// ReplaySentence says what replaying f's witness showed, or "" when it was
// not asked for.
func ReplaySentence(f *Finding) string {
	switch f.Confirmed {
	case "":
		return ""
	case ConfirmedYes:
		return "replay: confirmed: " + f.Replay
	case ConfirmedNo:
		return "replay: not confirmed: " + f.Replay
	}
	return "replay: not tried: " + f.Replay
}

// A witnessEnding is how the text report's witness line ends, one
// function a kind (the kinds table's ending): " ending" and the last steps
// of the story, or " ending with" what is next.
type witnessEnding func(f *Finding) string

// witnessEnding returns k's ending, the story's for a kind seer does not
// report.
func (k Kind) witnessEnding() witnessEnding {
	if in := k.info(); in != nil && in.ending != nil {
		return in.ending
	}
	return storyEnding
}

// storyEnding ends with the last four steps of the story.
func storyEnding(f *Finding) string {
	var b strings.Builder
	b.WriteString(" ending")
	var story []Step
	for _, s := range f.Witness {
		if StoryStep(&s) {
			story = append(story, s)
		}
	}
	for k, s := range story[max(0, len(story)-4):] {
		if k > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " g%d %s", s.Goroutine, StepText(&s))
		if s.File != "" {
			fmt.Fprintf(&b, " at %s:%d", filepath.Base(s.File), s.Line)
		}
	}
	return b.String()
}

// endingWith ends with accesses, each "g7" and what (which takes the
// access's op), of and its variable, and its place.
func endingWith(accesses []Access, what, of string) string {
	var b strings.Builder
	b.WriteString(" ending with")
	for k, a := range accesses {
		if k > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " g%d"+what, a.Goroutine, a.Op)
		if a.Variable != "" {
			fmt.Fprintf(&b, "%s%s", of, a.Variable)
		}
		if a.File != "" {
			fmt.Fprintf(&b, " at %s:%d", filepath.Base(a.File), a.Line)
		}
	}
	return b.String()
}

// misuseEnding: the failing operation is the last access, next in its
// goroutine (a close or a Wait before it is context).
func misuseEnding(f *Finding) string {
	return endingWith(f.Accesses[len(f.Accesses)-1:], "'s next step %s", " ")
}

// waitGroupReuseEnding: the Wait and the Add are both next.
func waitGroupReuseEnding(f *Finding) string {
	return endingWith(f.Accesses, "'s next step %s", " ")
}

// deadlockEnding: each goroutine blocked in its operation.
func deadlockEnding(f *Finding) string {
	return endingWith(f.Accesses, " blocked in %s", " of ")
}
