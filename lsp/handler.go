// This file implements the handler chain between jsonrpc2.Conn and the
// server's protocol methods, wired by hand to avoid the defects of
// protocol.Handlers (see doc.go, "Protocol defects"):
//
//	noErrors        errors are logged, never returned to jsonrpc2.Conn
//	cancelRequest   $/cancelRequest with numeric or string ids, at once
//	jsonrpc2.CancelHandler   a cancellable context per request
//	queue           one request at a time, in order; releaseQueue lets a long
//	                request (a prediction) stop holding up the rest
//	jsonrpc2.ReplyHandler   every request is answered exactly once
//	recoverPanics   a panic in a method answers an internal error
//	intercept       methods whose protocol decoding is wrong
//	invalidParams   a decoding error is answered with InvalidParams
//	protocol.ServerHandler   decodes params and calls the Server

package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"runtime/debug"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

func (s *server) handler() jsonrpc2.Handler {
	h := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	h = invalidParams(h)
	h = s.intercept(h)
	h = recoverPanics(h, s.log)
	h = jsonrpc2.ReplyHandler(h)
	h = queue(h)
	h, cancel := jsonrpc2.CancelHandler(h)
	return noErrors(cancelRequest(h, cancel), s.log)
}

// noErrors logs the errors of next instead of returning them. jsonrpc2's
// Conn closes the connection on a handler error, and records it in an
// atomic.Value that panics when a later error (the read that then fails)
// has another type.
func noErrors(next jsonrpc2.Handler, log *slog.Logger) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if err := next(ctx, reply, req); err != nil {
			log.Warn("handling a message", "method", req.Method(), "error", err)
		}
		return nil
	}
}

// cancelRequest handles $/cancelRequest before the queue, so that a
// request can be cancelled while it runs or waits. protocol.CancelHandler
// cannot: it expects an int32 id, but decodes into interface{} and gets
// float64, so it ignores the numeric ids that editors send.
func cancelRequest(next jsonrpc2.Handler, cancel func(jsonrpc2.ID)) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() != protocol.MethodCancelRequest {
			return next(ctx, reply, req)
		}
		var params struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(req.Params(), &params); err == nil && isID(params.ID) {
			var id jsonrpc2.ID
			if err := id.UnmarshalJSON(params.ID); err == nil {
				cancel(id)
			}
		}
		return reply(ctx, nil, nil) // a notification: nothing is sent
	}
}

// invalidParams answers InvalidParams when protocol.ServerHandler fails
// to decode a request's params. It answers those failures with
// fmt.Errorf("%s: %w", jsonrpc2.ErrParse, err), which formats the
// *jsonrpc2.Error as text and so leaves the reply without a code (0);
// ParseError would be wrong anyway, since the message itself parsed.
func invalidParams(next jsonrpc2.Handler) jsonrpc2.Handler {
	prefix := jsonrpc2.ErrParse.Error() + ": "
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		r := func(ctx context.Context, result any, err error) error {
			var rpcErr *jsonrpc2.Error
			if err != nil && !errors.As(err, &rpcErr) && strings.HasPrefix(err.Error(), prefix) {
				err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %s", req.Method(), strings.TrimPrefix(err.Error(), prefix))
			}
			return reply(ctx, result, err)
		}
		return next(ctx, r, req)
	}
}

type releaseKey struct{}

// queue runs requests one at a time in arrival order, each in its own
// goroutine, like jsonrpc2.AsyncHandler; the next request starts when this
// one replies or calls releaseQueue. Replies are sent with a context that is
// not cancelled, so that the answer to a cancelled request still leaves.
func queue(next jsonrpc2.Handler) jsonrpc2.Handler {
	turn := make(chan struct{})
	close(turn)
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		wait := turn
		done := make(chan struct{})
		turn = done
		var once sync.Once
		release := func() { once.Do(func() { close(done) }) }
		ctx = context.WithValue(ctx, releaseKey{}, release)
		r := func(ctx context.Context, result any, err error) error {
			defer release() // after the answer is written, to keep answers in order
			return reply(context.WithoutCancel(ctx), result, err)
		}
		go func() {
			<-wait
			_ = next(ctx, r, req)
		}()
		return nil
	}
}

