// This file implements the observed blocking findings: goroutines of a
// test that the recorded run itself left blocked, because the test
// returned without them (a leak) or because the run hung (a deadlock Go
// reported, "all goroutines are asleep", or a test timeout).
//
// A goroutine is taken to be left blocked when the trace holds no OpEnd
// for it: it was alive when the process exited, after every test had
// returned and after every later test and Cleanup had run (a goroutine
// that one of them ends has its OpEnd). Excluded, as they are no leak
// of the test's:
//
//   - goroutines of no test (the testing harness's) and goroutines the
//     runtime created (GC workers, the finalizer goroutine, timers'
//     goroutines);
//   - in a run that did not hang, a test's own goroutine (tRunner's,
//     created by the testing package): the process may exit after the
//     last test returned and before its end is recorded;
//   - a goroutine whose last act signals that it is finishing (wg.Done,
//     close): the test waits for that signal, and the process may exit
//     before the goroutine's own exit is recorded.
//
// In a run that did not hang, a goroutine is reported only if its last
// event shows the call it blocks in (below), and that event came before
// the last event of its test's own goroutine: it sat blocked from before
// the test returned until the process exited; one in Cond.Wait only if
// no goroutine of its test is alive and not known to be blocked (such a
// goroutine may still signal it). ObservedLeft also reports,
// as goleak does, every goroutine of a test that the recorder's exit
// hook found still alive after goleak's grace, whatever its last event. The others (a receive
// leaves no event; a goroutine may be running or finishing as the
// process exits) stay in the test's list of goroutines still running.
//
// Where it waits: the race runtime records an operation when it
// completes, so a goroutine blocked for ever leaves no event of the
// operation it blocks in — but some operations record something before
// they block, and the goroutine's last event then names the blocking
// call exactly: a channel send (runtime.chansend reads the channel
// before it parks), a select with a send case, Mutex.Lock and
// RWMutex.Lock/RLock (the lock word's compare-and-swap), Cond.Wait (it
// unlocks its lock before it parks), WaitGroup.Wait (the first waiter
// writes the semaphore). A receive leaves nothing: the finding then gives
// the goroutine's last recorded operation and the function it was in,
// and says that the blocking call comes after it.
//
// A leak finding is one place (test, site, blocking operation), and an
// observed deadlock one test with an event per place. Events hold, per
// place, one such goroutine's last event with a frame
// of the user's code (the events after it are inside the call it blocks
// in); Count is
// how many goroutines of the test stopped there. Its schedule
// is the recorded run itself, which the checker (package witness, Kind
// leak) replays: each event is the last of its goroutine with a user
// frame, none of its goroutine's events ends it, and the schedule runs
// all of them.
//
// Contract: it reports only goroutines that the recorded run itself left
// blocked, as the rules above tell; the witness is the recorded run,
// with no search.

package predict

import (
	"context"
	"slices"
	"strings"

	"github.com/seer-tools/seer/trace"
)

// ObservedBlocked returns the goroutines that the recorded run t left
// blocked, grouped by test and place (see the file comment): as leak
// findings, or if hung is set (the run deadlocked or timed out) as
// observed deadlocks. Call it only for a run that ended as a whole —
// normally (its tests passed or failed), or hung — not for one stopped
// by a panic, os.Exit or a signal, which stops every goroutine alike.
func ObservedBlocked(t *trace.Trace, hung bool) []Finding {
	fs, _ := observedBlocked(context.Background(), t, hung, nil)
	return fs
}

// ObservedLeft is ObservedBlocked for a run that ended normally and
// whose exit hook (trace/record's hang.go) found the goroutines for which
// left is true still alive after goleak's grace: those of a test are
// leaks too, as goleak reports them, though their last event does not
// show a blocking call (a receive leaves none; a goroutine that sleeps
// or runs in a loop makes none) or came after their test returned.
func ObservedLeft(t *trace.Trace, left func(trace.GoID) bool) []Finding {
	fs, _ := observedBlocked(context.Background(), t, false, left)
	return fs
}

