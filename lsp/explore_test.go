// This file tests the explore lens (issue 28, item 6): a lens per test
// that runs the test's prediction with check.Options.Explore, reports
// which steered run it is on and what it found so far, and stops on the
// progress bar's cancel or $/cancelRequest keeping what it found.

package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// exploreRunner stands in for check.Run with exploration: it reports
// each steered run as check.Run does (Progress.Run), the race of
// bankTxtar found by run 2, and at run stopAt waits for
// Options.StopExploring (answering with runs 1 to stopAt-1, as check.Run
// does) or for ctx. stopAt 0: every run, no wait. Before the steered
// runs, blockFirst makes the first run wait for ctx.
type exploreRunner struct {
	t          testing.TB
	dir        string
	stopAt     int
	blockFirst bool

	mu    sync.Mutex
	calls []check.Options
}

func (f *exploreRunner) run(ctx context.Context, opts check.Options) (*report.Report, error) {
	f.mu.Lock()
	f.calls = append(f.calls, opts)
	f.mu.Unlock()
	opts.Progress(check.Progress{Package: "example.com/bank", Stage: "building"})
	if f.blockFirst {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	rep := &report.Report{
		Tests: []report.Test{{Package: "example.com/bank", Name: "TestDeposit", Events: 1234, Outcome: "pass"}},
	}
	x := report.Exploration{Package: "example.com/bank", Run: opts.Run, Seed: 7, Budget: opts.Explore, Runs: []report.ExploreRun{}}
	found := 0
	for i := 1; i <= opts.Explore; i++ {
		stage := fmt.Sprintf("exploring (run %d of %d, %s)", i, opts.Explore, report.StrategyPCT)
		opts.Progress(check.Progress{Package: "example.com/bank", Stage: stage, Run: i, Runs: opts.Explore, Found: found})
		if i == f.stopAt {
			select {
			case <-opts.StopExploring:
				x.Stopped = fmt.Sprintf("stopped after %d runs: cancelled", i-1)
				rep.Explore = []report.Exploration{x}
				return rep, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		x.Runs = append(x.Runs, report.ExploreRun{Index: i, Strategy: report.StrategyPCT})
		if i == 2 {
			fd := bankFinding(f.t, f.dir)
			fd.Origin = &report.Origin{Run: 2, Strategy: report.StrategyPCT, Seed: 7, Runs: 3}
			rep.Findings = append(rep.Findings, fd)
			found++
		}
	}
	rep.Explore = []report.Exploration{x}
	return rep, nil
}

func (f *exploreRunner) last() check.Options {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[len(f.calls)-1]
}

// exploreCancel is how a test cancels an exploration.
type exploreCancel int

const (
	cancelByProgress exploreCancel = iota // window/workDoneProgress/cancel
	cancelByRequest                       // $/cancelRequest
)

func TestExploreLensRunsEveryRunWithProgress(t *testing.T) {
	for _, tc := range []struct {
		name   string
		config map[string]any
		runs   int
	}{
		{"explore setting 0: the lens's default", nil, defaultExplore},
		{"explore setting 3", map[string]any{"explore": 3}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTxtar(t, bankTxtar)
			fr := &exploreRunner{t: t, dir: dir}
			e := newEditor(t, dir, editorOptions{run: fr.run, config: tc.config})
			u := e.open("bank_test.go")
			l := e.exploreLens(u, "TestDeposit")
			if l.Command.Title != titleExplore || l.Command.Command != cmdPredict {
				t.Errorf("explore lens: %+v", l.Command)
			}
			var out outcome
			var answer any
			e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: l.Command.Command, Arguments: l.Command.Arguments}, &answer)
			data, _ := json.Marshal(answer)
			json.Unmarshal(data, &out)
			if out.Findings != 1 || out.Cancelled {
				t.Errorf("answer: %+v", out)
			}
			opts := fr.last()
			if opts.Explore != tc.runs || opts.StopExploring == nil || opts.Run != "^TestDeposit$" {
				t.Errorf("check.Options: Explore %d, StopExploring %v, Run %q; want Explore %d", opts.Explore, opts.StopExploring, opts.Run, tc.runs)
			}
			// Notifications may arrive after the answer.
			e.await("the end and the diagnostics", wait, func() bool { return e.progressEnded(1) && len(e.diagsOf("bank.go")) > 0 })
			e.mu.Lock()
			defer e.mu.Unlock()
			// The editors show the title beside each message.
			if p := e.progress[0]; p.kind != "begin" || p.message != "seer: exploring TestDeposit" {
				t.Errorf("progress begins %+v, want the title seer: exploring TestDeposit", p)
			}
			for i := 1; i <= tc.runs; i++ {
				found := 0
				if i > 2 {
					found = 1
				}
				want := fmt.Sprintf("run %d of %d: %d %s so far", i, tc.runs, found, plural(found, "finding", "findings"))
				if e.progressSaid(want) != 1 {
					t.Errorf("no progress %q in %v", want, e.progress)
				}
			}
		})
	}

	// The predict lens explores only under the setting, and then stops
	// as the explore lens does.
	for _, tc := range []struct {
		config map[string]any
		runs   int
	}{{nil, 0}, {map[string]any{"explore": 2}, 2}} {
		dir := writeTxtar(t, bankTxtar)
		fr := &exploreRunner{t: t, dir: dir}
		e := newEditor(t, dir, editorOptions{run: fr.run, config: tc.config})
		cmd := e.lens(e.open("bank_test.go"), "TestDeposit").Command
		e.call(protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}, nil)
		if opts := fr.last(); opts.Explore != tc.runs || (opts.StopExploring != nil) != (tc.runs > 0) {
			t.Errorf("predict lens, setting %v: Explore %d, StopExploring %v", tc.config, opts.Explore, opts.StopExploring)
		}
	}
}

