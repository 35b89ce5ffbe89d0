// This file implements progress reporting for predictions: a cancellable
// work-done progress ($/progress begin, report, end) when the client
// supports it, else window/showMessage at the start and the end and
// window/logMessage for the stages in between.

package lsp

import (
	"fmt"
	"path/filepath"
	"sync"

	"go.lsp.dev/protocol"
)

// The stages of a prediction before check.Run reports its own. The
// begin has no message: "waiting" there (issue 29) showed for 0.3-3 s of
// go list when nothing was waited for.
const (
	stageWaitingSettings = "waiting for the editor's settings"
	stageWaitingRun      = "waiting for another prediction to end"
	stageListing         = "listing the package" // check.Run's go list, before "building"
)

type progress struct {
	s     *server
	title string
	token *protocol.ProgressToken // nil: report with messages
	key   string                  // token.String(), for cancellation

	mu   sync.Mutex
	last string
	done bool
}

// beginProgress starts reporting the progress of j, under the client's
// token if it gave one, else under one the server creates.
func (s *server) beginProgress(j *job, token *protocol.ProgressToken) *progress {
	p := &progress{s: s, title: "seer: predicting " + j.sc.test}
	if j.explore && j.sc.test != "" {
		p.title = "seer: exploring " + j.sc.test
	}
	if j.sc.test == "" {
		p.title = "seer: predicting all tests in " + dirName(j.sc.dir, s.rootOf(j.sc.dir))
	}
	s.mu.Lock()
	supported := s.caps.workDoneProgress
	s.mu.Unlock()
	if token == nil && supported {
		t := protocol.NewProgressToken(fmt.Sprintf("seer-predict-%d", j.id))
		if err := s.call(j.ctx, protocol.MethodWorkDoneProgressCreate, &protocol.WorkDoneProgressCreateParams{Token: *t}, nil); err != nil {
			s.log.Warn("creating progress", "error", err)
		} else {
			token = t
		}
	}
	if token != nil {
		p.token, p.key = token, token.String()
		s.mu.Lock()
		s.jobs.byToken[p.key] = j
		s.mu.Unlock()
		s.notify(protocol.MethodProgress, &protocol.ProgressParams{
			Token: *token,
			Value: &protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: p.title, Cancellable: true},
		})
	} else {
		s.showMessage(protocol.MessageTypeInfo, "%s", p.title[len("seer: "):])
	}
	return p
}

// report shows the current stage.
func (p *progress) report(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done || msg == p.last {
		return
	}
	p.last = msg
	if p.token == nil {
		p.s.logMessage(protocol.MessageTypeLog, "%s: %s", p.title, msg)
		return
	}
	p.s.notify(protocol.MethodProgress, &protocol.ProgressParams{
		Token: *p.token,
		Value: &protocol.WorkDoneProgressReport{Kind: protocol.WorkDoneProgressKindReport, Message: msg, Cancellable: true},
	})
}

// end closes the progress with a final message.
func (p *progress) end(msg string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	if p.token == nil {
		p.s.showMessage(protocol.MessageTypeInfo, "%s: %s", p.title[len("seer: "):], msg)
		return
	}
	p.s.notify(protocol.MethodProgress, &protocol.ProgressParams{
		Token: *p.token,
		Value: &protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: msg},
	})
}

// forgetToken stops routing cancellation of p's token to its job.
func (s *server) forgetToken(p *progress) {
	if p.key == "" {
		return
	}
	s.mu.Lock()
	delete(s.jobs.byToken, p.key)
	s.mu.Unlock()
}

// dirName names a package directory for the user: relative to the
// workspace folder when it is in one.
func dirName(dir, root string) string {
	if root != "" && within(root, dir) {
		if rel, err := filepath.Rel(root, dir); err == nil && rel != "." {
			return "./" + filepath.ToSlash(rel)
		}
	}
	return filepath.Base(dir)
}

// rootOf returns the workspace folder of path, taking the lock.
func (s *server) rootOf(path string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.folderOf(path)
}
