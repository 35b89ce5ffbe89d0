// This file implements confirming a finding by replay: the finding's test
// runs again under the recording runtime, which enforces the witness's
// order of synchronisation (trace.ReplaySchedule), and the replayed run's
// own recording decides.
//
// # The schedule
//
// The witness (predict.Finding.Schedule) is a total order of the recorded
// run's events. Its goroutines that belong to the finding's test and were
// started by go statements are enforced: each of their synchronisation
// events, and the two accesses, becomes a step at the event's replay
// position (trace.Trace.ReplayPos), in the witness's order; steps of one
// goroutine at one position are one step. A goroutine the witness stops
// early is held at the position of its first left-out event until every
// step has run. Goroutines are named by creation: the path of child
// indices from the root (the runtime's first context, which starts main),
// the test's own goroutine counted among its parent's children less those
// of other tests, since the replay runs that test alone (-run ^Test$).
//
// # Confirmation
//
// The replay is confirmed when its recording holds the same two accesses
// (the same goroutines by creation, the same replay positions and source
// lines), on the same memory, unordered by the replayed run's own
// happens-before (predict.HappensBefore): the race detector would have
// reported them. Anything else is not confirmed, with where the replay
// diverged: a goroutine that did not reach its step before the turn passed
// on, a goroutine or access the replay did not make, or accesses that the
// replay ordered.
//
// A deadlock's witness stops each goroutine of the cycle before its
// blocked acquire: the replay holds them there until every step has run,
// and is confirmed when the run then hangs (the test times out) with each
// of them at its acquire and past none. Atomicity violations are "not
// tried".

package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// ReplayTimeout bounds one replay run (the recorder opens every gate
// after ReplayTotal; the test itself may take longer).
var (
	ReplayTimeout = time.Minute
	ReplayTotal   = 20 * time.Second
	ReplayStall   = 100 * time.Millisecond
	ReplayAbsent  = 2 * time.Second
	// ReplayDeadlockWait is the test time-out of a deadlock's replay,
	// which is expected to hang.
	ReplayDeadlockWait = 15 * time.Second
)

// A replayPlan is a finding's witness in the recorder's terms.
type replayPlan struct {
	sched *trace.ReplaySchedule
	slots []trace.GoID // slot -> recorded goroutine
	slot  map[trace.GoID]int
	steps []int // step -> recorded event (its first)
	root  int   // slot of the test's own goroutine, or -1
	tail  []int // the schedule's last events (SEER_REPLAY_DEBUG)
}

// claimOf rebuilds the predictor's finding from f.
func claimOf(f *report.Finding) *predict.Finding {
	pf := &predict.Finding{Kind: f.Kind, Predicted: f.Predicted, Prefix: f.PrefixEnd}
	for _, a := range f.Accesses {
		pf.Events = append(pf.Events, a.Event)
	}
	for _, s := range f.Witness {
		pf.Witness = append(pf.Witness, s.Event)
	}
	for _, s := range f.PrefixStops {
		pf.Stops = append(pf.Stops, s.Event)
	}
	return pf
}

// children lists each goroutine's children started by go statements, in
// the order it started them; but for the root's, not those the runtime
// started (GC workers), which the recorder does not count either.
func children(t *trace.Trace) [][]trace.GoID {
	out := make([][]trace.GoID, len(t.Goroutines))
	for i := range t.Events {
		e := &t.Events[i]
		if e.Op != trace.OpGo || e.Stack == 0 || e.Peer <= 0 || int(e.Peer) >= len(t.Goroutines) {
			continue
		}
		if t.Goroutines[e.G].Parent != 0 {
			if top, ok := t.Stacks.Top(e.Stack); ok && !trace.Countable(top.Func) {
				continue
			}
		}
		out[e.G] = append(out[e.G], trace.GoID(e.Peer))
	}
	return out
}

// isOp reports whether e is an operation a step orders (not a plain
// access, nor a goroutine's start or end).
func isOp(e *trace.Event) bool {
	switch e.Op {
	case trace.OpRead, trace.OpWrite, trace.OpStart, trace.OpEnd, trace.OpTxBegin, trace.OpTxEnd, trace.OpJoin:
		return false
	}
	return true
}

