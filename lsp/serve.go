// This file implements Serve, the entry point of the language server, and
// the server value that holds one editor session's state.

package lsp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/static"
)

// Options configure a server. The zero value serves with check.Run and
// discards logs.
type Options struct {
	// Log receives the server's log (never the protocol stream). `seer
	// serve` passes standard error.
	Log io.Writer

	// Run records and analyses; nil means check.Run. Tests replace it to
	// exercise the protocol without recording.
	Run func(context.Context, check.Options) (*report.Report, error)

	// CacheDir is seer's cache directory ("" = the user cache directory).
	CacheDir string

	// Version is reported as the server's version ("" = "devel").
	Version string

	// MaxRuns bounds the recordings that run at once (0 = 1): recording
	// builds and runs a test binary, and two at once mostly compete for
	// the same cores.
	MaxRuns int
}

// Errors Serve returns for a session that did not end with shutdown and
// exit; the LSP asks for exit status 1 then.
var (
	ErrExitWithoutShutdown = errors.New("exit without shutdown")
	ErrClosedWithoutExit   = errors.New("the client closed the connection without shutdown and exit")
)

// Serve runs a language server on rwc (Content-Length framed JSON-RPC)
// until the client sends exit, the stream ends, or ctx is cancelled.
// It returns nil after a clean shutdown and exit (or shutdown and the end
// of the stream).
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) error {
	s := newServer(opts)
	conn := jsonrpc2.NewConn(newStream(rwc, s.log))
	s.start(ctx, conn)
	select {
	case <-conn.Done():
	case <-s.exit:
		// The reader may be blocked in a read that closing cannot
		// interrupt (standard input is not pollable): do not wait for it.
	case <-ctx.Done():
		conn.Close()
	}
	s.stopJobs()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.witnessDir != "" {
		os.RemoveAll(s.witnessDir)
	}
	switch {
	case s.exited && s.shutdown:
		return nil
	case s.exited:
		return ErrExitWithoutShutdown
	case ctx.Err() != nil:
		return ctx.Err()
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if !s.shutdown {
		return ErrClosedWithoutExit
	}
	return nil
}

// A server is one session with one editor. Its protocol methods (the
// protocol.Server interface) are called one at a time by the handler
// chain (handler.go); recordings run in the background (job.go) and
// touch the state under mu.
type server struct {
	opts Options
	log  *slog.Logger
	run  func(context.Context, check.Options) (*report.Report, error)
	// static keeps the packages static analysis loaded across
	// predictions; it reloads a package whose source has changed.
	static *static.Cache

	conn jsonrpc2.Conn
	ctx  context.Context // cancelled when the connection ends
	exit chan struct{}   // closed by Exit

	mu          sync.Mutex
	initialized bool // initialize was answered
	shutdown    bool
	exited      bool
	caps        clientCaps
	folders     []string          // workspace folders, absolute directories
	configs     map[string]Config // by folder ("" = no folder)
	initConfig  Config            // from initializationOptions
	configGen   int               // counts configuration fetches
	configDone  chan struct{}     // closed when the last fetch ends
	docs        map[string]*document
	disk        map[string][]byte                // the text the marks of a closed file are in (watch.go)
	directives  map[string][]protocol.Diagnostic // misused directives, by file
	uris        map[string]protocol.DocumentURI  // the client's URI for each path it named
	store       *store
	jobs        *jobs
	witnessDir  string // where witness documents are written, once made

	// toldNoWorkspace is set once the user was told that, without a
	// workspace folder, seer does nothing (noWorkspace).
	toldNoWorkspace bool

	outMu    sync.Mutex
	out      []outgoing    // notifications not yet sent
	outReady chan struct{} // signals send that out is not empty
}

var _ protocol.Server = (*server)(nil)

func newServer(opts Options) *server {
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	s := &server{
		opts:       opts,
		initConfig: DefaultConfig(),
		log:        slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})),
		run:        opts.Run,
		configs:    map[string]Config{"": DefaultConfig()},
		docs:       map[string]*document{},
		disk:       map[string][]byte{},
		directives: map[string][]protocol.Diagnostic{},
		uris:       map[string]protocol.DocumentURI{},
		store:      newStore(),
		static:     &static.Cache{},
		outReady:   make(chan struct{}, 1),
		exit:       make(chan struct{}),
	}
	if s.run == nil {
		s.run = check.Run
	}
	max := opts.MaxRuns
	if max <= 0 {
		max = 1
	}
	s.jobs = newJobs(max)
	return s
}

// start wires the server to conn and starts reading.
func (s *server) start(ctx context.Context, conn jsonrpc2.Conn) {
	s.conn = conn
	sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.ctx = sctx
	go func() {
		select {
		case <-conn.Done():
		case <-s.exit:
		}
		cancel()
	}()
	go s.send()
	conn.Go(ctx, s.handler())
}
