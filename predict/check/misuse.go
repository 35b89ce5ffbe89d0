// This file implements the words for a misuse finding's operations and
// objects (predict's misuse.go finds them; package report tells them).

package check

import (
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// misuseOp is the word for a misuse finding's event: a send's start is
// chansend's read of the channel, which the report calls a send.
func misuseOp(t *trace.Trace, i int) string {
	if witness.SendStart(t, i) {
		return "send"
	}
	return t.Events[i].Op.String()
}

// misuseObject names the primitive of a misuse finding's event i, made at
// user site: the channel a send starts on (chansend's read names it by
// memory), else what object names.
func (n *namer) misuseObject(i int, site trace.Frame) string {
	if witness.SendStart(n.t, i) && n.t.Header.Format != "std" {
		if name := n.channelAt(site, trace.OpSend); name != "" {
			return name
		}
	}
	return n.object(i, true)
}