func TestExploreLensCancelKeepsFindings(t *testing.T) {
	for _, how := range []exploreCancel{cancelByProgress, cancelByRequest} {
		t.Run(fmt.Sprint(how), func(t *testing.T) {
			dir := writeTxtar(t, bankTxtar)
			fr := &exploreRunner{t: t, dir: dir, stopAt: 4}
			e := newEditor(t, dir, editorOptions{run: fr.run})
			u := e.open("bank_test.go")
			cmd := e.exploreLens(u, "TestDeposit").Command
			params := &protocol.ExecuteCommandParams{Command: cmd.Command, Arguments: cmd.Arguments}

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			answered := make(chan error, 1)
			var out outcome
			go func() {
				id, err := e.conn.Call(ctx, protocol.MethodWorkspaceExecuteCommand, params, &out)
				if how == cancelByRequest {
					e.conn.Notify(context.Background(), protocol.MethodCancelRequest, &protocol.CancelParams{ID: &id})
				}
				answered <- err
			}()
			e.await("run 4", wait, func() bool { return e.progressSaid("run 4 of 20: 1 finding so far") == 1 })
			switch how {
			case cancelByProgress:
				cancelFirstProgress(e)
				if err := <-answered; err != nil {
					t.Fatalf("seer.predict: %v", err)
				}
				if out.Findings != 1 || !out.Cancelled {
					t.Errorf("answer after cancel: %+v", out)
				}
			case cancelByRequest:
				cancel()
				<-answered
			}
			e.await("the end", wait, func() bool { return e.progressEnded(1) })
			if got, want := e.lastProgressEnd(), "cancelled after 3 steered runs: 1 finding kept"; got != want {
				t.Errorf("progress ended %q, want %q", got, want)
			}
			e.await("the kept finding", wait, func() bool { return len(e.diagsOf("bank.go")) > 0 })
		})
	}

	// Cancelled before the steered runs begin: the whole prediction is
	// cancelled, as the predict lens's is.
	dir := writeTxtar(t, bankTxtar)
	fr := &exploreRunner{t: t, dir: dir, blockFirst: true}
	e := newEditor(t, dir, editorOptions{run: fr.run})
	u := e.open("bank_test.go")
	done := e.run(e.exploreLens(u, "TestDeposit").Command)
	e.await("building", wait, func() bool { return e.progressSaid("building") >= 1 })
	cancelFirstProgress(e)
	if err := <-done; err != nil {
		t.Errorf("seer.predict: %v", err)
	}
	e.await("the end", wait, func() bool { return e.progressEnded(1) })
	if got := e.lastProgressEnd(); got != "cancelled" {
		t.Errorf("progress ended %q", got)
	}
}

// cancelFirstProgress presses the cancel of the first progress bar.
func cancelFirstProgress(e *editor) {
	e.mu.Lock()
	token := e.progress[0].token
	e.mu.Unlock()
	e.notify(protocol.MethodWorkDoneProgressCancel, &protocol.WorkDoneProgressCancelParams{Token: *protocol.NewProgressToken(token)})
}

func (c exploreCancel) String() string {
	if c == cancelByRequest {
		return "cancelRequest"
	}
	return "progress cancel"
}
