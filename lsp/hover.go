// This file implements hover on a flagged access: the happens-before
// story of its finding in markdown. The text comes from hoverMarkdown, a
// pure function of the stored finding, so hover costs a lookup and some
// formatting, never analysis.

package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

// hoverSteps is how many witness steps hover shows: the first ones of
// the story (storySteps).
const hoverSteps = 8

// Hover explains the findings at a position.
func (s *server) Hover(ctx context.Context, params *protocol.HoverParams) (*protocol.Hover, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := uriPath(params.TextDocument.URI)
	if err != nil {
		return nil, nil
	}
	var parts []string
	var rng *protocol.Range
	seen := map[int]bool{}
	for _, m := range s.store.at(path, params.Position) {
		if m.finding == nil || seen[m.finding.id] {
			continue
		}
		seen[m.finding.id] = true
		short := func(p string) string { return shortPath(p, filepath.Dir(path), s.folderOf(path)) }
		parts = append(parts, hoverMarkdown(&m.finding.Finding, m.access, short, s.sourceLine))
		if rng == nil {
			r := m.rng
			rng = &r
		}
	}
	if len(parts) == 0 {
		// No finding here: why no race, if this access conflicts with
		// another.
		short := func(p string) string { return shortPath(p, filepath.Dir(path), s.folderOf(path)) }
		for _, m := range s.store.at(path, params.Position) {
			if m.why == nil {
				continue
			}
			parts = append(parts, whyMarkdown(m.why, m.access, short, s.sourceLine, len(parts) == 0))
			if rng == nil {
				r := m.rng
				rng = &r
			}
		}
	}
	if len(parts) == 0 {
		return nil, nil
	}
	kind := protocol.Markdown
	if !s.caps.markdownHover {
		kind = protocol.PlainText
	}
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: kind, Value: strings.Join(parts, "\n\n---\n\n")},
		Range:    rng,
	}, nil
}

// sourceLine returns the text of a line of a file as the editor shows
// it, trimmed, or "". Called with s.mu held.
func (s *server) sourceLine(path string, line int) string {
	content, err := s.content(path)
	if err != nil || line < 1 {
		return ""
	}
	lines := splitLines(content)
	if line > len(lines) {
		return ""
	}
	return strings.TrimSpace(string(lines[line-1]))
}

// hoverMarkdown explains access i of f: a fenced block with its source,
// then who the goroutines are, what orders what and what does not, and
// the first steps of the witness.
func hoverMarkdown(f *report.Finding, i int, short func(string) string, src func(string, int) string) string {
	var b strings.Builder
	a := &f.Accesses[i]
	if line := src(a.File, a.Line); line != "" {
		fmt.Fprintf(&b, "```go\n%s\n```\n\n", line)
	}
	fmt.Fprintf(&b, "**%s**", report.Title(f))
	if f.Variable != "" {
		fmt.Fprintf(&b, " on `%s`", f.Variable)
	}
	fmt.Fprintf(&b, " (%s) · [%s](%s#%s)\n\n---\n\n", verdict(f), f.Kind, report.DocURL, f.Kind)

	access := func(j int) string {
		o := &f.Accesses[j]
		if j == i {
			return fmt.Sprintf("the **%s** here (goroutine %d)", o.Op, o.Goroutine)
		}
		return fmt.Sprintf("the **%s** at %s (goroutine %d)", o.Op, site(o.File, o.Line, short), o.Goroutine)
	}
	if f.Kind == report.KindAtomicity {
		tx, others := transaction(f)
		var in, out []string
		for _, j := range tx {
			in = append(in, access(j))
		}
		for _, j := range others {
			out = append(out, access(j))
		}
		fmt.Fprintf(&b, "%s belong to one transaction of goroutine %d (a critical section, or a `//seer:atomic` function), and %s can run between them", capitalize(strings.Join(in, " and ")), f.Accesses[tx[0]].Goroutine, strings.Join(out, " and "))
		if p := pattern(f, tx, others); p != "" {
			fmt.Fprintf(&b, ": a %s interleaving that no serial order of the transactions gives", p)
		}
		b.WriteString(".\n\n")
	} else if f.Kind.IsMisuse() {
		b.WriteString(report.MisuseSentence(f) + "\n\n")
	} else if s := report.LeakSentence(f, short); s != "" {
		b.WriteString(capitalize(s) + ".\n\n")
	} else if report.ObservedBlocking(f) {
		for _, s := range report.BlockedSentences(f, short) {
			fmt.Fprintf(&b, "%s.\n\n", capitalize(s))
		}
	} else if f.Kind == report.KindDeadlock {
		var parts []string
		for j := range f.Accesses {
			parts = append(parts, access(j))
		}
		if report.Title(f) == "deadlock" {
			fmt.Fprintf(&b, "%s each wait for ever, in a schedule that nothing rules out: every goroutine that could let one of them go on waits too, or has ended.\n\n", capitalize(strings.Join(parts, " and ")))
		} else {
			fmt.Fprintf(&b, "%s each wait for a lock that another of these goroutines holds, in a schedule that nothing rules out.\n\n", capitalize(strings.Join(parts, " and ")))
		}
		for _, s := range report.HoldSentences(f, short) {
			fmt.Fprintf(&b, "%s.\n\n", capitalize(s))
		}
	} else {
		var parts []string
		for j := range f.Accesses {
			parts = append(parts, access(j))
		}
		fmt.Fprintf(&b, "%s touch the same memory, at least one of them writes, and nothing orders them.\n\n", capitalize(strings.Join(parts, " and ")))
	}
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
		if fr, ok := userFrame(o.Created); ok {
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
		if sentences := report.ReorderedSentences(f, short); len(sentences) > 0 {
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
			text := report.StepText(st)
			if obj := st.Object; obj != "" && !strings.Contains(obj, " ") {
				text = strings.Replace(text, obj, "`"+obj+"`", 1) // an expression from the source
			}
			line := fmt.Sprintf("goroutine %d %s at %s", st.Goroutine, text, site(st.File, st.Line, short))
			if access[st.Event] {
				line = "**" + line + "**"
			}
			fmt.Fprintf(&b, "%d. %s\n", k+1, line)
		}
		if prefix := report.PrefixPhrase(f, short); prefix != "" {
			fmt.Fprintf(&b, "\nThe witness starts from %s.\n", prefix)
		}
	}
	return b.String()
}

// pattern names an atomicity violation's interleaving (read-write-read,
// ...): the transaction's first access, the intruder, the transaction's
// last access.
func pattern(f *report.Finding, tx, others []int) string {
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

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
