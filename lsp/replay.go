// This file implements the arguments of the "Replay witness" action
// (check.Options.Replay); the hover's line on a replay is report's.

package lsp

// replayArgs are seer.predict's arguments from the "Replay witness"
// action: the prediction of the test also replays each race's and
// deadlock's witness (check.Options.Replay), and the hover then says
// whether the replay confirmed it.
type replayArgs struct {
	predictArgs
	Replay bool `json:"replay,omitempty"`
}
