// This file implements how seer stops when it is told to: SIGINT, SIGTERM
// and SIGHUP cancel the command's context, so that it stops the processes
// it started and removes its temporary files before it exits.

package main

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
)

// stopSignals are the signals after which seer stops cleanly.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// A stopper is a context that stopSignals cancel.
type stopper struct {
	context.Context
	got  atomic.Value // the first signal, an os.Signal
	stop func()
}

// withStopSignals returns a context that SIGINT, SIGTERM or SIGHUP
// cancel. The command then stops what it started (every process seer
// starts dies with it, see record.RecordOptions) and returns; a second
// signal makes seer exit at once. Release it with s.stop.
func withStopSignals() *stopper {
	ctx, cancel := context.WithCancel(context.Background())
	s := &stopper{Context: ctx}
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, stopSignals...)
	go func() {
		sig := <-ch
		s.got.Store(sig)
		cancel()
		// The processes seer started die with it (Pdeathsig), and the
		// next seer removes the temporary directories it leaves.
		sig = <-ch
		os.Exit(signalStatus(sig))
	}()
	s.stop = func() {
		signal.Stop(ch)
		cancel()
	}
	return s
}

// signal returns the signal that stopped the command, or nil.
func (s *stopper) signal() os.Signal {
	sig, _ := s.got.Load().(os.Signal)
	return sig
}

// signalStatus is the exit status of a command stopped by sig: 128 plus
// its number, as a shell reports a process killed by it.
func signalStatus(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 2
}
