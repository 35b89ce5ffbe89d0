// This file implements predictions as background jobs: each records and
// analyses one scope (a test, or all tests of a package) with check.Run
// while the server goes on answering, reports progress, can be cancelled,
// and stores and publishes its results when it ends.

package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// stopTimeout bounds how long shutdown waits for cancelled jobs.
const stopTimeout = 10 * time.Second

type jobs struct {
	slots   chan struct{} // one per recording that may run at once
	running map[scope]*job
	byToken map[string]*job // by progress token
	wg      sync.WaitGroup
	nextID  int
}

func newJobs(max int) *jobs {
	return &jobs{slots: make(chan struct{}, max), running: map[scope]*job{}, byToken: map[string]*job{}}
}

// A job is one prediction.
type job struct {
	id     int
	sc     scope
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	result outcome // set before done is closed
	replay bool    // replay each race's witness (whyReplay)

	// An exploring job (whyExplore) is stopped, once its steered runs
	// have begun, by closing stopExploring: check.Run then answers with
	// the findings of the runs that ended. exploring and stopped are
	// under server.mu.
	explore       bool
	stopExploring chan struct{}
	exploring     bool
	stopped       bool
}

// Why a job starts: whyReplay also replays the witnesses; whyExplore
// (the "seer: explore" lens) runs the test exploreRuns more times.
const (
	whyReplay  = "replay witness"
	whyExplore = "explore"
)

// defaultExplore is the explore lens's steered runs when the "explore"
// setting is 0 (issue 28's budget: its bugs are found within 20).
const defaultExplore = 20

// exploreRuns is how many steered runs the explore lens asks for.
func exploreRuns(cfg Config) int {
	if cfg.Explore > 0 {
		return cfg.Explore
	}
	return defaultExplore
}

// stop is the user's cancel (the progress bar's or $/cancelRequest):
// an exploration under way stops and keeps what it found; any other
// job is cancelled. Called with server.mu held.
func (j *job) stop() {
	if j.exploring {
		if !j.stopped {
			j.stopped = true
			close(j.stopExploring)
		}
		return
	}
	if j.cancel != nil { // nil: a job refused at shutdown
		j.cancel()
	}
}

// An outcome is what seer.predict answers.
type outcome struct {
	Findings  int           `json:"findings"`
	Predicted int           `json:"predicted"`
	Tests     []report.Test `json:"tests"`
	Cancelled bool          `json:"cancelled,omitempty"`
	Error     string        `json:"error,omitempty"`
}

// startJob starts predicting sc. A job already running for sc is
// cancelled and replaced; token is the client's progress token, if it
// gave one.
func (s *server) startJob(sc scope, token *protocol.ProgressToken, why string) *job {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shutdown || s.ctx.Err() != nil {
		j := &job{sc: sc, done: make(chan struct{}), result: outcome{Cancelled: true}}
		close(j.done)
		return j
	}
	old := s.jobs.running[sc]
	if old != nil {
		old.cancel()
	}
	s.jobs.nextID++
	ctx, cancel := context.WithCancel(s.ctx)
	j := &job{id: s.jobs.nextID, sc: sc, ctx: ctx, cancel: cancel, done: make(chan struct{}), replay: why == whyReplay,
		explore: why == whyExplore, stopExploring: make(chan struct{})}
	s.jobs.running[sc] = j
	s.jobs.wg.Add(1)
	s.log.Info("prediction starts", "job", j.id, "scope", sc.String(), "why", why)
	go s.runJob(j, old, token)
	return j
}