// ObservedBlockedContext is ObservedLeft if left is not nil and
// ObservedBlocked otherwise, and returns ctx's error, without findings,
// if ctx is done before it has walked the trace: seer check walks it
// beside Analyze's first passes (Options.WhileWhole).
func ObservedBlockedContext(ctx context.Context, t *trace.Trace, hung bool, left func(trace.GoID) bool) ([]Finding, error) {
	if left != nil {
		hung = false
	}
	return observedBlocked(ctx, t, hung, left)
}

func observedBlocked(ctx context.Context, t *trace.Trace, hung bool, left func(trace.GoID) bool) ([]Finding, error) {
	if len(t.Events) == 0 || t.Header.Format == "std" {
		return nil, nil
	}
	// Each goroutine's last event, and its last with a frame of the
	// user's code, in one pass: found goroutine by goroutine, from its
	// last event on and back, they cost a walk of the trace each, which
	// tens of thousands of goroutines make quadratic.
	last := make([]int32, len(t.Goroutines))
	lastUser := make([]int32, len(t.Goroutines))
	for g := range last {
		last[g], lastUser[g] = -1, -1
	}
	user := make([]int8, t.Stacks.Len()) // per stack: 1 it has a user frame, -1 not, 0 not judged yet
	for i := range t.Events {
		if i&stopEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		e := &t.Events[i]
		g := e.G
		if int(g) <= 0 || int(g) >= len(last) || e.Op.IsMarker() {
			continue // a transaction's boundary is no act of its goroutine
		}
		last[g] = int32(i)
		if int(e.Stack) >= len(user) {
			continue
		}
		if user[e.Stack] == 0 {
			user[e.Stack] = -1
			if _, ok := t.Stacks.UserFrameOf(e.Stack, t.Header.GOROOT); ok {
				user[e.Stack] = 1
			}
		}
		if user[e.Stack] > 0 {
			lastUser[g] = int32(i)
		}
	}
	kind := KindLeak
	if hung {
		kind = KindDeadlock
	}
	// Where each test's own goroutine (testing.tRunner's) made its last
	// event: the test had returned, or was about to, by then.
	testEnd := map[string]int32{}
	for g := 1; g < len(t.Goroutines); g++ {
		gr := &t.Goroutines[g]
		if _, user := t.Stacks.UserFrameOf(gr.Create, t.Header.GOROOT); !user && gr.Test != "" && last[g] > testEnd[gr.Test] {
			testEnd[gr.Test] = last[g]
		}
	}
	type key struct {
		test  string
		site  trace.Frame
		block string
	}
	// The tests with a goroutine alive at the exit and not known to be
	// blocked (running, or waiting on I/O, a timer or a system call):
	// such a goroutine may still wake a Cond waiter of its test, as the
	// reader of net/http's connection wakes its server goroutine, in
	// Cond.Wait in abortPendingRead, once its read returns.
	awake := map[string]bool{}
	for g := 1; g < len(t.Goroutines); g++ {
		i := last[g]
		if i < 0 || t.Goroutines[g].Test == "" || goroutineOfHarness(t, trace.GoID(g)) {
			continue
		}
		if c, ok := t.Stacks.Top(t.Goroutines[g].Create); !ok || strings.HasPrefix(c.Func, "testing.") {
			continue // the test's own goroutine (tRunner's), which returned
		}
		switch t.Events[i].Op {
		case trace.OpEnd, trace.OpWGDone, trace.OpClose:
			continue
		}
		if blockedAt(t, int(i), t.Events[i].Op == trace.OpCondWait) == "" {
			awake[t.Goroutines[g].Test] = true
		}
	}
	groups := map[key]*Finding{}
	seen := map[key]bool{}
	var order []key
	for g := 1; g < len(t.Goroutines); g++ {
		i := last[g]
		if i < 0 || goroutineOfHarness(t, trace.GoID(g)) {
			continue
		}
		if _, user := t.Stacks.UserFrameOf(t.Goroutines[g].Create, t.Header.GOROOT); !user && !hung {
			// The test's own goroutine (testing.tRunner's): the process
			// may exit after the last test returns and before its end is
			// recorded. In a run that hung, it is as blocked as the rest.
			continue
		}
		switch t.Events[i].Op {
		case trace.OpEnd, trace.OpWGDone, trace.OpClose:
			continue
		}
		block := blockedAt(t, int(i), t.Events[i].Op == trace.OpCondWait)
		if !hung && (left == nil || !left(trace.GoID(g))) && (block == "" || i > testEnd[t.Goroutines[g].Test]) {
			// Not known to be blocked (it may be running, or finishing as
			// the process exits), or blocked only after its test
			// returned: not reported.
			continue
		}
		if !hung && (left == nil || !left(trace.GoID(g))) && block == "cond-wait" && awake[t.Goroutines[g].Test] {
			// A Signal or Broadcast may yet come from a goroutine of the
			// test that is not blocked.
			continue
		}
		// The event to report: the last with a frame of the user's code
		// (a blocked call's own last events may have none).
		if lastUser[g] >= 0 {
			i = lastUser[g]
		}
		k := key{t.Goroutines[g].Test, t.Site(&t.Events[i]), block}
		if hung {
			// One deadlock per test, with a goroutine per place.
			tk := key{test: k.test}
			f := groups[tk]
			if f == nil {
				f = &Finding{Kind: kind, Prefix: len(t.Events) - 1, Witness: []int{len(t.Events) - 1}}
				groups[tk] = f
				order = append(order, tk)
			}
			f.Count++
			if !seen[k] {
				seen[k] = true
				f.Events = append(f.Events, int(i))
			}
			continue
		}
		if f := groups[k]; f != nil {
			f.Count++
			continue
		}
		groups[k] = &Finding{Kind: kind, Events: []int{int(i)}, Prefix: len(t.Events) - 1, Witness: []int{len(t.Events) - 1}, Count: 1}
		order = append(order, k)
	}
	var out []Finding
	for _, k := range order {
		out = append(out, *groups[k])
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Events[0] - b.Events[0] })
	return out, nil
}

