// This file implements what happens when a prediction ends: its report
// becomes results in the store (replacing those of the same scope), the
// files whose diagnostics changed are republished, and what has no place
// in a file (unpositioned build errors, timeouts) is shown as a message.

package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/report"
)

// buildKey is the test name under which a package's build errors are
// stored.
const buildKey = "#build"

// finish stores the results of j's report and publishes them.
func (s *server) finish(j *job, rep *report.Report, recorded map[string][]byte) outcome {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := newViews(recorded, func(path string) ([]byte, error) {
		b, err := s.content(path)
		if err == nil {
			s.noteDisk(path, b)
		}
		return b, err
	})
	root := s.folderOf(j.sc.dir)
	byTest := map[string]*result{}
	var order []*result
	get := func(test string) *result {
		if r, ok := byTest[test]; ok {
			return r
		}
		r := &result{key: scope{j.sc.dir, test}}
		byTest[test] = r
		order = append(order, r)
		return r
	}
	o := outcome{Tests: rep.Tests}
	for _, cf := range rep.Findings {
		test := cf.Test
		if test == "" {
			test = j.sc.test
		}
		f := s.store.newFinding(j.sc.dir, cf)
		r := get(test)
		r.findings = append(r.findings, f)
		r.marks = append(r.marks, findingMarks(f, v, root, s.caps.relatedInformation)...)
		o.Findings++
		if cf.Predicted {
			o.Predicted++
		}
	}
	for i := range rep.Ordered {
		o := &rep.Ordered[i]
		test := o.Test
		if test == "" {
			test = j.sc.test
		}
		r := get(test)
		r.marks = append(r.marks, whyMarks(o, v)...)
	}
	var notes []string
	for _, t := range rep.Tests {
		name := t.Name
		if name == "" {
			name = "the package"
		}
		switch t.Outcome {
		case "build-error":
			marks, loose := buildErrorMarks(t, j.sc.dir, v)
			r := get(buildKey)
			r.marks = append(r.marks, marks...)
			if len(loose) > 0 {
				notes = append(notes, fmt.Sprintf("%s does not build:\n%s", name, strings.Join(loose, "\n")))
			} else if len(marks) == 0 {
				notes = append(notes, fmt.Sprintf("%s does not build", name))
			}
		case "timeout", "panic", "killed", "exit":
			note := fmt.Sprintf("%s ended by %s; the findings come from what it did before", name, t.Outcome)
			switch t.Outcome {
			case "exit":
				note = fmt.Sprintf("%s exited the test binary (os.Exit); the findings come from what it did before, and the tests after it did not run", name)
			case "timeout":
				note = fmt.Sprintf("%s timed out (seer.timeout is %s); the findings come from what it did before", name, s.configFor(j.sc.dir).Timeout)
			}
			if len(t.Errors) > 0 {
				note += ": " + firstLine(t.Errors[0])
			}
			notes = append(notes, note)
		case "not-run":
			notes = append(notes, fmt.Sprintf("%s did not run: the test binary ended before it started", name))
		case "pass", "fail":
			if t.Outcome == "fail" {
				note := fmt.Sprintf("%s failed; the findings come from what it recorded", name)
				if len(t.Output) > 0 {
					note += ":\n" + strings.Join(t.Output, "\n")
				}
				notes = append(notes, note)
			}
			for _, e := range t.Errors {
				notes = append(notes, fmt.Sprintf("%s: %s", name, e))
			}
		}
	}
	for _, p := range s.store.replace(j.sc, order) {
		s.publishLocked(p)
	}
	for _, n := range notes {
		s.showMessage(protocol.MessageTypeWarning, "%s", n)
	}
	return o
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// publishLocked sends the diagnostics of path (an empty list clears
// them). Called with s.mu held.
func (s *server) publishLocked(path string) {
	params := &protocol.PublishDiagnosticsParams{
		URI:         s.pathURI(path),
		Diagnostics: append(s.store.diagnostics(path, s.pathURI), s.directives[path]...),
	}
	if d, ok := s.docs[path]; ok && d.version > 0 {
		params.Version = uint32(d.version)
	}
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, params)
}
