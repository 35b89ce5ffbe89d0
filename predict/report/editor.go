// This file implements the wording of findings in the editor: diagnostic
// messages and their related information, the hover on a finding and on a
// pair that does not race, and the phrases they share with the witness
// document. All functions are pure; short names a file for the reader.

package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

func site(file string, line int, short func(string) string) string {
	if file == "" {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s:%d", short(file), line)
}

var (
	goroot   = filepath.Join(buildGOROOT, "src") + string(filepath.Separator)
	modcache = filepath.Join(buildGOPATH, "pkg", "mod") + string(filepath.Separator)
)

// IsUserFile reports whether a file is the user's code: not the standard
// library or runtime, not a dependency in the module cache, not the
// generated test main.
func IsUserFile(path string) bool {
	return filepath.IsAbs(path) && !strings.HasPrefix(path, goroot) && !strings.HasPrefix(path, modcache) &&
		filepath.Base(path) != "_testmain.go"
}

// UserFrame returns the first frame of frames in user code: where the
// user's code started a goroutine.
func UserFrame(frames []Frame) (Frame, bool) {
	for _, f := range frames {
		if IsUserFile(f.File) {
			return f, true
		}
	}
	return Frame{}, false
}

// inUserCode reports whether a witness step happened in the user's code,
// not in GOROOT (the runtime, the testing harness) or generated code.
func inUserCode(st *Step) bool { return IsUserFile(st.File) }

// userSteps returns the indices of the witness steps in user code.
// Witnesses hold every event up to the bug, most of them the test
// harness starting up: the user's steps tell the story.
func userSteps(f *Finding) []int {
	var out []int
	for i := range f.Witness {
		if inUserCode(&f.Witness[i]) {
			out = append(out, i)
		}
	}
	return out
}

// storySteps returns the witness steps in user code that tell the story:
// synchronisation and the finding's own accesses, without the reads and
// writes of other memory.
func storySteps(f *Finding) []int {
	access := map[int]bool{}
	for _, a := range f.Accesses {
		access[a.Event] = true
	}
	var out []int
	for _, i := range userSteps(f) {
		st := &f.Witness[i]
		if access[st.Event] || st.Op != "read" && st.Op != "write" {
			out = append(out, i)
		}
	}
	return out
}

// createdAt says where the goroutine of a was started, or "" when only
// the test harness started it.
func createdAt(a *Access, short func(string) string) string {
	if f, ok := UserFrame(a.Created); ok {
		return "created at " + site(f.File, f.Line, short)
	}
	return ""
}

// transaction splits the accesses of an atomicity violation into those
// of the goroutine whose transaction is broken (the goroutine with the
// most accesses), in recorded order, and the others.
func transaction(f *Finding) (tx, others []int) {
	count := map[int]int{}
	best := 0
	for _, a := range f.Accesses {
		count[a.Goroutine]++
		if count[a.Goroutine] > count[best] {
			best = a.Goroutine
		}
	}
	for i, a := range f.Accesses {
		if a.Goroutine == best {
			tx = append(tx, i)
		} else {
			others = append(others, i)
		}
	}
	sort.SliceStable(tx, func(x, y int) bool { return f.Accesses[tx[x]].Event < f.Accesses[tx[y]].Event })
	return tx, others
}

// DiagnosticMessage describes access i of f for a diagnostic there: what
// happens at it and the other accesses with their places and goroutines.
func DiagnosticMessage(f *Finding, i int, short func(string) string) string {
	var b strings.Builder
	b.WriteString(Title(f))
	if f.Variable != "" {
		fmt.Fprintf(&b, " on %s", f.Variable)
	}
	b.WriteString(": ")
	if ObservedBlocking(f) {
		// Where each goroutine was left, this one's first.
		ss := BlockedSentences(f, short)
		if i < len(ss) {
			ss[0], ss[i] = ss[i], ss[0]
		}
		b.WriteString(strings.Join(ss, "; "))
		return b.String()
	}
	a := &f.Accesses[i]
	at := func(j int) string {
		o := &f.Accesses[j]
		return fmt.Sprintf("%s at %s", o.Op, site(o.File, o.Line, short))
	}
	// Every goroutine named gets where it was created, so that the
	// diagnostics of one finding's accesses tell the same facts.
	created := func(j int) string {
		if c := createdAt(&f.Accesses[j], short); c != "" {
			return " (" + c + ")"
		}
		return ""
	}
	by := func(j int) string {
		return fmt.Sprintf("%s by goroutine %d%s", at(j), f.Accesses[j].Goroutine, created(j))
	}
	self := fmt.Sprintf("%s by goroutine %d%s", a.Op, a.Goroutine, created(i))
	if f.Kind == KindAtomicity {
		tx, others := transaction(f)
		inTx := false
		for _, j := range tx {
			inTx = inTx || j == i
		}
		var parts []string
		switch {
		case inTx:
			for _, j := range tx {
				if j != i {
					parts = append(parts, at(j))
				}
			}
			var between []string
			for _, j := range others {
				between = append(between, by(j))
			}
			fmt.Fprintf(&b, "%s", self)
			if len(parts) > 0 {
				fmt.Fprintf(&b, " and %s", strings.Join(parts, " and "))
			}
			if len(between) > 0 {
				fmt.Fprintf(&b, " can have %s run between them", strings.Join(between, " and "))
			}
		default:
			for _, j := range tx {
				parts = append(parts, at(j))
			}
			fmt.Fprintf(&b, "%s can run between %s of goroutine %d", self, strings.Join(parts, " and "), f.Accesses[tx[0]].Goroutine)
		}
	} else {
		b.WriteString(self)
		for j := range f.Accesses {
			if j != i {
				fmt.Fprintf(&b, " and %s", by(j))
			}
		}
	}
	return b.String()
}

// hoverSteps is how many witness steps hover shows: the first ones of
// the story (storySteps).
const hoverSteps = 8

// HoverMarkdown explains access i of f: a fenced block with its source,
// then who the goroutines are, what orders what and what does not, and
// the first steps of the witness.
func HoverMarkdown(f *Finding, i int, short func(string) string, src func(string, int) string) string {
	var b strings.Builder
	a := &f.Accesses[i]
	if line := src(a.File, a.Line); line != "" {
		fmt.Fprintf(&b, "```go\n%s\n```\n\n", line)
	}
	fmt.Fprintf(&b, "**%s**", Title(f))
	if f.Variable != "" {
		fmt.Fprintf(&b, " on `%s`", f.Variable)
	}
	fmt.Fprintf(&b, " (%s) · [%s](%s#%s)\n\n---\n\n", Verdict(f), f.Kind, DocURL, f.Kind)

	access := func(j int) string {
		o := &f.Accesses[j]
		if j == i {
			return fmt.Sprintf("the **%s** here (goroutine %d)", o.Op, o.Goroutine)
		}
		return fmt.Sprintf("the **%s** at %s (goroutine %d)", o.Op, site(o.File, o.Line, short), o.Goroutine)
	}
	b.WriteString(f.Kind.hoverStory()(f, access, short))
	if f.Count > 1 {
		fmt.Fprintf(&b, "The run showed this pair of places %d times.\n\n", f.Count)
	}

	b.WriteString("**Goroutines**\n\n")
	seen := map[int]bool{}
	for j := range f.Accesses {
		o := &f.Accesses[j]
		if seen[o.Goroutine] {
			continue
		}
		seen[o.Goroutine] = true
		if fr, ok := UserFrame(o.Created); ok {
			fmt.Fprintf(&b, "- goroutine %d was created at %s", o.Goroutine, site(fr.File, fr.Line, short))
			if line := src(fr.File, fr.Line); line != "" {
				fmt.Fprintf(&b, ": `%s`", line)
			}
			b.WriteString("\n")
		} else {
			fmt.Fprintf(&b, "- goroutine %d is the test's own goroutine\n", o.Goroutine)
		}
	}

	b.WriteString("\n**Ordering**\n\n")
	if f.Predicted {
		if sentences := ReorderedSentences(f, short); len(sentences) > 0 {
			b.WriteString("- Only the schedule kept the accesses apart: ")
			b.WriteString(strings.Join(sentences, "; "))
			b.WriteString(".\n")
		} else {
			b.WriteString("- The recorded run ordered the accesses only through the schedule it happened to take; the witness is another schedule of the same test.\n")
		}
	} else {
		b.WriteString("- The recorded run itself left the accesses unordered (observed).\n")
	}
	if line := replayHover(f); line != "" {
		b.WriteString(line)
	}
	if o := f.Origin; o != nil && o.Run > 0 {
		b.WriteString("- **Found by exploring**: " + o.Sentence() + "; the accesses and the witness are that run's.\n")
	}
	b.WriteString("- Nothing else orders the accesses: no go statement, channel operation, WaitGroup, Once or atomic leads from one access to the other, and no lock is held around both. seer followed every happens-before edge of the recording, and its checker replayed the witness.\n")

	if steps := storySteps(f); len(steps) > 0 {
		access := map[int]bool{}
		for _, a := range f.Accesses {
			access[a.Event] = true
		}
		shown := min(len(steps), hoverSteps)
		fmt.Fprintf(&b, "\n**Witness schedule** (synchronisation and the accesses, %d of %d steps; *Show witness schedule* shows every step in your code)\n\n", shown, len(steps))
		for k, i := range steps[:shown] {
			st := &f.Witness[i]
			text := StepText(st)
			if obj := st.Object; obj != "" && !strings.Contains(obj, " ") {
				text = strings.Replace(text, obj, "`"+obj+"`", 1) // an expression from the source
			}
			line := fmt.Sprintf("goroutine %d %s at %s", st.Goroutine, text, site(st.File, st.Line, short))
			if access[st.Event] {
				line = "**" + line + "**"
			}
			fmt.Fprintf(&b, "%d. %s\n", k+1, line)
		}
		if prefix := PrefixPhrase(f, short); prefix != "" {
			fmt.Fprintf(&b, "\nThe witness starts from %s.\n", prefix)
		}
	}
	return b.String()
}

// pattern names an atomicity violation's interleaving (read-write-read,
// ...): the transaction's first access, the intruder, the transaction's
// last access.
func pattern(f *Finding, tx, others []int) string {
	if len(tx) < 2 || len(others) == 0 {
		return ""
	}
	word := func(op string) string {
		if strings.Contains(op, "write") || strings.Contains(op, "store") {
			return "write"
		}
		return "read"
	}
	return word(f.Accesses[tx[0]].Op) + "-" + word(f.Accesses[others[0]].Op) + "-" + word(f.Accesses[tx[len(tx)-1]].Op)
}

// WhyNoRaceHover explains, from access i of o, why it does not race with
// the other access: the rules in order, as a numbered list. first says
// whether this is the first explanation of the hover, which shows the
// source line.
func WhyNoRaceHover(o *Ordered, i int, short func(string) string, src func(string, int) string, first bool) string {
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
	sentences := WhyNoRaceSentences(o, short)
	if len(sentences) == 1 {
		fmt.Fprintf(&b, "%s.\n", capitalizeFirst(sentences[0]))
		return b.String()
	}
	for k, s := range sentences {
		fmt.Fprintf(&b, "%d. %s\n", k+1, capitalizeFirst(s))
	}
	return b.String()
}

// replayHover is the hover's line on f's replay, or "" if none was run.
func replayHover(f *Finding) string {
	switch f.Confirmed {
	case "":
		return ""
	case ConfirmedYes:
		return "- **Confirmed by replay**: seer ran the test again under the witness schedule, and " + f.Replay + ".\n"
	case ConfirmedNo:
		return "- **Not confirmed by replay**: " + f.Replay + ".\n"
	}
	return "- Replay not tried: " + f.Replay + ".\n"
}

// AccessPhrase names an access by what it does and its goroutine: "read
// by goroutine 7", as a diagnostic's related information does.
func AccessPhrase(a *Access) string {
	return fmt.Sprintf("%s by goroutine %d", a.Op, a.Goroutine)
}

// CreatedHere is the related information at the go statement that created
// goroutine g.
func CreatedHere(g int) string {
	return fmt.Sprintf("goroutine %d is created here", g)
}

// VerdictNote ends a finding's diagnostic message: the verdict, and for
// every diagnostic but the first of the finding (first false), a pointer
// to the details the first carries.
func VerdictNote(f *Finding, first bool) string {
	if first {
		return fmt.Sprintf(" (%s)", Verdict(f))
	}
	return fmt.Sprintf(" (%s; see details)", Verdict(f))
}

// Capitalize makes a sentence's first letter upper case.
func Capitalize(s string) string { return capitalizeFirst(s) }

// OtherAccessSentence names the access that an editor could not open: "the
// other access is the write by goroutine 7 at /src/x.go:21".
func OtherAccessSentence(o *Access) string {
	return fmt.Sprintf("the other access is the %s by goroutine %d at %s:%d", o.Op, o.Goroutine, o.File, o.Line)
}

// A hoverStory is the hover's paragraphs that say what a finding's
// accesses do, one function a kind (the kinds table's hover): access
// names access j, short names a file.
type hoverStory func(f *Finding, access func(j int) string, short func(string) string) string

// hoverStory returns k's story, a race's for a kind seer does not report.
func (k Kind) hoverStory() hoverStory {
	if in := k.info(); in != nil && in.hover != nil {
		return in.hover
	}
	return raceHover
}

// accessList names every access of f, joined by "and".
func accessList(f *Finding, access func(int) string) string {
	var parts []string
	for j := range f.Accesses {
		parts = append(parts, access(j))
	}
	return capitalizeFirst(strings.Join(parts, " and "))
}

func raceHover(f *Finding, access func(int) string, short func(string) string) string {
	return fmt.Sprintf("%s touch the same memory, at least one of them writes, and nothing orders them.\n\n", accessList(f, access))
}

func atomicityHover(f *Finding, access func(int) string, short func(string) string) string {
	var b strings.Builder
	tx, others := transaction(f)
	var in, out []string
	for _, j := range tx {
		in = append(in, access(j))
	}
	for _, j := range others {
		out = append(out, access(j))
	}
	fmt.Fprintf(&b, "%s belong to one transaction of goroutine %d (a critical section, or a `//seer:atomic` function), and %s can run between them", capitalizeFirst(strings.Join(in, " and ")), f.Accesses[tx[0]].Goroutine, strings.Join(out, " and "))
	if p := pattern(f, tx, others); p != "" {
		fmt.Fprintf(&b, ": a %s interleaving that no serial order of the transactions gives", p)
	}
	b.WriteString(".\n\n")
	return b.String()
}

func misuseHover(f *Finding, access func(int) string, short func(string) string) string {
	return MisuseSentence(f) + "\n\n"
}

// blockedHover tells where each goroutine of an observed leak or deadlock
// was left.
func blockedHover(f *Finding, short func(string) string) string {
	var b strings.Builder
	for _, s := range BlockedSentences(f, short) {
		fmt.Fprintf(&b, "%s.\n\n", capitalizeFirst(s))
	}
	return b.String()
}

func deadlockHover(f *Finding, access func(int) string, short func(string) string) string {
	if ObservedBlocking(f) {
		return blockedHover(f, short)
	}
	var b strings.Builder
	if Title(f) == KindDeadlock.heading() {
		fmt.Fprintf(&b, "%s each wait for ever, in a schedule that nothing rules out: every goroutine that could let one of them go on waits too, or has ended.\n\n", accessList(f, access))
	} else {
		fmt.Fprintf(&b, "%s each wait for a lock that another of these goroutines holds, in a schedule that nothing rules out.\n\n", accessList(f, access))
	}
	if s := CycleSentence(f, short); s != "" {
		fmt.Fprintf(&b, "%s.\n\n", capitalizeFirst(s))
	}
	for _, s := range append(HoldSentences(f, short), RepairedSentences(f, short)...) {
		fmt.Fprintf(&b, "%s.\n\n", capitalizeFirst(s))
	}
	return b.String()
}

func leakHover(f *Finding, access func(int) string, short func(string) string) string {
	if s := LeakSentence(f, short); s != "" {
		return capitalizeFirst(s) + ".\n\n" + stuckLeakHover(f, short) // leak_selectstuck.go
	}
	if ObservedBlocking(f) {
		return blockedHover(f, short)
	}
	return raceHover(f, access, short)
}

// ShowWitnessTitle is the title of the editor's action that shows a
// finding's witness schedule.
const ShowWitnessTitle = "Show witness schedule"

// OtherAccessTitle is the title of the editor's jump to access o, whose
// file short names for the reader.
func OtherAccessTitle(o *Access, short string) string {
	return fmt.Sprintf("Go to the other access (%s at %s:%d)", o.Op, short, o.Line)
}

// RerunTitle is the title of the editor's action that records and
// predicts test again ("" for all the package's tests).
func RerunTitle(test string) string {
	if test == "" {
		test = "all tests"
	}
	return "Re-run prediction of " + test
}

// ReplayTitle is the title of the editor's action that re-runs test
// under a finding's witness.
func ReplayTitle(test string) string {
	return "Replay witness (re-run " + test + " under it)"
}