// planReplay builds the replay schedule of race finding f from its trace.
func planReplay(t *trace.Trace, f *report.Finding) (*replayPlan, error) {
	if f.Kind == report.KindRace && len(f.Accesses) != 2 || len(f.Accesses) < 2 {
		return nil, fmt.Errorf("a %s finding with %d accesses", f.Kind, len(f.Accesses))
	}
	if _, _, ok := t.ReplayPos(0); !ok {
		return nil, errors.New("the trace was not recorded to be replayed")
	}
	pf := claimOf(f)
	sched := pf.Schedule(t)
	kids := children(t)
	p := &replayPlan{slot: map[trace.GoID]int{}, root: -1}
	// Which goroutine is each one's creator, and by which index?
	index := func(g trace.GoID) (int, bool) {
		gr := t.Goroutine(g)
		par := t.Goroutine(gr.Parent)
		k := 0
		for _, c := range kids[gr.Parent] {
			if c == g {
				return k, true
			}
			// The test's own goroutine is counted among its parent's
			// children, less those of other tests (see the file comment).
			if gr.Test != par.Test && otherTest(t, c, gr.Test) {
				continue
			}
			k++
		}
		return 0, false
	}
	var slotOf func(g trace.GoID) (int, error)
	slotOf = func(g trace.GoID) (int, error) {
		if s, ok := p.slot[g]; ok {
			return s, nil
		}
		gr := t.Goroutine(g)
		if gr == nil {
			return 0, fmt.Errorf("no goroutine %d", g)
		}
		var rg trace.ReplayGoroutine
		if gr.Parent == 0 {
			rg = trace.ReplayGoroutine{Parent: -1, Hold: -1}
			for _, rg := range p.sched.Goroutines {
				if rg.Parent == -1 {
					return 0, fmt.Errorf("goroutine %d was not started by a go statement of the test", g)
				}
			}
		} else {
			k, ok := index(g)
			if !ok || gr.Create == 0 {
				return 0, fmt.Errorf("goroutine %d was started by the runtime, not a go statement", g)
			}
			ps, err := slotOf(gr.Parent)
			if err != nil {
				return 0, err
			}
			rg = trace.ReplayGoroutine{Parent: ps, Index: k, Hold: -1}
			if gr.Test == f.Test && t.Goroutines[gr.Parent].Test != f.Test {
				p.root = len(p.slots)
			}
		}
		s := len(p.slots)
		p.slot[g] = s
		p.slots = append(p.slots, g)
		p.sched.Goroutines = append(p.sched.Goroutines, rg)
		return s, nil
	}
	p.sched = &trace.ReplaySchedule{Stall: ReplayStall, Absent: ReplayAbsent, Total: ReplayTotal}
	for _, a := range f.Accesses {
		if _, err := slotOf(t.Events[a.Event].G); err != nil {
			return nil, err
		}
	}
	bug := map[int]bool{}
	if f.Kind == report.KindRace {
		bug[f.Accesses[0].Event], bug[f.Accesses[1].Event] = true, true
	}
	enforced := func(g trace.GoID) bool {
		gr := t.Goroutine(g)
		if gr == nil || gr.Test != f.Test {
			return false
		}
		_, err := slotOf(g)
		return err == nil
	}
	p.tail = sched[max(0, len(sched)-40):]
	inSched := make(map[int]bool, len(sched))
	last := map[int]int{} // slot -> its last step
	for _, i := range sched {
		inSched[i] = true
		e := &t.Events[i]
		if !bug[i] && !isOp(e) || !enforced(e.G) {
			continue
		}
		pos, own, _ := t.ReplayPos(i)
		if !own {
			continue
		}
		s := p.slot[e.G]
		p.sched.Goroutines[s].Enforced = true
		st := trace.ReplayStep{Slot: s, Gate: pos}
		if k, ok := last[s]; ok {
			prev := &t.Events[p.steps[k]]
			switch {
			case p.sched.Steps[k].Gate > pos:
				continue // cannot happen: positions only grow
			case p.sched.Steps[k].Gate == pos:
				st.Same = true
				if o := t.Object(prev.Obj); prev.Op == trace.OpUnlock && o != nil && o.Kind == trace.ObjMutex {
					st.AfterUnlock = true
				}
			}
		}
		last[s] = len(p.sched.Steps)
		p.sched.Steps = append(p.sched.Steps, st)
		p.steps = append(p.steps, i)
	}
	// Holds: a goroutine the witness stops waits before its first
	// left-out event, if a countable record comes between it and the
	// goroutine's last step.
	first := map[trace.GoID]int{}
	for i := range t.Events {
		g := t.Events[i].G
		if _, ok := first[g]; ok || inSched[i] {
			continue
		}
		if s, ok := p.slot[g]; ok && p.sched.Goroutines[s].Enforced {
			first[g] = i
		}
	}
	for g, i := range first {
		s := p.slot[g]
		pos, own, _ := t.ReplayPos(i)
		if !own {
			continue
		}
		if k, ok := last[s]; ok && p.sched.Steps[k].Gate >= pos {
			g := &p.sched.Goroutines[s]
			g.HoldAfterStep = true
			prev := &t.Events[p.steps[k]]
			if o := t.Object(prev.Obj); prev.Op == trace.OpUnlock && o != nil && o.Kind == trace.ObjMutex {
				g.AfterUnlock = true
			}
			continue
		}
		p.sched.Goroutines[s].Hold = int(pos)
	}
	return p, nil
}

