// This file implements the witness schedule as text, in the two layouts
// seer shows it in: the list that `seer witness` prints, and the columns
// of the editor's witness document.

package report

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxCell bounds the width of a goroutine's column.
const maxCell = 40

// witnessDocument renders the witness of f.
func witnessDocument(f *Finding, short func(string) string, src func(string, int) string) string {
	var b strings.Builder
	title := Title(f)
	if f.Variable != "" {
		title += " on " + f.Variable
	}
	test := f.Test
	if test == "" {
		test = "the test"
	}
	fmt.Fprintf(&b, "seer witness schedule: %s in %s (%s)\n\n", title, test, Verdict(f))
	b.WriteString("A schedule of the same test that seer's independent checker replayed: each\n")
	b.WriteString("goroutine runs what it ran in the recorded run, in the same order, and every\n")
	b.WriteString("read sees the write it saw there, up to the finding's accesses (marked <==).\n")
	b.WriteString("Read from top to bottom; each goroutine has its own column.\n")
	steps := userSteps(f)
	if left := len(f.Witness) - len(steps); left > 0 {
		fmt.Fprintf(&b, "The %d steps the runtime and the test harness take are left out; step\nnumbers count them.\n", left)
	}
	if prefix := PrefixPhrase(f, short); prefix != "" {
		fmt.Fprintf(&b, "The schedule starts from %s; the steps below follow.\n", prefix)
	}
	if sentences := ReorderedSentences(f, short); len(sentences) > 0 {
		b.WriteString("\nRun in the other order than recorded:\n")
		for _, sentence := range sentences {
			fmt.Fprintf(&b, "  %s.\n", capitalizeFirst(sentence))
		}
	}
	b.WriteString("\n")

	var gs []int
	col := map[int]int{}
	for _, i := range steps {
		st := &f.Witness[i]
		if _, ok := col[st.Goroutine]; !ok {
			col[st.Goroutine] = len(gs)
			gs = append(gs, st.Goroutine)
		}
	}
	accessAt := map[int]*Access{}
	for k := range f.Accesses {
		accessAt[f.Accesses[k].Event] = &f.Accesses[k]
	}
	cells := make([]string, len(steps))
	width := make([]int, len(gs))
	for k, g := range gs {
		width[k] = utf8.RuneCountInString(fmt.Sprintf("goroutine %d", g))
	}
	for k, i := range steps {
		st := &f.Witness[i]
		cell := StepText(st) + " " + site(st.File, st.Line, short)
		cells[k] = clip(cell, maxCell)
		width[col[st.Goroutine]] = max(width[col[st.Goroutine]], utf8.RuneCountInString(cells[k]))
	}
	row := func(step string, cellCol int, cell, source string) {
		fmt.Fprintf(&b, "%5s", step)
		for k := range gs {
			text := ""
			if k == cellCol {
				text = cell
			}
			fmt.Fprintf(&b, "  %s", pad(text, width[k]))
		}
		b.WriteString("  " + source + "\n")
	}
	header := make([]string, len(gs))
	for k, g := range gs {
		header[k] = fmt.Sprintf("goroutine %d", g)
	}
	fmt.Fprintf(&b, "%5s", "step")
	for k := range gs {
		fmt.Fprintf(&b, "  %s", pad(header[k], width[k]))
	}
	b.WriteString("  source\n")
	for k, i := range steps {
		st := &f.Witness[i]
		source := src(st.File, st.Line)
		if a, ok := accessAt[st.Event]; ok {
			source += "   <== " + a.Op
		}
		row(fmt.Sprint(i+1), col[st.Goroutine], cells[k], source)
	}
	return trimLines(b.String())
}

func pad(s string, w int) string {
	if n := utf8.RuneCountInString(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

func clip(s string, w int) string {
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-3]) + "..."
}

// trimLines removes trailing blanks from each line.
func trimLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// witnessList is the finding as seer check prints it, then its steps in
// user code, one a line.
func witnessList(f *Finding, rel func(string) string, harness func(string) bool) []byte {
	var b bytes.Buffer
	fmt.Fprintln(&b, FindingText(f, rel))
	access := map[int]string{}
	for _, a := range f.Accesses {
		access[a.Event] = a.Op
	}
	fmt.Fprintf(&b, "\nwitness steps (in user code; step numbers count all %d):\n", len(f.Witness))
	for i := range f.Witness {
		s := &f.Witness[i]
		_, bug := access[s.Event]
		if !bug && (!StoryStep(s) || harness(s.File)) {
			continue
		}
		mark := ""
		if bug {
			mark = "   <== " + access[s.Event]
		}
		pos := fmt.Sprintf("line %d", s.Line)
		if s.File != "" {
			pos = fmt.Sprintf("%s:%d", rel(s.File), s.Line)
		}
		fmt.Fprintf(&b, "%5d  g%-4d %-32s %s%s\n", i+1, s.Goroutine, StepText(s), pos, mark)
	}
	return b.Bytes()
}
