// This file implements `seer serve`, the language server.

package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/seer-tools/seer/lsp"
)

var (
	serveFlags = flag.NewFlagSet("serve", flag.ContinueOnError)
	_          = serveFlags.Bool("stdio", true, "speak the protocol over standard input and output (the only transport; accepted for editors that pass it)")
	serveCache = serveFlags.String("cache", "", "seer's cache `directory` (default: the user cache directory)")
)

var _ = register(&command{
	name:      "serve",
	usageLine: "serve [-stdio] [-cache dir]",
	short:     "run the language server",
	long: `
Serve runs seer's language server over standard input and output, for
editors (VS Code, Neovim): code lenses on tests record and analyse them
in the background, findings become diagnostics on both accesses, hover
explains them, and quick fixes jump to the other access or open the
witness schedule. Nothing but the protocol is written to standard
output; logs go to standard error.

The exit status is 0 after the client's shutdown and exit, 1 otherwise.`,
	flags: serveFlags,
	run:   runServe,
})

func runServe(c *command, args []string) int {
	if !c.parse(args) {
		return 2
	}
	if c.flags.NArg() > 0 {
		errorf(c, "takes no arguments")
		return 2
	}
	// Only the protocol may reach standard output: anything else that
	// prints (a stray fmt.Println) goes to standard error.
	stdout := os.Stdout
	os.Stdout = os.Stderr
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err := lsp.Serve(ctx, stdio{os.Stdin, stdout}, lsp.Options{Log: os.Stderr, CacheDir: *serveCache, Version: version()})
	if err != nil {
		errorf(c, "%v", err)
		return 1
	}
	return 0
}

// stdio is standard input and output as one connection.
type stdio struct {
	in  *os.File
	out *os.File
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	s.in.Close()
	return s.out.Close()
}
