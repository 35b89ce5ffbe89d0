// This file implements the witness document: a finding's witness schedule
// as text, one row per step and one column per goroutine, with the source
// line of each step, and the command that opens it.
//
// The document is a read-only file under the temporary directory, opened
// with window/showDocument and a file: URI. A custom URI scheme
// (seer-witness:) would need code in every client to serve its content;
// a file opens as it is in VS Code and in Neovim 0.7 alike.

package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/seer-tools/seer/predict/report"
)

// maxCell bounds the width of a goroutine's column.
const maxCell = 40

// witnessDocument renders the witness of f.
func witnessDocument(f *report.Finding, short func(string) string, src func(string, int) string) string {
	var b strings.Builder
	title := report.Title(f)
	if f.Variable != "" {
		title += " on " + f.Variable
	}
	test := f.Test
	if test == "" {
		test = "the test"
	}
	fmt.Fprintf(&b, "seer witness schedule: %s in %s (%s)\n\n", title, test, verdict(f))
	b.WriteString("A schedule of the same test that seer's independent checker replayed: each\n")
	b.WriteString("goroutine runs what it ran in the recorded run, in the same order, and every\n")
	b.WriteString("read sees the write it saw there, up to the finding's accesses (marked <==).\n")
	b.WriteString("Read from top to bottom; each goroutine has its own column.\n")
	steps := userSteps(f)
	if left := len(f.Witness) - len(steps); left > 0 {
		fmt.Fprintf(&b, "The %d steps the runtime and the test harness take are left out; step\nnumbers count them.\n", left)
	}
	if prefix := report.PrefixPhrase(f, short); prefix != "" {
		fmt.Fprintf(&b, "The schedule starts from %s; the steps below follow.\n", prefix)
	}
	if sentences := report.ReorderedSentences(f, short); len(sentences) > 0 {
		b.WriteString("\nRun in the other order than recorded:\n")
		for _, sentence := range sentences {
			fmt.Fprintf(&b, "  %s.\n", capitalize(sentence))
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
	accessAt := map[int]*report.Access{}
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
		cell := report.StepText(st) + " " + site(st.File, st.Line, short)
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

// showWitness writes a finding's witness document and asks the client to
// open it; with args.HTML, it writes the witness's picture and answers it
// for the client to show (a webview cannot open a file: URI), without
// window/showDocument.
func (s *server) showWitness(ctx context.Context, args accessArgs) (any, error) {
	s.mu.Lock()
	f, ok := s.store.findings[args.Finding]
	if !ok {
		s.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: the finding is gone (was the test re-run?)")
	}
	short := func(p string) string { return shortPath(p, f.dir, s.folderOf(f.dir)) }
	if args.HTML {
		page := report.WitnessHTML(&f.Finding, report.HTMLOptions{
			Rel:     short,
			Source:  s.sourceLine,
			Harness: func(file string) bool { return file != "" && !isUserFile(file) },
		})
		path, err := s.writeWitness(f, ".html", string(page))
		s.mu.Unlock()
		if err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "seer: writing the witness: %v", err)
		}
		return shownDocument{URI: uri.File(path), HTML: string(page)}, nil
	}
	text := witnessDocument(&f.Finding, short, s.sourceLine)
	path, err := s.writeWitness(f, ".txt", text)
	s.mu.Unlock()
	if err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "seer: writing the witness: %v", err)
	}
	u := uri.File(path)
	if !s.showDocument(ctx, u, nil) {
		s.showMessage(protocol.MessageTypeInfo, "witness schedule written to %s", path)
	}
	return shownDocument{URI: u}, nil
}

// writeWitness writes text as a read-only file named for f, with
// extension ext. Called with s.mu held.
func (s *server) writeWitness(f *finding, ext, text string) (string, error) {
	if s.witnessDir == "" {
		dir, err := os.MkdirTemp("", "seer-witness-")
		if err != nil {
			return "", err
		}
		s.witnessDir = dir
	}
	name := f.Test
	if name == "" {
		name = "package"
	}
	path := filepath.Join(s.witnessDir, fmt.Sprintf("%s-%s-%d%s", name, f.Kind, f.id, ext))
	os.Remove(path)
	if err := os.WriteFile(path, []byte(text), 0o444); err != nil {
		return "", err
	}
	return path, nil
}
