// This file defines the report that `seer check -json` prints and that
// `seer predict -json` and the language server share: findings with both
// accesses and a witness, and the tests that were run.

package report

// A Report is the result of checking packages (or of predicting from one
// trace file).
type Report struct {
	Findings []Finding `json:"findings"`
	Tests    []Test    `json:"tests"`
	// Packages says, for each package the patterns named, how checking
	// it went (empty for a report of one trace file).
	Packages []Package `json:"packages,omitempty"`
	// Ordered holds, when asked for (Options.WhyNoRace), the pairs of
	// conflicting accesses that no race finding names, with what orders
	// them.
	Ordered []Ordered `json:"ordered,omitempty"`
	// Explore says, for each run of tests that was explored further
	// (Options.Explore), how: the seed that gives the same runs, the
	// runs made and why it stopped.
	Explore []Exploration `json:"explore,omitempty"`
}

// A Package is one package that the patterns named, with the sums of its
// tests.
type Package struct {
	// Path is the import path, or the pattern as given when it names no
	// package.
	Path string `json:"path"`
	// Status is "ok" (every test passed or was skipped), "fail" (a test
	// failed, panicked, timed out, exited early, was killed or did not
	// run), "build-error", "no-test-files", or "no-package" (the pattern
	// matched no package, or names a directory that does not exist or
	// has no Go files: Error says which).
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
	// Outcomes counts the package's top-level tests by outcome.
	Outcomes map[string]int `json:"outcomes,omitempty"`
	Events   int            `json:"events"`
	Findings int            `json:"findings"`
	// Cached says the package was answered from seer's cache of reports
	// (Options.Cache): nothing it depends on changed since it was checked.
	Cached bool `json:"cached,omitempty"`
}

// A Finding is one predicted or observed bug: a pair of source locations
// (race) or a triple (atomicity), reported once however many event pairs
// showed it (Count).
type Finding struct {
	Test      string   `json:"test"`      // the test whose goroutines hold the accesses
	Package   string   `json:"package"`   // import path
	Kind      Kind     `json:"kind"`      // see Kinds
	Predicted bool     `json:"predicted"` // false if the run itself showed it
	Count     int      `json:"count"`     // event pairs (triples) with these locations
	Variable  string   `json:"variable,omitempty"`
	Accesses  []Access `json:"accesses"`
	// Witness is the schedule that shows the bug, after WitnessPrefix
	// events that run as in the recorded run: the part the witness
	// reorders, ending with the bug's accesses.
	Witness       []Step `json:"witness"`
	WitnessPrefix int    `json:"witnessPrefix"`
	// PrefixEnd and PrefixStops say which recorded events those are:
	// every event below PrefixEnd, less the events from Stop.Event on of
	// each goroutine in PrefixStops (the goroutines the witness holds
	// back, whose later events are in Witness or never run).
	PrefixEnd   int    `json:"prefixEnd,omitempty"`
	PrefixStops []Stop `json:"prefixStops,omitempty"`
	// Reordered names the synchronisation the witness runs in another
	// order than the recorded run (e.g. two critical sections on one lock).
	Reordered []Sync `json:"reordered,omitempty"`
	// Repaired names the channel operations the witness pairs with
	// another partner than the recorded run did, three per rendezvous:
	// the operation, its partner in the run, its partner in the witness
	// (RepairedSentences).
	Repaired []Sync `json:"repaired,omitempty"`
	// Stuck names the selects the witness leaves waiting for ever, with
	// why none of their cases can proceed (StuckSentences).
	Stuck []StuckSelect `json:"stuck,omitempty"`
	// Confirmed says whether replaying the witness (seer check -replay)
	// showed the bug: "true", "false" or "not tried"; "" when no replay
	// was asked for. Replay says how: where a replay diverged, or why it
	// was not tried.
	Confirmed string `json:"confirmed,omitempty"`
	Replay    string `json:"replay,omitempty"`
	// Origin, when the tests were explored (Options.Explore), is the run
	// the finding came from; its accesses and witness are that run's.
	Origin *Origin `json:"origin,omitempty"`
}

// Values of Finding.Confirmed.
const (
	ConfirmedYes      = "true"
	ConfirmedNo       = "false"
	ConfirmedNotTried = "not tried"
)

