// This file implements turning results into marks (positioned
// diagnostics) and marks into the diagnostics that are published.
//
// Positions go through static.Mapper only: the recorded line and byte
// column become an exact range in the content the run saw, which lineMap
// then carries to the text the editor shows.

package lsp

import (
	"fmt"
	"path/filepath"
	"sort"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/seer-tools/seer/internal/gocmd"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/static"
)

// views resolves positions recorded by a run in the current text of
// files.
type views struct {
	recorded map[string][]byte                 // what the run saw, when known
	current  func(path string) ([]byte, error) // what the editor shows
	files    map[string]*fileView
}

type fileView struct {
	m   *static.Mapper // over the recorded content
	now lineFunc       // recorded line -> current line
}

func newViews(recorded map[string][]byte, current func(string) ([]byte, error)) *views {
	return &views{recorded: recorded, current: current, files: map[string]*fileView{}}
}

func (v *views) file(path string) *fileView {
	if fv, ok := v.files[path]; ok {
		return fv
	}
	var fv *fileView
	if cur, err := v.current(path); err == nil {
		rec, ok := v.recorded[path]
		if !ok {
			rec = cur
		}
		fv = &fileView{m: static.NewMapper(path, rec), now: lineMap(rec, cur)}
	}
	v.files[path] = fv
	return fv
}

// locate returns the current range of a recorded site: the exact span
// [line:col, endLine:endCol) when the columns are known, else the line's
// text without indentation. It fails if the file is gone or the line has
// changed since the run.
func (v *views) locate(path string, line, col, endLine, endCol int) (protocol.Range, bool) {
	fv := v.file(path)
	if fv == nil || line <= 0 {
		return protocol.Range{}, false
	}
	span, err := static.Span{}, error(nil)
	if col > 0 && endCol > 0 {
		if endLine <= 0 {
			endLine = line
		}
		var s, e static.Point
		if s, err = fv.m.LinePoint(line, col); err == nil {
			if e, err = fv.m.LinePoint(endLine, endCol); err == nil {
				span, err = fv.m.OffsetSpan(s.Offset, e.Offset)
			}
		}
	}
	if col <= 0 || endCol <= 0 || err != nil {
		if span, err = fv.m.LineSpan(line); err != nil {
			return protocol.Range{}, false
		}
	}
	return remapRange(toRange(span.LSP()), fv.now)
}

// locateToken returns the range of the identifier at line:col (a
// compiler error's position), or the rest of the line's text if there is
// none.
func (v *views) locateToken(path string, line, col int) (protocol.Range, bool) {
	fv := v.file(path)
	if fv == nil {
		return protocol.Range{}, false
	}
	if col > 0 {
		if p, err := fv.m.LinePoint(line, col); err == nil {
			end := identEnd(fv.m.Content, p.Offset)
			if end == p.Offset {
				ls, err := fv.m.LineSpan(line)
				if err == nil && ls.End.Offset > p.Offset {
					end = ls.End.Offset
				}
			}
			if span, err := fv.m.OffsetSpan(p.Offset, end); err == nil {
				return remapRange(toRange(span.LSP()), fv.now)
			}
		}
	}
	return v.locate(path, line, 0, 0, 0)
}

