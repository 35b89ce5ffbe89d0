// This file implements the misuse layer's second schedule for a send on
// (or a second close of) a closed channel: one that reverses critical
// sections (issue 32, item 6). The common shape:
//
//	func (s *S) Close() {              func (s *S) Send(v int) {
//		s.mu.Lock()                        s.mu.Lock()
//		close(s.ch)       // cl            s.ch <- v         // op
//		s.closed = true                    s.mu.Unlock()
//		s.mu.Unlock()                  }
//	}
//
// In the recorded run Send's section came first; the closure of misuse.go
// keeps sections in observed order, so with Send's goroutine stopped
// before op its section is open, Close's later acquire needs it released,
// and op would be in the cut: no schedule there. Here Send's section is
// moved after Close's (moveAfter, section_move.go): the schedule is the
// cone of Close's whole section and of Send's goroutine before its
// section, closed under the lock rule, in observed order, then Send's
// events from its acquire up to op, which is next with the channel
// closed. Every moved read keeps its observed writer, so a Send that
// checks s.closed inside its section (the fix) has no such schedule: the
// read would see Close's write, not the one it saw, and what the
// goroutine does next is then not known.
//
// The channel's state is judged as misuse.go's: cl is the only close of
// the channel in the schedule, and no other send on it starts after cl
// (it would have panicked first). The finding is Predicted (the run sent
// first); the checker (package witness, misuse.go) re-checks it as every
// misuse schedule, the moved events being its Witness.
//
// Contract: it reports only schedules moveAfter builds and whose channel
// state fails op; no search.

package predict

import "github.com/seer-tools/seer/predict/report"

// moved tries the schedule that runs op's goroutine's section open at op
// after the section that closes at cl (the file comment), for a candidate
// of key k whose closure in observed order found none; closes and sends
// are the channel's. It records the finding when there is one.
func (m *misuse) moved(kind report.Kind, k patternKey, cl, op int32, closes, sends []int32) error {
	e, c := m.e, m.e.c
	g := int32(c.ev[op].G)
	s0, ok := e.moveAfter(cl, op, m.cut, m.tmp)
	if err := e.ctx.Err(); err != nil {
		return err
	}
	if !ok || s0 == c.pos[op] || !m.inCut(cl) || op > cl {
		return nil // nothing moved: the closure in observed order said no
	}
	for _, x := range closes {
		if x != cl && m.inCut(x) {
			return nil // closed twice before op: that close panics first
		}
	}
	for _, x := range sends {
		if x == op {
			continue
		}
		if x > cl && m.inCut(x) || c.ev[x].G == c.ev[op].G && c.pos[x] >= s0 && c.pos[x] < c.pos[op] {
			return nil // a send after the close runs first: it panics first
		}
	}
	fd := e.movedFinding(g, m.cut, s0, c.pos[op]-1)
	fd.Kind, fd.Events = kind, []int{int(cl), int(op)}
	m.out = append(m.out, fd)
	m.proved[k] = true
	return nil
}