// BlockedIn names the operation that the goroutine of event i blocks
// in, when its last event (i or a later one) shows it ("send",
// "select", "lock", "rlock", "cond-wait", "wait"), or "" when the run
// does not say (a receive, a sleep, a system call).
func BlockedIn(t *trace.Trace, i int) string {
	woke := false // a Cond.Wait that woke: it blocks re-locking
	for j := i; j < len(t.Events); j++ {
		if t.Events[j].G == t.Events[i].G {
			if t.Events[j].Op == trace.OpCondWait {
				woke = true
			}
			i = j
		}
	}
	return blockedAt(t, i, woke)
}

// blockedAt is BlockedIn for the last event i of its goroutine; woke
// reports whether the goroutine's events from BlockedIn's on include a
// Cond.Wait that woke.
func blockedAt(t *trace.Trace, i int, woke bool) string {
	e := &t.Events[i]
	for f := range t.Stacks.All(e.Stack) {
		switch f.Func {
		case "runtime.chansend", "runtime.chansend1":
			if e.Op.IsAccess() {
				return "send"
			}
		case "runtime.selectgo":
			if e.Op.IsAccess() {
				return "select"
			}
		case "sync.(*Cond).Wait":
			if woke {
				return "lock"
			}
			return "cond-wait"
		case "sync.(*WaitGroup).Wait":
			if e.Op.IsAccess() {
				return "wait"
			}
		case "sync.(*RWMutex).RLock":
			if e.Op.IsAccess() {
				return "rlock"
			}
		case "internal/sync.(*Mutex).Lock", "internal/sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock", "sync.(*RWMutex).Lock":
			if e.Op.IsAccess() || e.Op == trace.OpAtomicLoad {
				return "lock"
			}
		}
		if !strings.HasPrefix(f.Func, "runtime.") && !strings.HasPrefix(f.Func, "sync.") &&
			!strings.HasPrefix(f.Func, "internal/") && !strings.HasPrefix(f.Func, "sync/atomic.") {
			break // past the library: a user frame
		}
	}
	return ""
}