// releaseQueue lets the requests queued behind the one that ctx belongs
// to start before it replies. A method that waits for background work
// calls it first.
func releaseQueue(ctx context.Context) {
	if release, ok := ctx.Value(releaseKey{}).(func()); ok {
		release()
	}
}

// recoverPanics turns a panic in a protocol method into an internal error
// reply and a log entry, instead of the end of the process.
func recoverPanics(next jsonrpc2.Handler, log *slog.Logger) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
		replied := false
		r := func(ctx context.Context, result any, err error) error {
			replied = true
			return reply(ctx, result, err)
		}
		defer func() {
			if p := recover(); p != nil {
				log.Error("panic in handler", "method", req.Method(), "panic", p, "stack", string(debug.Stack()))
				if !replied {
					err = reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "seer: internal error in %s: %v", req.Method(), p))
				}
			}
		}()
		return next(ctx, r, req)
	}
}

// intercept answers what protocol.ServerHandler gets wrong or does not
// check, and passes the rest on:
//   - initialize, whose capabilities are decoded leniently (one
//     capability whose shape protocol v0.12.0 does not expect must not
//     fail the session) and the rest strictly (decodeInitialize);
//   - requests before initialize (ServerNotInitialized) and after
//     shutdown (InvalidRequest), as the LSP requires;
//   - methods the protocol package does not know: it decodes their params
//     first and answers a parse error when there are none;
//   - shutdown and exit, which it rejects when params is null;
//   - textDocument/didChange, whose Range it decodes as a value, so a
//     whole-document change (no range) reads as an insertion at 0:0.
func (s *server) intercept(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		method := req.Method()
		_, isCall := req.(*jsonrpc2.Call)
		s.mu.Lock()
		initialized, shutdown := s.initialized, s.shutdown
		s.mu.Unlock()
		switch {
		case method == protocol.MethodExit:
			// Answer first (exit is a notification, but a request must
			// be answered): Exit closes the connection.
			err := reply(ctx, nil, nil)
			if exitErr := s.Exit(ctx); exitErr != nil {
				s.log.Debug("exit", "error", exitErr)
			}
			return err
		case !initialized && method != protocol.MethodInitialize:
			if !isCall {
				return reply(ctx, nil, nil)
			}
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.ServerNotInitialized, "seer: %s before initialize", method))
		case shutdown:
			return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidRequest, "seer: %s after shutdown", method))
		case method == protocol.MethodShutdown:
			return reply(ctx, nil, s.Shutdown(ctx))
		case !knownMethods[method]:
			return reply(ctx, nil, notFound(method))
		case method == protocol.MethodInitialize:
			params, err := s.decodeInitialize(req.Params())
			if err != nil {
				return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", method, err))
			}
			res, err := s.Initialize(ctx, params)
			return reply(ctx, res, err)
		case method == protocol.MethodTextDocumentDidChange:
			var params didChangeParams
			if err := json.Unmarshal(req.Params(), &params); err != nil {
				return reply(ctx, nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: %v", method, err))
			}
			return reply(ctx, nil, s.didChange(params))
		}
		return next(ctx, reply, req)
	}
}

// decodeInitialize decodes initialize's params. Everything but the
// capabilities must decode: a malformed rootUri or workspaceFolders would
// otherwise start a session without its workspace, and refuse the valid
// initialize that follows. The capabilities are decoded leniently: one
// capability of a shape protocol v0.12.0 does not expect (clients are
// newer than it) must not fail the session, and seer needs few of them.
func (s *server) decodeInitialize(raw json.RawMessage) (*protocol.InitializeParams, error) {
	if !isObject(raw) {
		return nil, errors.New("params must be an object")
	}
	var params struct {
		protocol.InitializeParams
		Capabilities json.RawMessage `json:"capabilities"` // shadows InitializeParams.Capabilities
	}
	if err := json.Unmarshal(raw, &params); err != nil {
		return nil, err
	}
	caps := params.Capabilities
	if len(caps) == 0 || string(caps) == "null" {
		return &params.InitializeParams, nil
	}
	if !isObject(caps) {
		return nil, errors.New("capabilities must be an object")
	}
	if err := json.Unmarshal(caps, &params.InitializeParams.Capabilities); err != nil {
		s.log.Warn("initialize: ignoring a capability", "error", err)
	}
	return &params.InitializeParams, nil
}