// An Access is one of a finding's accesses.
type Access struct {
	File      string  `json:"file"` // absolute; "" for STD traces
	Line      int     `json:"line"` // the STD location number for STD traces
	Column    int     `json:"column"`
	EndLine   int     `json:"endLine,omitempty"`
	EndColumn int     `json:"endColumn,omitempty"`
	Op        string  `json:"op"` // "read" or "write" (or an atomic op)
	Goroutine int     `json:"goroutine"`
	Variable  string  `json:"variable,omitempty"`
	Stack     []Frame `json:"stack"`
	Created   []Frame `json:"created,omitempty"` // where the goroutine was started
	Event     int     `json:"event"`             // index in the trace
	// Holds lists, for a deadlock's blocked operation, the locks its
	// goroutine holds while it waits and where it took them.
	Holds []Held `json:"holds,omitempty"`
	// WaitsFor is, for a blocked operation of a predicted blocking cycle,
	// the goroutine it waits for (the lock's holder, its channel partner,
	// the goroutine of a Done it needs); 0 when not said (CycleSentence).
	WaitsFor int `json:"waitsFor,omitempty"`
	// Blocked names, for a goroutine that the recorded run left
	// blocked (Event is its last), the operation it blocks in when the
	// run shows it ("send", "lock", "cond-wait", ...; see
	// predict.BlockedIn), "" when the blocking call comes after Event.
	Blocked string `json:"blocked,omitempty"`
	// Unreachable says, for a goroutine left alive when the test binary
	// exited, that the runtime's leak detection found it blocked on an
	// object no live goroutine can reach: it can never be woken.
	Unreachable bool `json:"unreachable,omitempty"`
}

// A Held is a lock that a blocked goroutine holds: the acquire that took
// it.
type Held struct {
	Lock  string `json:"lock,omitempty"` // as the source names it
	Op    string `json:"op"`             // "lock" or "rlock"
	File  string `json:"file"`
	Line  int    `json:"line"`
	Event int    `json:"event"`
}

// A Frame is one call frame.
type Frame struct {
	Func string `json:"func"`
	File string `json:"file"`
	Line int    `json:"line"`
}

// A Step is one event of a witness schedule.
type Step struct {
	Goroutine int    `json:"goroutine"`
	Op        string `json:"op"`
	File      string `json:"file"` // the nearest user-code frame's
	Line      int    `json:"line"`
	Event     int    `json:"event"`
	// Object names what the step acts on as the source does ("a.mu",
	// "a.note", "goroutine 10"), never by the trace's object number.
	Object string `json:"object,omitempty"`
	// Within is the library call of the user's line that a memory access
	// was made inside ("a.mu.Unlock()" for the mutex's own read of its
	// state): part of that call, not an access the user wrote.
	Within string `json:"within,omitempty"`
	// Text says what the step does: "locks a.mu", "writes a.note",
	// "sends on done".
	Text string `json:"text,omitempty"`
}

// A Stop is a goroutine that a witness's prefix holds back: the recorded
// run's events before Finding.PrefixEnd run, except this goroutine's from
// Event on (Left of them).
type Stop struct {
	Goroutine int    `json:"goroutine"`
	Event     int    `json:"event"`
	Left      int    `json:"left"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	// Harness is set when the event is outside user code: a goroutine of
	// the runtime or the testing package, or one of the user's inside them.
	Harness bool `json:"harness,omitempty"`
}

// A Sync is a synchronisation operation named in a finding's explanation.
type Sync struct {
	Op        string `json:"op"`
	Goroutine int    `json:"goroutine"`
	File      string `json:"file"`
	Line      int    `json:"line"`
	Object    string `json:"object,omitempty"`
	// First marks the operation the witness runs before the others of
	// its object listed just before it, which the recorded run ran
	// first.
	First bool `json:"first,omitempty"`
}

// A Test is one test function that was recorded.
type Test struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	Events  int    `json:"events"`
	// Outcome is "pass", "fail", "skip" (the test called t.Skip),
	// "panic", "timeout", "exit" (the test binary exited during the
	// test: os.Exit, log.Fatal, a fatal runtime error), "killed",
	// "not-run" (selected, but the run ended before it started) or
	// "build-error" (Name is then "").
	Outcome string `json:"outcome"`
	// Errors holds build errors (file:line:col: message) when Outcome is
	// "build-error", the panic, timeout or exit message, and, for the
	// test during which the run made more events than seer converts
	// (record.RecordOptions.MaxEvents), a note saying so.
	Errors []string `json:"errors,omitempty"`
	// Output is what a test that did not pass or skip printed (t.Log,
	// t.Error, t.Fatal, its subtests' results), line by line as go test
	// shows it, up to a bound whose end a last line notes.
	Output []string `json:"output,omitempty"`
	// Leaked lists the goroutines of the test still running when its run
	// ended normally, by where they were created (file:line).
	Leaked []string `json:"leaked,omitempty"`
}
