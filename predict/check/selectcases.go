// This file feeds predict the static half of a select that can never
// proceed (predict/deadlock_select.go): the cases of the select an event
// was made in, but the one the trace shows it took, each with the places
// that could complete it (static.Program.SelectCases).

package check

import (
	"path/filepath"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/static"
	"github.com/seer-tools/seer/trace"
)

// casesSource is a Source that can list a select's cases with their
// partners' places (static.Program.SelectCases).
type casesSource interface {
	SelectCases(f trace.Frame) ([]static.SelectCase, bool)
}

// SelectCases is static's list of the cases of the select on the line of
// f, each with every place that could complete it.
func (s StaticSource) SelectCases(f trace.Frame) ([]static.SelectCase, bool) {
	return s.Prog.SelectCases(f)
}

// selectCases turns src's per-site answer into predict's per-event
// Options.SelectCases. The select's site is the event's user frame. The
// case the trace holds is the one whose partners' places include the
// place of the event's partner in the run (the other goroutine's
// operation on the channel right next to it in the run's order): static
// lists every operation on each case's channel, so the case of the
// event's channel holds that place; when no case or more than one does,
// the answer is unknown.
func selectCases(src casesSource) func(t *trace.Trace, sel int) ([]witness.SelectCase, bool) {
	return func(t *trace.Trace, sel int) ([]witness.SelectCase, bool) {
		f, ok := trace.UserFrame(t.Stack(t.Events[sel].Stack), t.Header.GOROOT)
		if !ok {
			return nil, false
		}
		j, ok := runPartner(t, sel)
		if !ok {
			return nil, false
		}
		p, _ := trace.UserFrame(t.Stack(t.Events[j].Stack), t.Header.GOROOT)
		cases, ok := src.SelectCases(trace.Frame{Func: f.Func, File: f.File, Line: f.Line})
		if !ok {
			return nil, false
		}
		taken := -1
		for k, c := range cases {
			for _, q := range c.Partners {
				if q.Line == p.Line && filepath.Base(q.File) == filepath.Base(p.File) {
					if taken >= 0 && taken != k {
						return nil, false
					}
					taken = k
				}
			}
		}
		if taken < 0 {
			return nil, false
		}
		others := make([]witness.SelectCase, 0, len(cases)-1)
		for k, c := range cases {
			if k != taken {
				others = append(others, witness.SelectCase{Send: c.Send, Name: c.Name, Partners: c.Partners})
			}
		}
		return others, true
	}
}

// runPartner returns an event of the operation that completed channel
// event i's in the run: an event of another goroutine on the same
// channel, of the other direction, within the rendezvous' four events
// around i, all such events being at one place of the user's code.
func runPartner(t *trace.Trace, i int) (int, bool) {
	e := &t.Events[i]
	want := trace.OpRecv
	if e.Op == trace.OpRecv {
		want = trace.OpSend
	}
	var found trace.Frame
	n, at := 0, -1
	for j := max(0, i-3); j <= i+3 && j < len(t.Events); j++ {
		o := &t.Events[j]
		if o.G == e.G || o.Obj != e.Obj || o.Obj == 0 || o.Op != want {
			continue
		}
		f, ok := trace.UserFrame(t.Stack(o.Stack), t.Header.GOROOT)
		if !ok || n > 0 && (f.Line != found.Line || f.File != found.File) {
			return -1, false
		}
		found, at = f, j
		n++
	}
	return at, n > 0
}

// stuck names the selects f's witness leaves waiting for ever
// (report.Finding.Stuck).
func stuck(t *trace.Trace, f *predict.Finding, names *namer) []report.StuckSelect {
	var out []report.StuckSelect
	for _, s := range f.Stuck {
		e := &t.Events[s.Event]
		site, user := trace.UserFrame(t.Stack(e.Stack), t.Header.GOROOT)
		if !user {
			site = t.Site(e)
		}
		// The select's line names no channel: its case's partner's does.
		taken := names.object(s.Event, user)
		if j, ok := runPartner(t, s.Event); ok {
			taken = names.object(j, true)
		}
		st := report.StuckSelect{Goroutine: int(e.G), File: site.File, Line: site.Line, Taken: taken}
		for _, c := range s.Others {
			rc := report.SelectCase{Send: c.Send, Channel: c.Name}
			for _, p := range c.Partners {
				rc.Partners = append(rc.Partners, report.Access{File: p.File, Line: p.Line})
			}
			st.Others = append(st.Others, rc)
		}
		out = append(out, st)
	}
	return out
}

// stuckName names the channel of event i when f.Stuck lists it (a
// select's event): the case's channel, named at its partner in the run,
// since the select's line names none; "" otherwise.
func stuckName(t *trace.Trace, f *predict.Finding, i int, names *namer) string {
	for _, s := range f.Stuck {
		if s.Event == i {
			if j, ok := runPartner(t, i); ok {
				return names.object(j, true)
			}
		}
	}
	return ""
}
