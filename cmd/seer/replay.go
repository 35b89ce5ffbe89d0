// This file implements how seer check words a finding's replay (-replay).

package main

import "github.com/seer-tools/seer/predict/report"

// replayLine says what replaying f's witness showed, or "" when it was
// not asked for.
func replayLine(f *report.Finding) string {
	switch f.Confirmed {
	case "":
		return ""
	case report.ConfirmedYes:
		return "replay: confirmed: " + f.Replay
	case report.ConfirmedNo:
		return "replay: not confirmed: " + f.Replay
	}
	return "replay: not tried: " + f.Replay
}