// replayRun is the test pattern a replay of f runs.
func replayRun(f *report.Finding) string { return "^" + regexp.QuoteMeta(f.Test) + "$" }

// replayFinding replays f (found in trace t, recorded by bin) and sets
// f.Confirmed and f.Replay.
func replayFinding(ctx context.Context, bin *record.Binary, ropts record.RecordOptions, t *trace.Trace, f *report.Finding) error {
	if !f.Kind.Replayable() {
		f.Confirmed, f.Replay = report.ConfirmedNotTried, "replay confirms races and deadlocks only"
		return nil
	}
	p, err := planReplay(t, f)
	if err != nil {
		f.Confirmed, f.Replay = report.ConfirmedNotTried, err.Error()
		return nil
	}
	ropts.Run, ropts.Skip = replayRun(f), ""
	ropts.Replay = p.sched
	ropts.Timeout = ReplayTimeout
	if f.Kind == report.KindDeadlock {
		// The goroutines of the cycle wait at their blocked acquires
		// until every step has run, and then hang: the test's own
		// time-out ends the run.
		ropts.Timeout = ReplayDeadlockWait
	}
	ropts.Progress = nil
	ropts.NoFile = true
	rctx, cancel := context.WithTimeout(ctx, ReplayTimeout+time.Minute)
	defer cancel()
	rec, err := bin.Run(rctx, ropts)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		f.Confirmed, f.Replay = report.ConfirmedNo, fmt.Sprintf("the replay did not run: %v", err)
		return nil
	}
	if os.Getenv("SEER_REPLAY_DEBUG") != "" {
		p.debug(os.Stderr, t, rec)
	}
	ok, why := p.confirm(t, rec, f)
	f.Confirmed, f.Replay = report.ConfirmedNo, why
	if ok {
		f.Confirmed = report.ConfirmedYes
	}
	return nil
}

// stepSite names step k of the plan as "g7's step 12 (file:line)".
func (p *replayPlan) stepSite(t *trace.Trace, k int) string {
	i := p.steps[k]
	e := &t.Events[i]
	site := t.Site(e)
	n := 0
	for j := 0; j < k; j++ {
		if p.sched.Steps[j].Slot == p.sched.Steps[k].Slot {
			n++
		}
	}
	return fmt.Sprintf("g%d did not reach its step %d (%s %s:%d)", e.G, n+1, e.Op, filepath.Base(site.File), site.Line)
}