func identEnd(content []byte, off int) int {
	for off < len(content) {
		r, size := utf8.DecodeRune(content[off:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		off += size
	}
	return off
}

func toRange(r static.Range) protocol.Range {
	return protocol.Range{Start: protocol.Position(r.Start), End: protocol.Position(r.End)}
}

// findingMarks returns the marks of a finding: one at each access that
// can be located, the first access's being the primary one.
func findingMarks(f *finding, v *views, root string, relatedInfo bool) []*mark {
	var marks []*mark
	for i := range f.Accesses {
		a := &f.Accesses[i]
		rng, ok := v.locate(a.File, a.Line, a.Column, a.EndLine, a.EndColumn)
		if !ok {
			continue
		}
		short := func(p string) string { return shortPath(p, filepath.Dir(a.File), root) }
		m := &mark{
			path:     a.File,
			rng:      rng,
			severity: protocol.DiagnosticSeverityWarning,
			code:     string(f.Kind),
			message:  report.DiagnosticMessage(&f.Finding, i, short),
			finding:  f,
			access:   i,
		}
		for j := range f.Accesses {
			if o := &f.Accesses[j]; j != i {
				if r, ok := v.locate(o.File, o.Line, o.Column, o.EndLine, o.EndColumn); ok {
					m.related = append(m.related, related{o.File, r, report.AccessPhrase(o)})
				}
			}
		}
		for j := range f.Accesses {
			if c, ok := report.UserFrame(f.Accesses[j].Created); ok && firstOfGoroutine(f, j) {
				if r, ok := v.locate(c.File, c.Line, 0, 0, 0); ok {
					m.related = append(m.related, related{c.File, r, report.CreatedHere(f.Accesses[j].Goroutine)})
				}
			}
		}
		// The story's sentences (report.Reorderings), the same the CLI
		// and hover tell, at each section they are about.
		story := report.Reorderings(&f.Finding, short)
		for _, ro := range story {
			for k := range ro.Syncs {
				s := &ro.Syncs[k]
				if r, ok := v.locate(s.File, s.Line, 0, 0, 0); ok {
					m.related = append(m.related, related{s.File, r, report.Capitalize(ro.Sentence)})
				}
			}
		}
		if !relatedInfo && len(story) > 0 {
			m.message += "; " + story[0].Sentence
		}
		// The first access located carries the finding; the others
		// point to it.
		m.message += report.VerdictNote(&f.Finding, len(marks) == 0)
		marks = append(marks, m)
	}
	return marks
}

// firstOfGoroutine reports whether access j is the first of its goroutine.
func firstOfGoroutine(f *finding, j int) bool {
	for i := 0; i < j; i++ {
		if f.Accesses[i].Goroutine == f.Accesses[j].Goroutine {
			return false
		}
	}
	return true
}

// buildErrorMarks returns error marks for a test's build errors, and the
// errors that have no usable position.
func buildErrorMarks(t report.Test, dir string, v *views) (marks []*mark, loose []string) {
	for _, e := range t.Errors {
		be, ok := gocmd.ParseBuildError(e, dir)
		if !ok {
			loose = append(loose, e)
			continue
		}
		rng, ok := v.locateToken(be.File, be.Line, be.Col)
		if !ok {
			loose = append(loose, e)
			continue
		}
		marks = append(marks, &mark{
			path:     be.File,
			rng:      rng,
			severity: protocol.DiagnosticSeverityError,
			code:     "build",
			message:  be.Msg + " (seer could not build the test)",
		})
	}
	return marks, loose
}

// diagnostics returns the diagnostics to publish for path, in position
// order, never nil (an empty list clears the file).
func (st *store) diagnostics(path string, uriOf func(string) protocol.DocumentURI) []protocol.Diagnostic {
	marks := append([]*mark(nil), st.marks[path]...)
	sort.SliceStable(marks, func(i, j int) bool { return before(marks[i].rng.Start, marks[j].rng.Start) })
	out := make([]protocol.Diagnostic, 0, len(marks))
	seen := map[string]bool{}
	for _, m := range marks {
		if m.why != nil {
			continue // hover only
		}
		key := fmt.Sprint(m.rng, m.message)
		if seen[key] {
			continue // the same finding from another test's run
		}
		seen[key] = true
		d := st.diagnostic(m, uriOf)
		out = append(out, d)
	}
	return out
}

// diagnostic returns the published form of a mark.
func (st *store) diagnostic(m *mark, uriOf func(string) protocol.DocumentURI) protocol.Diagnostic {
	d := protocol.Diagnostic{
		Range:    m.rng,
		Severity: m.severity,
		Code:     m.code,
		Source:   "seer",
		Message:  m.message,
	}
	if m.finding != nil {
		d.CodeDescription = &protocol.CodeDescription{Href: uri.URI(report.DocURL + "#" + m.code)}
	}
	for _, r := range m.related {
		d.RelatedInformation = append(d.RelatedInformation, protocol.DiagnosticRelatedInformation{
			Location: protocol.Location{URI: uriOf(r.path), Range: r.rng},
			Message:  r.message,
		})
	}
	return d
}
