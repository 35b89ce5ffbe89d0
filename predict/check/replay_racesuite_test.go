// This file measures replay on the Go toolchain's race suite: how many of
// the races seer predicts there a replay of their witness confirms.

package check

import (
	"context"
	"fmt"
	"github.com/seer-tools/seer/predict/report"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace/record"
)

// TestReplayRaceSuite records the race suite one test per run, replays
// every race finding's witness, and prints how many predicted races the
// replays confirmed, with each failure's cause. It takes minutes, so it
// runs only with SEER_REPLAY_RACESUITE=1 (SEER_REPLAY_RUN selects tests):
//
//	SEER_REPLAY_RACESUITE=1 go test -run TestReplayRaceSuite -v -timeout 60m ./predict/check
//
// It fails when fewer than 9 in 10 predicted races are confirmed.
func TestReplayRaceSuite(t *testing.T) {
	if os.Getenv("SEER_REPLAY_RACESUITE") == "" {
		t.Skip("set SEER_REPLAY_RACESUITE=1 to measure replay on the race suite")
	}
	if _, err := record.PrepareToolchain(context.Background(), ""); err != nil {
		t.Skipf("cannot record here: %v", err)
	}
	dir := raceSuiteModule(t)
	start := time.Now()
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: 2 * time.Minute, PerTest: true, Replay: true, Run: os.Getenv("SEER_REPLAY_RUN")})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]map[string]int{"predicted": {}, "observed": {}}
	var failures []string
	for _, f := range rep.Findings {
		if f.Kind != "race" {
			continue
		}
		how := "observed"
		if f.Predicted {
			how = "predicted"
		}
		count[how][f.Confirmed]++
		if f.Predicted && f.Confirmed == report.ConfirmedYes {
			t.Logf("%s (predicted): confirmed: %s", f.Test, f.Replay)
		}
		if f.Confirmed != report.ConfirmedYes {
			failures = append(failures, fmt.Sprintf("%s (%s, %s): %s", f.Test, how, f.Confirmed, f.Replay))
		}
	}
	sort.Strings(failures)
	for _, s := range failures {
		t.Log(s)
	}
	p := count["predicted"]
	n := p[report.ConfirmedYes] + p[report.ConfirmedNo] + p[report.ConfirmedNotTried]
	o := count["observed"]
	fmt.Printf("replay on the race suite: predicted races %d confirmed of %d (%d not confirmed, %d not tried); observed races %d confirmed of %d; %v\n",
		p[report.ConfirmedYes], n, p[report.ConfirmedNo], p[report.ConfirmedNotTried], o[report.ConfirmedYes], o[report.ConfirmedYes]+o[report.ConfirmedNo]+o[report.ConfirmedNotTried], time.Since(start).Round(time.Second))
	if n > 0 && p[report.ConfirmedYes]*10 < 9*n {
		t.Errorf("replay confirmed %d of %d predicted races, want at least 9 in 10:\n%s", p[report.ConfirmedYes], n, strings.Join(failures, "\n"))
	}
}
