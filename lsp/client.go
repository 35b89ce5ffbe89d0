// This file implements what the server sends to the client: notifications
// and requests, with contexts that end with the connection (conn.Call
// would otherwise wait forever for a client that is gone), and the client
// capabilities that decide what may be sent.

package lsp

import (
	"context"
	"fmt"
	"time"

	"go.lsp.dev/protocol"
)

// callTimeout bounds a request to the client (configuration, progress
// creation, showDocument): none of them waits for the user.
const callTimeout = 30 * time.Second

// clientCaps is what the client announced that the server relies on.
type clientCaps struct {
	workDoneProgress   bool // window/workDoneProgress/create and $/progress
	showDocument       bool // window/showDocument
	configuration      bool // workspace/configuration
	relatedInformation bool // Diagnostic.RelatedInformation is shown
	markdownHover      bool
	watchFiles         bool // workspace/didChangeWatchedFiles by dynamic registration
}

func capsOf(c protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if w := c.Window; w != nil {
		caps.workDoneProgress = w.WorkDoneProgress
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if w := c.Workspace; w != nil {
		caps.configuration = w.Configuration
		caps.watchFiles = w.DidChangeWatchedFiles != nil && w.DidChangeWatchedFiles.DynamicRegistration
	}
	caps.markdownHover = true // the default when the client does not say
	if td := c.TextDocument; td != nil {
		if pd := td.PublishDiagnostics; pd != nil {
			caps.relatedInformation = pd.RelatedInformation
		}
		if h := td.Hover; h != nil && len(h.ContentFormat) > 0 {
			caps.markdownHover = false
			for _, k := range h.ContentFormat {
				if k == protocol.Markdown {
					caps.markdownHover = true
				}
			}
		}
	}
	return caps
}

// notify queues a notification. Notifications leave in the order they
// are queued, from one goroutine (send), so that callers never block on
// the client while holding the server's lock.
func (s *server) notify(method string, params any) {
	s.notifyOut(outgoing{method: method, params: params})
}

// notifyOut queues o for send.
func (s *server) notifyOut(o outgoing) {
	s.outMu.Lock()
	s.out = append(s.out, o)
	s.outMu.Unlock()
	select {
	case s.outReady <- struct{}{}:
	default:
	}
}

type outgoing struct {
	method string
	params any
	done   chan struct{} // a flush's mark: closed when send reaches it
}

// flush waits until send has written every notification queued before
// it (at most callTimeout), so that a reply sent after it follows them.
func (s *server) flush() {
	done := make(chan struct{})
	s.notifyOut(outgoing{done: done})
	select {
	case <-done:
	case <-s.ctx.Done():
	case <-time.After(callTimeout):
	}
}

// send writes queued notifications until the connection ends.
func (s *server) send() {
	for {
		select {
		case <-s.outReady:
		case <-s.ctx.Done():
			return
		}
		s.outMu.Lock()
		batch := s.out
		s.out = nil
		s.outMu.Unlock()
		for _, o := range batch {
			if o.done != nil {
				close(o.done)
				continue
			}
			if err := s.conn.Notify(s.ctx, o.method, o.params); err != nil {
				s.log.Debug("notify failed", "method", o.method, "error", err)
			}
		}
	}
}

// call sends a request to the client and waits for its answer, at most
// callTimeout and never past the end of the connection or of ctx.
func (s *server) call(ctx context.Context, method string, params, result any) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	stop := context.AfterFunc(s.ctx, cancel)
	defer stop()
	_, err := s.conn.Call(ctx, method, params, result)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// showMessage shows text to the user.
func (s *server) showMessage(typ protocol.MessageType, format string, args ...any) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{
		Type:    typ,
		Message: "seer: " + fmt.Sprintf(format, args...),
	})
}

// logMessage writes text to the client's log of this server (and ours).
func (s *server) logMessage(typ protocol.MessageType, format string, args ...any) {
	text := fmt.Sprintf(format, args...)
	s.log.Info(text)
	s.notify(protocol.MethodWindowLogMessage, &protocol.LogMessageParams{Type: typ, Message: text})
}

// showDocument asks the client to open uri and select rng; it reports
// false when the client cannot (it did not announce support) or refused.
func (s *server) showDocument(ctx context.Context, uri protocol.DocumentURI, rng *protocol.Range) bool {
	s.mu.Lock()
	ok := s.caps.showDocument
	s.mu.Unlock()
	if !ok {
		return false
	}
	params := &protocol.ShowDocumentParams{URI: uri, TakeFocus: true, Selection: rng}
	var res protocol.ShowDocumentResult
	if err := s.call(ctx, protocol.MethodShowDocument, params, &res); err != nil {
		s.log.Warn("showDocument", "error", err)
		return false
	}
	return res.Success
}
