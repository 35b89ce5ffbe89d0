// This file tests what a prediction's progress says before check.Run
// reports its first stage: what it waits for, if anything, then the
// package's listing (issue 29: a fixed "waiting" showed for 0.3-3 s).

package lsp

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

func TestProgressSaysWhatAPredictionWaitsFor(t *testing.T) {
	dir := writeTxtar(t, bankTxtar)
	fr := &fakeRunner{answer: bankReport(t, dir)}
	release := make(chan struct{})
	started := make(chan string, 2)
	run := func(ctx context.Context, o check.Options) (*report.Report, error) {
		started <- o.Run
		if o.Run == "^TestDeposit$" {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		return fr.run(ctx, o)
	}
	e := newEditor(t, dir, editorOptions{run: run}) // one prediction at a time (Options.MaxRuns)
	u := e.open("bank_test.go")
	first := e.run(e.lens(u, "TestDeposit").Command)
	select {
	case <-started:
	case <-time.After(wait):
		t.Fatal("the first prediction did not start")
	}
	second := e.run(e.lens(u, "TestOther").Command)
	e.await("the second prediction to say it waits", wait, func() bool {
		for _, p := range e.progress {
			if p.message == stageWaitingRun {
				return true
			}
		}
		return false
	})
	close(release)
	for _, done := range []chan error{first, second} {
		if err := <-done; err != nil {
			t.Fatalf("seer.predict: %v", err)
		}
	}
	e.await("both progress ends", wait, func() bool { return e.progressEnded(2) })

	e.mu.Lock()
	byToken := map[string][]string{}
	var order []string
	for _, p := range e.progress {
		if _, ok := byToken[p.token]; !ok {
			order = append(order, p.token)
		}
		if p.message == stageWaitingSettings {
			continue // the configuration the editor was asked for on opening may still be on its way
		}
		byToken[p.token] = append(byToken[p.token], p.kind+":"+p.message)
	}
	e.mu.Unlock()
	if len(order) != 2 {
		t.Fatalf("progress tokens %v, want two", order)
	}
	want := []string{
		"begin:seer: predicting TestDeposit|report:listing the package|report:building",
		"begin:seer: predicting TestOther|report:waiting for another prediction to end|report:listing the package|report:building",
	}
	for i, tok := range order {
		if got := strings.Join(byToken[tok], "|"); !strings.HasPrefix(got, want[i]) {
			t.Errorf("progress of prediction %d:\n got %s\nwant %s|...", i+1, got, want[i])
		}
	}
}
