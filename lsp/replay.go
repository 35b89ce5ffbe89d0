// This file implements what the hover says of a finding's replay (the
// "Replay witness" action, check.Options.Replay).

package lsp

import "github.com/seer-tools/seer/predict/report"

// replayArgs are seer.predict's arguments from the "Replay witness"
// action: the prediction of the test also replays each race's and
// deadlock's witness (check.Options.Replay), and the hover then says
// whether the replay confirmed it.
type replayArgs struct {
	predictArgs
	Replay bool `json:"replay,omitempty"`
}

// replayHover is the hover's line on f's replay, or "" if none was run.
func replayHover(f *report.Finding) string {
	switch f.Confirmed {
	case "":
		return ""
	case report.ConfirmedYes:
		return "- **Confirmed by replay**: seer ran the test again under the witness schedule, and " + f.Replay + ".\n"
	case report.ConfirmedNo:
		return "- **Not confirmed by replay**: " + f.Replay + ".\n"
	}
	return "- Replay not tried: " + f.Replay + ".\n"
}
