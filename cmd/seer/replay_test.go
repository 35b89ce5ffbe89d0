package main

import (
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

func TestReplayLine(t *testing.T) {
	for _, tc := range []struct{ confirmed, note, want string }{
		{"", "", ""},
		{report.ConfirmedYes, "the replayed run left the accesses unordered", "replay: confirmed: the replayed run left the accesses unordered"},
		{report.ConfirmedNo, "the replayed run ordered the two accesses", "replay: not confirmed: the replayed run ordered the two accesses"},
		{report.ConfirmedNotTried, "replay confirms races and deadlocks only", "replay: not tried: replay confirms races and deadlocks only"},
	} {
		f := report.Finding{Kind: "race", Confirmed: tc.confirmed, Replay: tc.note}
		if got := replayLine(&f); got != tc.want {
			t.Errorf("confirmed %q: got %q, want %q", tc.confirmed, got, tc.want)
		}
	}
}
