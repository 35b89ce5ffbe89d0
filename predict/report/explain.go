// This file holds the documentation of each finding kind that Explain
// returns, shared by `seer check -explain`, the editor's hover, SARIF's
// rules and docs/findings.md.

package report

// The documentation of each finding kind, as markdown: a heading that
// names the kind, what it is, how seer finds it, and the fix. The kinds
// table (kind.go) holds them.
const (
	explainRace = `# race: a data race another schedule shows

Two goroutines access the same memory, at least one of them writes, and
nothing orders the two accesses: no channel operation, WaitGroup, Once,
atomic or go statement makes one happen before the other, and the locks they
hold (if any) do not cover both. Go's memory model gives such a program no
defined meaning.

seer found it from one recorded run of the test. When the run itself showed
the accesses unordered, the finding is *observed* — the race detector could
have reported it. When it is *predicted*, the run ordered the accesses only
by the schedule it happened to take (for example, one goroutine's critical
section ran before the other's), and seer built a witness: another schedule
of the same test, in which every goroutine does exactly what it did in the
recorded run up to the race and every read sees the same write, that ends
with the two accesses side by side. An independent checker replays every
witness before it is reported.

Fix: order the accesses (hold one mutex around both, hand the value over a
channel, or use sync/atomic), or stop sharing the variable.`

	explainAtomicity = `# atomicity: a transaction another goroutine can break into

Two accesses of one goroutine that should happen as one step — inside a
function marked //seer:atomic, or inside one critical section when
critical-section atomicity is on — can have a conflicting access of another
goroutine run between them, in one of the five unserializable patterns
(read-write-read, write-write-read, write-read-write, read-write-write,
write-write-write). The result is one no serial execution of the
transactions gives: the classic check-then-act bug, even when every single
access is protected by a lock.

A critical section is a transaction only for the data its lock guards,
or for data no lock guards: a lock held across unrelated work is not a
transaction for memory that another lock guards (syscall.ForkLock is held
across a fork, around updates of syscall.forking, which forkingLock
guards; interleaving those is intended). And a violation on a library's
own package-level state, made by that library's code alone, is the
library's design and not reported; a data race there is.

Like races, atomicity violations come with a witness schedule that the
independent checker has replayed.

Fix: make the check and the act one critical section, or use a
compare-and-swap loop.`

	explainDeadlock = `# deadlock: goroutines that wait for each other for ever

Two goroutines (or more, in a cycle) each hold a lock while taking another,
in opposite orders: one holds a and waits for b while the other holds b and
waits for a. The recorded run took them one after the other and did not
hang, but nothing orders the goroutines, and in another schedule each one
takes its first lock and then blocks on the other's forever. A read-write
lock counts when one of the two sides takes it for writing; two read locks
do not block each other. A cycle whose goroutines all hold one common lock
(a gate) cannot deadlock, and neither can one whose goroutines a go
statement, a channel, a WaitGroup or an atomic keeps in order: seer
reports neither.

A channel can close the cycle too: a goroutine holds a mutex while it
sends on (or receives from) an unbuffered channel, or receives from a
buffered one, and the goroutine that receives (sends) takes the same mutex
before it gets there. The recorded
run took the mutex in the other order and did not hang; in another
schedule the sender holds the mutex and waits for a receiver that waits
for the mutex. The cycle may pass through a third goroutine: the receiver
takes another mutex first, which a third goroutine holds while it waits
for the sender's. seer reports these shapes only when, at the end of the
witness, every goroutine of the test that has not ended waits too (on a
lock someone holds, on an unbuffered channel no goroutine is ready to use,
on a buffered channel's empty buffer, or in WaitGroup.Wait with the
counter above zero), so that the test can
never return; a goroutine of the testing harness or the runtime counts
only if it never touches what they wait on.

A WaitGroup can too: a goroutine holds a mutex while it calls Wait, and a
goroutine whose Done Wait waits for takes the same mutex before its Done.
The recorded run took the mutex in the other order (the counter was zero
before Wait began); in another schedule Wait holds the mutex and waits for
a Done that waits for the mutex.

These links chain into cycles of any length: a goroutine waits for a lock
that the next one holds, for its partner on an unbuffered channel to get
to the operation, or in WaitGroup.Wait for a goroutine that has a Done
still to make, and so on round to the first. seer reports such a cycle
with a sentence that goes round it ("goroutine 7 waits to send on out for
goroutine 8 to receive; goroutine 8 waits to lock mu, which goroutine 9
holds; ..."), under the same rule: every goroutine of the test that has
not ended waits at the end of the witness.

A sync.RWMutex can too, with a single lock: a goroutine that holds it for
reading read-locks it again (a method calling another that takes the read
lock), while another goroutine calls Lock. RWMutex prefers writers: a
writer waiting for the read lock to go blocks every new RLock, the
recursive one too, so the reader waits for the writer, which waits for
the reader. The recorded run took the writer's section before or after the
reader's and did not hang; seer reports the schedule in which the writer
comes in between. Take the read lock once, and call an unlocked helper
inside.

The same rule closes cycles through several RWMutexes: a goroutine holds a
for reading and read-locks b, another holds b for reading and locks a, and
a third calls b.Lock in between; the first read lock of b then waits
behind that writer, the writer for the second goroutine's read of b, and
that goroutine for a.

A sync.Cond can too: a goroutine calls Wait without a loop over the
condition, and the Signal that woke it in the recorded run can come
first, before the goroutine takes the lock to wait; the Wait then waits
for a wake-up that already happened. With the loop, the goroutine reads
the condition the signaller set and does not wait, so seer reports
nothing.

A channel with several senders (or receivers) can too, with no lock at
all: another goroutine takes the partner a goroutine had. In the recorded
run the test's send met a worker that receives one value and exits, and a
helper's send later met the test's own receive on the same channel; in
another schedule the helper sends first, the worker takes its value and
exits, and the test's send waits for a receiver that will never come. A
receive that takes another send takes another value, so seer reports this
only when the source shows that the value decides nothing (the receive
discards it, or the element type is empty, as struct{}): what the
goroutine does next is then what the run shows. The finding says which
operation took which partner. Fix: give each conversation its own channel,
or make every receiver loop until the channel is closed.

The goroutine left waiting may be in a select. The recorded run shows
only the case the select took; seer reads the others from the source,
and reports the select only when each of their channels is made in the
select's function and never escapes, so that every operation that could
complete a case is known, and none of them can run any more in the
witness: its goroutines have ended or wait for ever too (a quit channel
nobody closes on this path). The finding names each case and why it
cannot proceed. Fix: a default case, a context's Done or a timer case,
or a channel the goroutine that may exit first still closes.

The finding names each goroutine's blocked operation and the locks it
holds, with where it took them. Its witness is a schedule of the same
test, in which every goroutine does what it did in the recorded run and
every read sees the same write, that ends with those goroutines about to
perform their blocked operations. The independent checker replays it and
checks each wait against the primitives' rules (the lock is held, the
channel is unbuffered and not closed, no partner is ready, every Signal
came before the Wait's critical section); a rendezvous it pairs otherwise
than the run runs whole, with a receive whose value decides nothing.

A test whose recorded run hung (a test timeout) is reported as an observed
deadlock, with where each of its goroutines was left: the blocking call
when the run shows it (a send, a lock, Cond.Wait, WaitGroup.Wait), or
else the goroutine's last recorded operation (a receive leaves no event
until it completes).

Fix: take the locks in one order everywhere (document it next to the
locks), hold one lock at a time, and never hold a lock across a channel
operation whose other side may need it.`

	explainLeak = `# leak: a goroutine the test leaves blocked for ever

A goroutine of the test never ended: the recorded run left it blocked
after every test had returned, typically on a channel nobody will use
again, as when a worker pool returns at the first error and its other
workers wait for ever to send their results. Goroutines of the testing
harness and of the runtime do not count, nor does one that a later test
or a Cleanup ends, nor one whose last act was wg.Done or close (it was
finishing as the process exited).

The finding says where the goroutine was left: the blocking call, which
the run shows for a send, a select with a send case, Mutex.Lock,
Cond.Wait and WaitGroup.Wait, and which the goroutine was already in
before its test returned. A receive, a select of receives, a sleep or a
system call leave no event until they complete, so a goroutine left in
one of them is only listed among the test's goroutines still running,
not reported as a leak. Goroutines left at the same place are one
finding.

A leak is also predicted when the run did not show it, in one shape: a
select with a timeout (a time.After case, or ctx.Done() for a context made
there by context.WithTimeout or WithDeadline) or a default case receives
the result of a goroutine that sends it on an unbuffered channel.

	ch := make(chan int)
	go func() { ch <- compute() }()
	select {
	case v := <-ch:
		return v, nil
	case <-time.After(d):
		return 0, errTimeout
	}

In the recorded run the result came first. The finding names the send,
the select and the timer. Its witness is a schedule of the same test, in
which every goroutine does what it did in the recorded run and every read
sees the same write, that stops the sender just before its send and the
receiver at the select, with the timer started: the default case is ready
there, and the timer's once its duration has passed. Go promises nothing
of how long the sender takes to reach its send (the scheduler, the
operating system or the garbage collector may hold it up past any
timeout), so the program can take this schedule: the select takes the
other case, and the send then waits for ever. That nothing receives from
the channel afterwards is not in the run: seer proves it from the source,
and says nothing unless it can. The channel must be made unbuffered in the
select's function and used there only by that select, whose other cases
never lead back to it (a loop that collects the results of a pool of
workers qualifies when its timeout leaves the loop); it may be handed only
to closures and functions that do nothing with it but send, and is never
closed, stored or returned. A select on
the Done channel of a context from elsewhere (a parameter, or one made by
WithCancel) is not judged: whether it can end first is not in the source
of the select.

A leak is predicted in a second shape: a worker's send or receive whose
partner another goroutine takes while its test returns. In the recorded
run the worker's operation met a partner on an unbuffered channel with
several senders or receivers; in a schedule of the same test another
goroutine's operation meets that partner first (a second sender meets a
receiver that reads one value and exits, or the test itself, which reads
the first of many results and returns), and nothing is left to complete
the worker's: every goroutine that could has ended or waits for
ever. The receive that takes another value must be one whose value
decides nothing, as seer proves from the source (it is discarded, or of
a zero-sized type). The test's own goroutine has returned by then (its
test function and Cleanups are done), so the worker is left blocked
after the test. The finding names the operation and says who took whose
partner.

	func worker(jobs chan int) {
		jobs <- 1 // the collector reads one value: the dispatcher's may come first
		<-jobs    // the dispatcher's job
	}

The same holds of a worker's select that can never proceed while its
test returns. In the recorded run the select took a case; in a schedule
of the same test another goroutine takes that case's partner, and no
other case can ever be completed: seer lists, from the source, every
operation in the program that could complete each case (the channels may
be made in the select's function, or passed in as arguments or captured,
when every caller is known), and none of them runs again, every goroutine
that could reach one having ended or waiting for ever. The finding names
the select, says who took whose partner and why each case cannot proceed.

	func worker(jobs chan int, quit <-chan struct{}) {
		select {
		case jobs <- 1:
		case <-quit: // nothing ever closes quit
			return
		}
		<-jobs
	}

Fix: give every goroutine a way to finish: buffer the channel for every
sender (make(chan T, 1) for the one result), or have the receiver drain
it, or select on a done channel or a context in the sender too, and close
the done channel (defer close(quit), or cancel the context) when the test
is done.`

	explainSendOnClosed = `# send-on-closed: a send that another schedule runs after the close

A goroutine sends on a channel that another goroutine closes, and nothing
orders the send before the close: the recorded run sent first, but in
another schedule the close comes first and the send panics with "send on
closed channel". The typical shape is a Stop or Close method that closes
a channel while a worker or a caller may still send on it.

The close and the send may both be inside critical sections of one mutex
(a Close that closes the channel under the mutex a Send takes before it
sends), so no race is reported: in the recorded run the sender's section
came first. The witness then runs the closing section first and the
sender's section after it, the sender's moved events doing what they did
in the recorded run and every read among them seeing the same write; the
report names the critical sections it runs in another order. A sender
that checks a closed flag inside its section, which the closing section
sets, has no such schedule (its read would see the closing section's
write) and is not reported.

The finding names the close and the send. Its witness is a schedule of the
same test, in which every goroutine does what it did in the recorded run
and every read sees the same write, that runs the close and ends with the
send as the next step of its goroutine. The independent checker replays it
and checks that the channel is closed there, once. A run that did send on
the closed channel and died of it is reported as observed; one whose
goroutine recovered the panic (it went on to its end, or the run passed)
is not reported: a test that sends on a closed channel on purpose and
recovers expects the panic. A predicted send is reported whether or not a
deferred recover would catch it: the trace does not record defers.

Fix: let only the sender close the channel, or make senders and the closer
agree through a lock or a done channel that the senders select on (under a
lock: check the closed flag inside the section that sends, and set it in
the section that closes).`

	explainCloseOfClosed = `# close-of-closed: a channel closed twice

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

	explainNegativeWaitGroup = `# negative-waitgroup: a Done that can come before its Add

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

	explainWaitGroupReuse = `# waitgroup-reuse: an Add at zero concurrent with a Wait

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

	explainUnlockOfUnlocked = `# unlock-of-unlocked: an Unlock that finds the mutex unlocked

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
)
