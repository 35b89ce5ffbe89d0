// This file implements the static half of a re-paired receive (issue 32,
// channel partners; predict/witness/partner.go): whether the receive on
// a line can take another send than in the recorded run without its
// goroutine doing anything else, because the value it receives decides
// nothing.

package static

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/seer-tools/seer/trace"
)

// zeroSizes measures element types: only whether a size is zero matters,
// which no architecture changes.
var zeroSizes = types.SizesFor("gc", "amd64")

// RecvValueFree reports whether the plain channel receives on the line
// of frame f (outside any select; in the functions that may have run
// it, see Functions) never let their value decide anything: there is at
// least one, and for each either the element type has size zero
// (struct{}, [0]T: every value is the same), or the value received is
// discarded — the statement `<-ch`, or a range over a channel with no
// iteration variable (`for range ch`), whose second result (false once
// the channel is closed and empty) is the only one used. A receive that
// takes another send is then the same step for its goroutine. Unknown
// means false.
func (p *Program) RecvValueFree(f trace.Frame) bool {
	fi, fns, ok := p.resolve(f)
	if !ok {
		return false
	}
	n := 0
	for _, fn := range fns {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				u, ok := in.(*ssa.UnOp)
				if !ok || u.Op != token.ARROW || !u.Pos().IsValid() || fi.tok.Line(u.Pos()) != f.Line {
					continue
				}
				n++
				if !valueFree(u) {
					return false
				}
			}
		}
	}
	return n > 0
}

// valueFree reports whether receive u's value decides nothing (see
// RecvValueFree).
func valueFree(u *ssa.UnOp) bool {
	ct, ok := u.X.Type().Underlying().(*types.Chan)
	if !ok {
		return false
	}
	if zeroSizes.Sizeof(ct.Elem()) == 0 {
		return true
	}
	if !u.CommaOk {
		return unused(u)
	}
	for _, r := range *u.Referrers() {
		switch x := r.(type) {
		case *ssa.DebugRef: // the program's debug information, not a use
		case *ssa.Extract:
			if x.Index == 0 && !unused(x) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// unused reports whether v has no referrer but debug information.
func unused(v ssa.Value) bool {
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		if _, ok := r.(*ssa.DebugRef); !ok {
			return false
		}
	}
	return true
}