func (s *server) runJob(j *job, old *job, token *protocol.ProgressToken) {
	defer s.jobs.wg.Done()
	defer close(j.done)
	defer j.cancel()
	defer func() {
		s.mu.Lock()
		if s.jobs.running[j.sc] == j {
			delete(s.jobs.running, j.sc)
		}
		s.mu.Unlock()
	}()
	if old != nil {
		<-old.done
	}
	p := s.beginProgress(j, token)
	defer s.forgetToken(p)

	if !s.configReady(j.ctx, func() { p.report(stageWaitingSettings) }) || !s.takeSlot(j.ctx, func() { p.report(stageWaitingRun) }) {
		j.result = outcome{Cancelled: true}
		p.end("cancelled")
		return
	}
	p.report(stageListing)
	recorded := snapshotDir(j.sc.dir)
	s.mu.Lock()
	cfg := s.configFor(j.sc.dir)
	s.mu.Unlock()
	opts := check.Options{
		Dir:       j.sc.dir,
		Patterns:  []string{"."},
		Timeout:   cfg.Timeout,
		Atomicity: cfg.Atomicity,
		GoFlags:   cfg.BuildFlags,
		Env:       cfg.Env,
		CacheDir:  s.opts.CacheDir,
		Stderr:    s.opts.Log,
		Static:    s.static,
		Progress: func(pr check.Progress) {
			if pr.Run > 0 {
				s.mu.Lock()
				j.exploring = true
				s.mu.Unlock()
			}
			p.report(stageMessage(pr))
		},
		WhyNoRace: true, // for hover on accesses without a finding
		// seer check's default -maxmem, 1 GiB, as the event cap is.
		HistoryBudget: check.HistoryBudget(1 << 30),
	}
	if j.sc.test != "" {
		opts.Run = "^" + j.sc.test + "$"
	}
	opts.Replay = j.replay
	opts.Explore = cfg.Explore
	if j.explore {
		opts.Explore = exploreRuns(cfg)
	}
	if opts.Explore > 0 { // the explore lens, or any prediction under the setting
		opts.StopExploring = j.stopExploring
	}
	start := time.Now()
	rep, err := s.safeRun(j.ctx, opts)
	<-s.jobs.slots
	s.log.Info("prediction ends", "job", j.id, "took", time.Since(start), "error", err)

	switch {
	case j.ctx.Err() != nil:
		j.result = outcome{Cancelled: true}
		p.end("cancelled")
	case err != nil:
		j.result = outcome{Error: err.Error()}
		p.end("failed")
		s.showMessage(protocol.MessageTypeError, "predicting %s failed: %v", j.sc.test, err)
	case rep == nil:
		j.result = outcome{Error: "no report"}
		p.end("failed")
	default:
		j.result = s.finish(j, rep, recorded)
		s.mu.Lock()
		stopped := j.stopped
		s.mu.Unlock()
		if stopped {
			j.result.Cancelled = true
			p.end(stoppedSummary(rep, j.result))
			return
		}
		p.end(summary(j.sc, j.result))
	}
}

// stoppedSummary words the end of an exploration the user stopped.
func stoppedSummary(rep *report.Report, o outcome) string {
	runs := 0
	for _, x := range rep.Explore {
		runs += len(x.Runs)
	}
	return fmt.Sprintf("cancelled after %d steered %s: %d %s kept", runs, plural(runs, "run", "runs"), o.Findings, plural(o.Findings, "finding", "findings"))
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// takeSlot takes one of the slots that bound the predictions running at
// once, calling waiting first when it has to wait; false: ctx ended first.
func (s *server) takeSlot(ctx context.Context, waiting func()) bool {
	select {
	case s.jobs.slots <- struct{}{}:
		return true
	default:
	}
	waiting()
	select {
	case s.jobs.slots <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// safeRun calls the runner, turning a panic (a bug in seer's engine) into
// an error so that the session survives it.
func (s *server) safeRun(ctx context.Context, opts check.Options) (rep *report.Report, err error) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("panic in prediction", "panic", p, "stack", string(debug.Stack()))
			rep, err = nil, fmt.Errorf("internal error: %v", p)
		}
	}()
	return s.run(ctx, opts)
}

// stageMessage words a stage of check.Run for the progress bar.
func stageMessage(p check.Progress) string {
	if p.Run > 0 {
		return fmt.Sprintf("run %d of %d: %d %s so far", p.Run, p.Runs, p.Found, plural(p.Found, "finding", "findings"))
	}
	switch p.Stage {
	case "analysing":
		return fmt.Sprintf("analysing %d events", p.Events)
	case "converting":
		return "reading the trace"
	}
	return p.Stage
}

// summary words an outcome for the end of the progress bar.
func summary(sc scope, o outcome) string {
	what := sc.test
	if what == "" {
		what = "the package's tests"
	}
	for _, t := range o.Tests {
		if t.Outcome == "build-error" {
			return "the test does not build"
		}
	}
	if len(o.Tests) == 0 {
		return fmt.Sprintf("no test ran (does %s exist?)", what)
	}
	switch o.Findings {
	case 0:
		return fmt.Sprintf("no races or atomicity violations in %s", what)
	case 1:
		return fmt.Sprintf("1 finding in %s", what)
	}
	return fmt.Sprintf("%d findings (%d predicted) in %s", o.Findings, o.Predicted, what)
}

// snapshotDir reads the Go files of dir: the content the run is about to
// record, against which its positions are resolved.
func snapshotDir(dir string) map[string][]byte {
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".go") {
			path := filepath.Join(dir, e.Name())
			if data, err := os.ReadFile(path); err == nil {
				out[path] = data
			}
		}
	}
	return out
}

// cancelToken cancels the job that reports progress under token.
func (s *server) cancelToken(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j, ok := s.jobs.byToken[token]; ok {
		j.stop()
		return true
	}
	return false
}

// WorkDoneProgressCancel cancels the prediction behind a progress bar.
func (s *server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	if !s.cancelToken(params.Token.String()) {
		s.log.Debug("cancel of an unknown progress token", "token", params.Token.String())
	}
	return nil
}

// stopJobs cancels every job and waits (a bounded time) for them to end.
func (s *server) stopJobs() {
	s.mu.Lock()
	for _, j := range s.jobs.running {
		j.cancel()
	}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		s.jobs.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(stopTimeout):
		s.log.Warn("predictions did not stop in time")
	}
}