// confirm decides whether replayed run rec shows f (recorded in t).
func (p *replayPlan) confirm(t *trace.Trace, rec *record.RecordResult, f *report.Finding) (bool, string) {
	o := rec.Replay
	if o == nil || !o.Attached {
		return false, "the recorder did not take the schedule"
	}
	diverged := ""
	if o.Missing >= 0 && o.Missing < len(p.steps) {
		diverged = fmt.Sprintf("%s within %v", p.stepSite(t, o.Missing), ReplayAbsent)
	} else if o.Opened {
		diverged = fmt.Sprintf("the replay did not finish its %d steps within %v", len(p.steps), ReplayTotal)
	}
	why := func(s string) (bool, string) {
		if diverged != "" {
			s += "; " + diverged
		}
		return false, s
	}
	rt := rec.Trace
	rg := p.replayGoroutines(rt, f.Test)
	if f.Kind == report.KindDeadlock {
		return p.confirmDeadlock(t, rec, f, rg, why)
	}
	var got [2]int
	for n, a := range f.Accesses {
		e := &t.Events[a.Event]
		s := p.slot[e.G]
		r := rg[s]
		if r == 0 {
			return why(fmt.Sprintf("the replay did not start goroutine %d (%s)", e.G, createdAt(t, e.G)))
		}
		if c, rc := createdAt(t, e.G), createdAt(rt, r); c != rc {
			return why(fmt.Sprintf("goroutine %d was created at %s in the replay, at %s in the recording", e.G, rc, c))
		}
		j := findAccess(t, a.Event, rt, r)
		if j < 0 {
			site := t.Site(e)
			return why(fmt.Sprintf("g%d did not %s at %s:%d in the replay", e.G, e.Op, filepath.Base(site.File), site.Line))
		}
		got[n] = j
	}
	ea, eb := &rt.Events[got[0]], &rt.Events[got[1]]
	if !ea.Overlaps(eb) {
		return why("the replayed accesses touched different memory")
	}
	ordered, err := predict.HappensBefore(rt, got[0], got[1])
	if err != nil {
		return why(err.Error())
	}
	if ordered {
		return why("the replayed run ordered the two accesses")
	}
	note := "the replayed run left the accesses unordered"
	if r := rec.Outcome.Result; r != "pass" {
		note += fmt.Sprintf(", and its test ended: %s", r)
	}
	if o.Skipped > 0 {
		note += fmt.Sprintf(" (%d of %d steps passed on a goroutine blocked in its operation)", o.Skipped, len(p.steps))
	}
	return true, note
}

// replayGoroutines matches the plan's goroutines in the replayed run rt
// (0: not started there).
func (p *replayPlan) replayGoroutines(rt *trace.Trace, test string) []trace.GoID {
	rkids := children(rt)
	rg := make([]trace.GoID, len(p.slots))
	for s, g := range p.sched.Goroutines {
		if g.Parent < 0 {
			rg[s] = mainOf(rt, test)
			continue
		}
		parent := rg[g.Parent]
		if parent == 0 {
			continue
		}
		k := 0
		for _, c := range rkids[parent] {
			if s == p.root && otherTest(rt, c, test) {
				continue
			}
			if k == g.Index {
				rg[s] = c
				break
			}
			k++
		}
	}
	return rg
}

// confirmDeadlock decides whether replayed run rec shows deadlock f: the
// run hung (the test timed out, or the runtime found every goroutine
// asleep), and each goroutine of the cycle reached its blocked acquire's
// position, in the acquire's source line, and never acquired there.
func (p *replayPlan) confirmDeadlock(t *trace.Trace, rec *record.RecordResult, f *report.Finding, rg []trace.GoID, why func(string) (bool, string)) (bool, string) {
	rt := rec.Trace
	hung := rec.Outcome.Result == "timeout" || strings.Contains(rec.Outcome.Message, "all goroutines are asleep")
	if !hung {
		return why(fmt.Sprintf("the replayed run did not hang (its test ended: %s)", rec.Outcome.Result))
	}
	for _, a := range f.Accesses {
		e := &t.Events[a.Event]
		r := rg[p.slot[e.G]]
		if r == 0 {
			return why(fmt.Sprintf("the replay did not start goroutine %d (%s)", e.G, createdAt(t, e.G)))
		}
		pos, _, _ := t.ReplayPos(a.Event)
		reached, acquired := false, false
		for j := range rt.Events {
			x := &rt.Events[j]
			if x.G != r {
				continue
			}
			xp, own, _ := rt.ReplayPos(j)
			if !own {
				continue
			}
			if xp > pos {
				acquired = true // it went on past the acquire
				break
			}
			if xp == pos {
				reached = true
				if x.Op == e.Op && sameSite(t, e, rt, x) {
					acquired = true
				}
			}
		}
		if os.Getenv("SEER_REPLAY_DEBUG") != "" {
			for j := range rt.Events {
				if x := &rt.Events[j]; x.G == r {
					xp, own, _ := rt.ReplayPos(j)
					xs := rt.Site(x)
					fmt.Fprintf(os.Stderr, "replay g%d (g%d): %d %s pos %d own %v %s:%d\n", r, e.G, j, x.Op, xp, own, filepath.Base(xs.File), xs.Line)
				}
			}
		}
		site := t.Site(e)
		switch {
		case !reached:
			return why(fmt.Sprintf("g%d did not reach its %s at %s:%d in the replay", e.G, e.Op, filepath.Base(site.File), site.Line))
		case acquired:
			return why(fmt.Sprintf("g%d took its %s at %s:%d in the replay", e.G, e.Op, filepath.Base(site.File), site.Line))
		}
	}
	return true, fmt.Sprintf("the replayed run hung (%s) with each goroutine of the cycle blocked in its acquire", rec.Outcome.Result)
}

