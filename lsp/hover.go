// This file implements hover on a flagged access: the happens-before
// story of its finding in markdown. The text comes from report.Hover, a
// pure function of the stored finding, so hover costs a lookup and some
// formatting, never analysis.

package lsp

import (
	"context"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

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
		var b strings.Builder
		report.Hover{Access: m.access, Short: short, Source: s.sourceLine}.Render(&b, report.One(&m.finding.Finding))
		parts = append(parts, b.String())
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
			parts = append(parts, report.WhyNoRaceHover(m.why, m.access, short, s.sourceLine, len(parts) == 0))
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
		Contents: protocol.MarkupContent{Kind: kind, Value: strings.Join(parts, report.HoverRule)},
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
