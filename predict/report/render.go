// This file implements the one interface every renderer of a report
// satisfies, in the manner of staticcheck's formatters (lintcmd/format.go):
// the text report, JSON, SARIF, the witness page and the witness text,
// and the editor's hover, each a Renderer, and Format, which picks the
// report's by the name `seer check -format` takes.

package report

import (
	"fmt"
	"io"
	"path/filepath"
)

// A Renderer writes a report in one format. The renderers of one finding
// (WitnessPage, WitnessText, Hover) render each finding of the report in
// turn; One makes the report of a single finding.
type Renderer interface {
	Render(w io.Writer, rep *Report) error
}

// The renderers.
var (
	_ Renderer = Text{}
	_ Renderer = JSON{}
	_ Renderer = SARIF{}
	_ Renderer = WitnessPage{}
	_ Renderer = WitnessText{}
	_ Renderer = Hover{}
)

// Formats of the whole report, as `seer check -format` and `seer predict
// -o` name them.
const (
	FormatText  = "text"
	FormatJSON  = "json"
	FormatSARIF = "sarif"
)

// Format returns the renderer of the report format name (FormatText,
// FormatJSON, FormatSARIF): rel names files in text, sarif says how SARIF
// names them and its tool.
func Format(name string, rel func(string) string, sarif SARIFOptions) (Renderer, error) {
	switch name {
	case FormatText:
		return Text{Rel: rel}, nil
	case FormatJSON:
		return JSON{}, nil
	case FormatSARIF:
		return SARIF{Options: sarif}, nil
	}
	return nil, fmt.Errorf("unknown report format %q (want text, json or sarif)", name)
}

// One returns the report of the single finding f, for the renderers of
// one finding.
func One(f *Finding) *Report {
	return &Report{Findings: []Finding{*f}}
}

// Text renders a report as `seer check` prints it (text.go).
type Text struct {
	// Rel names a file for the reader (seer check's are relative to the
	// current directory); nil leaves names as they are.
	Rel func(string) string
}

func (r Text) rel() func(string) string {
	if r.Rel == nil {
		return func(file string) string { return file }
	}
	return r.Rel
}

// JSON renders a report as `seer check -json` prints it (json.go).
type JSON struct{}

// Render writes rep as JSON.
func (JSON) Render(w io.Writer, rep *Report) error { return WriteJSON(w, rep) }

// SARIF renders a report as a SARIF 2.1.0 log (sarif.go).
type SARIF struct{ Options SARIFOptions }

// Render writes rep as SARIF.
func (r SARIF) Render(w io.Writer, rep *Report) error { return WriteSARIF(w, rep, r.Options) }

// WitnessPage renders each finding's witness as a self-contained HTML
// page (html.go).
type WitnessPage struct{ Options HTMLOptions }

// Render writes the page of each finding of rep.
func (r WitnessPage) Render(w io.Writer, rep *Report) error {
	for i := range rep.Findings {
		if _, err := w.Write(WitnessHTML(&rep.Findings[i], r.Options)); err != nil {
			return err
		}
	}
	return nil
}

// Layouts of WitnessText.
const (
	// LayoutList is the finding as seer check prints it, then its steps
	// in user code, one a line: `seer witness`.
	LayoutList = iota
	// LayoutColumns is a header that tells how to read the schedule, then
	// one row per step and one column per goroutine, with the source line
	// of each step: the editor's witness document.
	LayoutColumns
)

// WitnessText renders each finding's witness schedule as text
// (witness_text.go).
type WitnessText struct {
	Layout int
	// Rel names a file for the reader; nil means filepath.Base.
	Rel func(string) string
	// Source returns the text of a line of a file (LayoutColumns); nil
	// for none.
	Source func(file string, line int) string
	// Harness reports whether a step at file is outside the user's code
	// (LayoutList); nil means HTMLOptions' default.
	Harness func(file string) bool
}

// Render writes the witness of each finding of rep.
func (r WitnessText) Render(w io.Writer, rep *Report) error {
	rel, src, harness := r.Rel, r.Source, r.Harness
	if rel == nil {
		rel = filepath.Base
	}
	if src == nil {
		src = func(string, int) string { return "" }
	}
	if harness == nil {
		harness = defaultHarness
	}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		var out []byte
		if r.Layout == LayoutColumns {
			out = []byte(witnessDocument(f, rel, src))
		} else {
			out = witnessList(f, rel, harness)
		}
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
	return nil
}

// Hover renders the editor's hover on one access of each finding: the
// finding's story in markdown (editor.go), hovers joined by a rule.
type Hover struct {
	// Access is the hovered access of each finding.
	Access int
	// Short names a file for the reader; nil means filepath.Base.
	Short func(string) string
	// Source returns the text of a line of a file; nil for none.
	Source func(file string, line int) string
}

// Render writes the hover of each finding of rep.
func (r Hover) Render(w io.Writer, rep *Report) error {
	short, src := r.Short, r.Source
	if short == nil {
		short = filepath.Base
	}
	if src == nil {
		src = func(string, int) string { return "" }
	}
	for i := range rep.Findings {
		if i > 0 {
			if _, err := io.WriteString(w, HoverRule); err != nil {
				return err
			}
		}
		if _, err := io.WriteString(w, HoverMarkdown(&rep.Findings[i], r.Access, short, src)); err != nil {
			return err
		}
	}
	return nil
}

// HoverRule separates two findings' hovers at one place.
const HoverRule = "\n\n---\n\n"

// errWriter keeps the first error of the writes that the text report
// makes with fmt.Fprint.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