// otherTest reports whether goroutine g of t belongs to a test other
// than test.
func otherTest(t *trace.Trace, g trace.GoID, test string) bool {
	return t.Goroutines[g].Test != "" && t.Goroutines[g].Test != test
}

// mainOf returns the root of test's goroutine tree in t (main), or 0.
func mainOf(t *trace.Trace, test string) trace.GoID {
	for id := 1; id < len(t.Goroutines); id++ {
		if t.Goroutines[id].Test != test {
			continue
		}
		g := trace.GoID(id)
		for t.Goroutines[g].Parent != 0 {
			g = t.Goroutines[g].Parent
		}
		return g
	}
	return 0
}

// createdAt names where g was created ("file:line"), or "".
func createdAt(t *trace.Trace, g trace.GoID) string {
	gr := t.Goroutine(g)
	if gr == nil || gr.Create == 0 {
		return ""
	}
	fs := t.Stack(gr.Create)
	if len(fs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s:%d", filepath.Base(fs[0].File), fs[0].Line)
}

// findAccess returns the event of goroutine r in rt that is event i of t
// replayed: the same op at the same replay position and source line.
func findAccess(t *trace.Trace, i int, rt *trace.Trace, r trace.GoID) int {
	e := &t.Events[i]
	pos, _, _ := t.ReplayPos(i)
	for j := range rt.Events {
		f := &rt.Events[j]
		if f.G != r || f.Op != e.Op {
			continue
		}
		if p, own, _ := rt.ReplayPos(j); p != pos || !own {
			continue
		}
		if sameSite(t, e, rt, f) {
			return j
		}
	}
	return -1
}

// sameSite reports whether event e of t and event x of rt were made at
// the same place: the same innermost frame and the same user frame.
func sameSite(t *trace.Trace, e *trace.Event, rt *trace.Trace, x *trace.Event) bool {
	top, _ := t.Stacks.Top(e.Stack)
	xtop, _ := rt.Stacks.Top(x.Stack)
	site, xsite := t.Site(e), rt.Site(x)
	return top.Func == xtop.Func && top.Line == xtop.Line && site.File == xsite.File && site.Line == xsite.Line
}

// debug prints the plan and the outcome (SEER_REPLAY_DEBUG).
func (p *replayPlan) debug(w io.Writer, t *trace.Trace, rec *record.RecordResult) {
	for s, g := range p.sched.Goroutines {
		fmt.Fprintf(w, "slot %d = g%d: parent %d index %d enforced %v hold %d after step %v (%s)\n", s, p.slots[s], g.Parent, g.Index, g.Enforced, g.Hold, g.HoldAfterStep, createdAt(t, p.slots[s]))
	}
	fmt.Fprintf(w, "schedule:")
	for _, i := range p.tail {
		fmt.Fprintf(w, " %d(g%d %s)", i, t.Events[i].G, t.Events[i].Op)
	}
	fmt.Fprintln(w)
	for k, st := range p.sched.Steps {
		i := p.steps[k]
		e := &t.Events[i]
		site := t.Site(e)
		fmt.Fprintf(w, "step %d: slot %d gate %d same %v: event %d g%d %s %s:%d\n", k, st.Slot, st.Gate, st.Same, i, e.G, e.Op, filepath.Base(site.File), site.Line)
	}
	fmt.Fprintf(w, "outcome %+v, run %s\n", rec.Replay, rec.Outcome.Result)
	for _, g := range p.slots {
		if rg := rec.Trace.Goroutine(g); rg != nil {
			fmt.Fprintf(w, "replay g%d: created at %s\n", g, createdAt(rec.Trace, g))
		}
	}
}
