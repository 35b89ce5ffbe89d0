// This file implements how seer check words a finding's replay (-replay).

package main

import "github.com/seer-tools/seer/predict/check"

// replayLine says what replaying f's witness showed, or "" when it was
// not asked for.
func replayLine(f *check.Finding) string {
	switch f.Confirmed {
	case "":
		return ""
	case check.ConfirmedYes:
		return "replay: confirmed: " + f.Replay
	case check.ConfirmedNo:
		return "replay: not confirmed: " + f.Replay
	}
	return "replay: not tried: " + f.Replay
}