// isObject reports whether the JSON text v is an object.
func isObject(v json.RawMessage) bool {
	v = bytes.TrimLeft(v, " \t\r\n")
	return len(v) > 0 && v[0] == '{'
}

// knownMethods are the methods protocol.ServerHandler dispatches.
var knownMethods = map[string]bool{}

func init() {
	for _, m := range []string{
		protocol.MethodInitialize, protocol.MethodInitialized, protocol.MethodShutdown, protocol.MethodExit,
		protocol.MethodWorkDoneProgressCancel, protocol.MethodLogTrace, protocol.MethodSetTrace,
		protocol.MethodTextDocumentCodeAction, protocol.MethodTextDocumentCodeLens, protocol.MethodCodeLensResolve,
		protocol.MethodTextDocumentColorPresentation, protocol.MethodTextDocumentCompletion,
		protocol.MethodCompletionItemResolve, protocol.MethodTextDocumentDeclaration,
		protocol.MethodTextDocumentDefinition, protocol.MethodTextDocumentDidChange,
		protocol.MethodWorkspaceDidChangeConfiguration, protocol.MethodWorkspaceDidChangeWatchedFiles,
		protocol.MethodWorkspaceDidChangeWorkspaceFolders, protocol.MethodTextDocumentDidClose,
		protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidSave,
		protocol.MethodTextDocumentDocumentColor, protocol.MethodTextDocumentDocumentHighlight,
		protocol.MethodTextDocumentDocumentLink, protocol.MethodDocumentLinkResolve,
		protocol.MethodTextDocumentDocumentSymbol, protocol.MethodWorkspaceExecuteCommand,
		protocol.MethodTextDocumentFoldingRange, protocol.MethodTextDocumentFormatting,
		protocol.MethodTextDocumentHover, protocol.MethodTextDocumentImplementation,
		protocol.MethodTextDocumentOnTypeFormatting, protocol.MethodTextDocumentPrepareRename,
		protocol.MethodTextDocumentRangeFormatting, protocol.MethodTextDocumentReferences,
		protocol.MethodTextDocumentRename, protocol.MethodTextDocumentSignatureHelp,
		protocol.MethodWorkspaceSymbol, protocol.MethodTextDocumentTypeDefinition,
		protocol.MethodTextDocumentWillSave, protocol.MethodTextDocumentWillSaveWaitUntil,
		protocol.MethodShowDocument, protocol.MethodWillCreateFiles, protocol.MethodDidCreateFiles,
		protocol.MethodWillRenameFiles, protocol.MethodDidRenameFiles, protocol.MethodWillDeleteFiles,
		protocol.MethodDidDeleteFiles, protocol.MethodCodeLensRefresh,
		protocol.MethodTextDocumentPrepareCallHierarchy, protocol.MethodCallHierarchyIncomingCalls,
		protocol.MethodCallHierarchyOutgoingCalls, protocol.MethodSemanticTokensFull,
		protocol.MethodSemanticTokensFullDelta, protocol.MethodSemanticTokensRange,
		protocol.MethodSemanticTokensRefresh, protocol.MethodLinkedEditingRange, protocol.MethodMoniker,
	} {
		knownMethods[m] = true
	}
}

// didChangeParams is protocol.DidChangeTextDocumentParams with an
// optional range.
type didChangeParams struct {
	TextDocument protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
	Changes      []contentChange                          `json:"contentChanges"`
}

type contentChange struct {
	Range *protocol.Range `json:"range,omitempty"`
	Text  string          `json:"text"`
}
