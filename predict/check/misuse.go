// This file implements the report side of the misuse kinds (predict's
// misuse.go): their titles, their documentation for -explain, the hover
// and docs/findings.md, and the words for their operations.

package check

import (
	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// misuseKinds are the misuse kinds, in the order the docs list them.
var misuseKinds = []string{
	predict.KindSendOnClosed, predict.KindCloseOfClosed, predict.KindNegativeWaitGroup,
	predict.KindWaitGroupReuse, predict.KindUnlockOfUnlocked,
}

// IsMisuse reports whether kind is one of the misuse kinds.
func IsMisuse(kind string) bool { return witness.IsMisuse(witness.Kind(kind)) }

// KindTitle names a finding kind in prose: "data race", "send on a
// closed channel".
func KindTitle(kind string) string {
	switch kind {
	case "race":
		return "data race"
	case "atomicity":
		return "atomicity violation"
	case "deadlock":
		return "lock-order deadlock"
	case predict.KindSendOnClosed:
		return "send on a closed channel"
	case predict.KindCloseOfClosed:
		return "close of a closed channel"
	case predict.KindNegativeWaitGroup:
		return "negative WaitGroup counter"
	case predict.KindWaitGroupReuse:
		return "WaitGroup Add concurrent with Wait"
	case predict.KindUnlockOfUnlocked:
		return "unlock of an unlocked mutex"
	}
	return kind
}

// misuseOp is the word for a misuse finding's event: a send's start is
// chansend's read of the channel, which the report calls a send.
func misuseOp(t *trace.Trace, i int) string {
	if witness.SendStart(t, i) {
		return "send"
	}
	return t.Events[i].Op.String()
}

func init() {
	explanations[predict.KindSendOnClosed] = `# send-on-closed: a send that another schedule runs after the close

A goroutine sends on a channel that another goroutine closes, and nothing
orders the send before the close: the recorded run sent first, but in
another schedule the close comes first and the send panics with "send on
closed channel". The typical shape is a Stop or Close method that closes
a channel while a worker or a caller may still send on it.

The finding names the close and the send. Its witness is a schedule of the
same test, in which every goroutine does what it did in the recorded run
and every read sees the same write, that runs the close and ends with the
send as the next step of its goroutine. The independent checker replays it
and checks that the channel is closed there, once. A run that did send on
the closed channel (and panicked, or recovered) is reported as observed.

Fix: let only the sender close the channel, or make senders and the closer
agree through a lock or a done channel that the senders select on.`
	explanations[predict.KindCloseOfClosed] = `# close-of-closed: a channel closed twice

Two closes of one channel run in one schedule: the second panics with
"close of closed channel". A run that did not panic never closes a channel
twice, and the second close of a run that panicked is not recorded (the
runtime panics before it tells the race runtime), so seer predicts this
kind only in traces that hold two closes of one channel. A double close on
two shutdown paths that the recorded run took only one of is beyond the
recording: no schedule of the run's own events contains the second close.

A run that did panic with "close of closed channel" is reported as
observed: the second close at the line the panic's stack gives (from the
test's output), and the first close from the trace when the run closed
only that one channel.

Fix: close a channel in one place, or guard the close with sync.Once.`
	explanations[predict.KindNegativeWaitGroup] = `# negative-waitgroup: a Done that can come before its Add

A WaitGroup's Done can run when its counter is zero, and Done then panics
with "sync: negative WaitGroup counter". The recorded run added first, but
nothing orders the Add before the Done: typically the Add comes after the
go statement that starts the goroutine calling Done, or a goroutine calls
Done twice (an explicit Done and a deferred one) and the run's order hid
it behind another Add.

The witness is a schedule of the same test, in which every goroutine does
what it did in the recorded run and every read sees the same write, that
ends with the Done as the next step of its goroutine and the counter, the
sum of the Adds and Dones the schedule ran, at zero. A WaitGroup whose
counter the recording cannot follow (an Add with a negative delta, whose
delta is not recorded, or a group copied over) is not judged.

Fix: call Add before the go statement (or use WaitGroup.Go), and call Done
once per Add.`
	explanations[predict.KindWaitGroupReuse] = `# waitgroup-reuse: an Add at zero concurrent with a Wait

An Add with a positive delta can run while the counter is zero and a Wait
of another goroutine is due: sync.WaitGroup requires that such an Add
happen before the Wait ("calls with a positive delta that occur when the
counter is zero must happen before a Wait"). In the schedule the witness
shows, the Wait finds the counter at zero and returns at once, before the
task the Add counts has even been counted: the waiter goes on while that
task runs (and if the Wait had blocked, the runtime panics with "WaitGroup
misuse: Add called concurrently with Wait" or "WaitGroup is reused before
previous Wait has returned"). The typical shape is wg.Add(1) inside the
goroutine instead of before the go statement.

Precisely: the witness is a schedule of the same test, in which every
goroutine does what it did in the recorded run and every read sees the same
write, after which the Wait and the Add are the next steps of two
goroutines and the counter is zero. An Add that happens after the Wait
returned (a WaitGroup reused in rounds) is never reported. It is observed
when the recorded run's Wait itself returned before the Add.

Fix: call Add before starting the goroutine (or use WaitGroup.Go), and
start a new round only after Wait returned.`
	explanations[predict.KindUnlockOfUnlocked] = `# unlock-of-unlocked: an Unlock that finds the mutex unlocked

A goroutine unlocks a mutex (or read-unlocks an RWMutex) that is not
locked: the runtime stops the program with "fatal error: sync: unlock of
unlocked mutex" (or "RUnlock of unlocked RWMutex"), which no recover
catches. seer looks at mutexes that some goroutine unlocks without having
locked them itself, such as an explicit Unlock on one path plus the
deferred one, which in the recorded run released a lock another goroutine
had taken in between. A mutex every goroutine unlocks only after locking it
itself cannot fail this way.

The witness is a schedule of the same test, in which every goroutine does
what it did in the recorded run, every read sees the same write and the
mutex is never taken twice, that ends with the Unlock as the next step of
its goroutine and the mutex unlocked. A run that died of it is reported as
observed.

Fix: unlock once per lock on every path: either defer the Unlock or call it
explicitly, not both.`
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

// MisuseSentence says what a misuse finding's schedule does, for the
// hover: its failing operation is next, in the state that fails it.
func MisuseSentence(f *Finding) string {
	if len(f.Accesses) == 0 {
		return ""
	}
	a := f.Accesses[len(f.Accesses)-1]
	on := ""
	if a.Variable != "" {
		on = " " + a.Variable
	}
	switch f.Kind {
	case predict.KindSendOnClosed:
		return "In a schedule that nothing rules out, the close runs first and goroutine " + itoa(a.Goroutine) + "'s send on" + on + " is its next step: it panics."
	case predict.KindCloseOfClosed:
		if !f.Predicted {
			who := "a goroutine"
			if a.Goroutine > 0 {
				who = "goroutine " + itoa(a.Goroutine)
			}
			return "The recorded run closed" + on + " a second time: " + who + "'s close panicked with \"close of closed channel\"."
		}
		return "In a schedule that nothing rules out, the first close runs and goroutine " + itoa(a.Goroutine) + "'s close of" + on + " is its next step: it panics."
	case predict.KindNegativeWaitGroup:
		return "In a schedule that nothing rules out, goroutine " + itoa(a.Goroutine) + "'s Done on" + on + " is its next step with the counter at zero: it panics."
	case predict.KindWaitGroupReuse:
		return "In a schedule that nothing rules out, the Wait and the Add on" + on + " are both next with the counter at zero: the Wait can return before the Add."
	case predict.KindUnlockOfUnlocked:
		return "In a schedule that nothing rules out, goroutine " + itoa(a.Goroutine) + "'s unlock of" + on + " is its next step with the mutex unlocked: the program stops."
	}
	return ""
}
