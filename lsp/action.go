// This file implements the quick fixes on a finding's diagnostics and the
// command that jumps to the other access.

package lsp

import (
	"context"
	"path/filepath"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

// accessArgs name one access of a stored finding (seer.showOtherAccess,
// seer.showWitness).
type accessArgs struct {
	Finding int `json:"finding"`
	Access  int `json:"access"`
	// HTML asks seer.showWitness for the witness as a picture
	// (report.WitnessHTML) that the client shows itself: a webview, a
	// browser. The code actions never set it; an editor plugin adds it.
	HTML bool `json:"html,omitempty"`
}

// CodeAction offers, for each finding under the range: go to the other
// access, show the witness schedule, re-run the prediction.
func (s *server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CodeAction, error) {
	actions := []protocol.CodeAction{}
	if only := params.Context.Only; len(only) > 0 {
		ok := false
		for _, k := range only {
			ok = ok || k == protocol.QuickFix || k == ""
		}
		if !ok {
			return actions, nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	path, err := uriPath(params.TextDocument.URI)
	if err != nil {
		return actions, nil
	}
	seen := map[int]bool{}
	for _, m := range s.store.overlapping(path, params.Range) {
		f := m.finding
		if f == nil || seen[f.id] {
			continue
		}
		seen[f.id] = true
		diag := s.store.diagnostic(m, s.pathURI)
		other := otherAccess(f, m.access)
		o := &f.Accesses[other]
		short := shortPath(o.File, filepath.Dir(path), s.folderOf(path))
		add := func(title string, cmd string, arg any) {
			actions = append(actions, protocol.CodeAction{
				Title:       title,
				Kind:        protocol.QuickFix,
				Diagnostics: []protocol.Diagnostic{diag},
				Command:     &protocol.Command{Title: title, Command: cmd, Arguments: []any{arg}},
			})
		}
		add(report.OtherAccessTitle(o, short), cmdShowOtherAccess, accessArgs{Finding: f.id, Access: m.access})
		add(report.ShowWitnessTitle, cmdShowWitness, accessArgs{Finding: f.id, Access: m.access})
		add(report.RerunTitle(f.Test), cmdPredict, predictArgs{URI: s.pathURI(fileIn(f, path)), Test: f.Test})
		if f.Kind.Replayable() && f.Test != "" && f.Confirmed == "" {
			add(report.ReplayTitle(f.Test), cmdPredict, replayArgs{predictArgs{URI: s.pathURI(fileIn(f, path)), Test: f.Test}, true})
		}
	}
	return actions, nil
}

// fileIn returns a Go file of the finding's package: path if it is one,
// else a file of the accesses' stacks.
func fileIn(f *finding, path string) string {
	if filepath.Dir(path) == f.dir {
		return path
	}
	for _, a := range f.Accesses {
		for _, fr := range a.Stack {
			if filepath.Dir(fr.File) == f.dir {
				return fr.File
			}
		}
	}
	return path
}

// otherAccess returns the access a jump from access i goes to: the next
// one of the finding made by another goroutine.
func otherAccess(f *finding, i int) int {
	n := len(f.Accesses)
	for k := 1; k < n; k++ {
		j := (i + k) % n
		if f.Accesses[j].Goroutine != f.Accesses[i].Goroutine {
			return j
		}
	}
	return (i + 1) % n
}

// showOtherAccess opens the other access of a finding in the editor, or
// says where it is when the client cannot open documents; either way it
// answers the location.
func (s *server) showOtherAccess(ctx context.Context, args accessArgs) (any, error) {
	s.mu.Lock()
	f, ok := s.store.findings[args.Finding]
	if !ok || args.Access < 0 || args.Access >= len(f.Accesses) {
		s.mu.Unlock()
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "seer: the finding is gone (was the test re-run?)")
	}
	j := otherAccess(f, args.Access)
	o := f.Accesses[j]
	var rng *protocol.Range
	for _, m := range s.store.marks[o.File] {
		if m.finding == f && m.access == j {
			r := m.rng
			rng = &r
		}
	}
	u := s.pathURI(o.File)
	s.mu.Unlock()
	if !s.showDocument(ctx, u, rng) {
		s.showMessage(protocol.MessageTypeInfo, "%s", report.OtherAccessSentence(&o))
	}
	return shownDocument{URI: u, Range: rng}, nil
}

// shownDocument is the answer of seer.showOtherAccess and
// seer.showWitness: what they open, so that an editor plugin can open it
// itself when the client lacks window/showDocument.
type shownDocument struct {
	URI   protocol.DocumentURI `json:"uri"`
	Range *protocol.Range      `json:"range,omitempty"`
	// HTML is the page at URI, for seer.showWitness with html set: a
	// webview takes the page itself, not a file.
	HTML string `json:"html,omitempty"`
}
