// This file implements the finding kinds: the typed Kind, its constants,
// and the one table that holds each kind's data (its title, its SARIF rule,
// its documentation, what its witness page and its steps call it), so that
// no renderer branches on a kind's name.

package report

import "strings"

// A Kind is the kind of a finding. Its values are the names that the JSON
// report, SARIF's rule ids, -explain and docs/findings.md's anchors use.
type Kind string

// The finding kinds.
const (
	// KindRace is a data race: two unordered accesses, one a write.
	KindRace Kind = "race"
	// KindAtomicity is an atomicity violation: an access that another
	// schedule runs inside a transaction of another goroutine.
	KindAtomicity Kind = "atomicity"
	// KindDeadlock is goroutines that wait for each other for ever (a
	// lock-order cycle, or goroutines blocked on channels and locks).
	KindDeadlock Kind = "deadlock"
	// KindLeak is a goroutine that the test leaves blocked for ever.
	KindLeak Kind = "leak"

	// The misuse kinds: an operation that panics, or stops the program,
	// in the state another schedule runs it in.
	KindSendOnClosed      Kind = "send-on-closed"
	KindCloseOfClosed     Kind = "close-of-closed"
	KindNegativeWaitGroup Kind = "negative-waitgroup"
	KindWaitGroupReuse    Kind = "waitgroup-reuse"
	KindUnlockOfUnlocked  Kind = "unlock-of-unlocked"

	// KindNilDeref is a predicted panic from an order violation: a
	// goroutine dereferences a pointer that another goroutine's store of
	// nil, run first in another order of their critical sections, left.
	KindNilDeref Kind = "nil-dereference"
	// KindIndexOutOfRange is the same order violation on a slice: the
	// goroutine indexes a slice another goroutine set to nil.
	KindIndexOutOfRange Kind = "index-out-of-range"
	// KindNilMapWrite is the same order violation on a map: the goroutine
	// assigns an entry of a map another goroutine set to nil.
	KindNilMapWrite Kind = "nil-map-write"
)

// DocURL documents the finding kinds; a kind is an anchor in it.
const DocURL = "https://github.com/seer-tools/seer/blob/main/docs/findings.md"

// kindInfo is what the report says of one kind.
type kindInfo struct {
	kind Kind
	// title names the kind in prose ("data race"); heading is the
	// witness page's title, when it is not the title.
	title, heading string
	// rule is the kind's SARIF rule name; level its SARIF level:
	// "error" when the program has no defined meaning, hangs or panics.
	rule, level string
	// word is what a witness step that makes the finding's access calls
	// the finding ("the race's write").
	word string
	// misuse marks the misuse kinds, whose witness ends with the failing
	// operation next.
	misuse bool
	// replayable marks the kinds that running the test again under the
	// witness can confirm (predict/check's replay.go).
	replayable bool
	// explain is the kind's documentation, as markdown.
	explain string
	// ending is how the text report's witness line ends (nil: the
	// story's last steps).
	ending witnessEnding
	// hover is the hover's paragraphs on what a finding's accesses do.
	hover hoverStory
	// sentence says what a misuse finding's schedule does to a, its
	// failing access (on: " " and what it acts on, or "").
	sentence func(f *Finding, a *Access, on string) string
}

// kinds is the table of finding kinds, in the order the docs list them.
// init fills it: its rows name functions that read it.
var kinds []kindInfo

func init() {
	kinds = []kindInfo{
		{kind: KindRace, title: "data race", rule: "DataRace", level: "error", word: "race", replayable: true, hover: raceHover, explain: explainRace},
		{kind: KindAtomicity, title: "atomicity violation", rule: "AtomicityViolation", level: "warning", word: "violation", hover: atomicityHover, explain: explainAtomicity},
		{kind: KindDeadlock, title: "lock-order deadlock", heading: "deadlock", rule: "Deadlock", level: "error", word: "deadlock", replayable: true, ending: deadlockEnding, hover: deadlockHover, explain: explainDeadlock},
		{kind: KindLeak, title: "goroutine leak", heading: "leak", rule: "GoroutineLeak", level: "warning", word: "leak", hover: leakHover, explain: explainLeak},
		{kind: KindSendOnClosed, title: "send on a closed channel", rule: "Send-on-closed", level: "error", word: "violation", misuse: true, ending: misuseEnding, hover: misuseHover, explain: explainSendOnClosed,
			sentence: func(f *Finding, a *Access, on string) string {
				return "In a schedule that nothing rules out, the close runs first and goroutine " + itoa(a.Goroutine) + "'s send on" + on + " is its next step: it panics."
			}},
		{kind: KindCloseOfClosed, title: "close of a closed channel", rule: "Close-of-closed", level: "error", word: "violation", misuse: true, ending: misuseEnding, hover: misuseHover, explain: explainCloseOfClosed,
			sentence: func(f *Finding, a *Access, on string) string {
				if !f.Predicted {
					who := "a goroutine"
					if a.Goroutine > 0 {
						who = "goroutine " + itoa(a.Goroutine)
					}
					return "The recorded run closed" + on + " a second time: " + who + "'s close panicked with \"close of closed channel\"."
				}
				return "In a schedule that nothing rules out, the first close runs and goroutine " + itoa(a.Goroutine) + "'s close of" + on + " is its next step: it panics."
			}},
		{kind: KindNegativeWaitGroup, title: "negative WaitGroup counter", rule: "Negative-waitgroup", level: "error", word: "violation", misuse: true, ending: misuseEnding, hover: misuseHover, explain: explainNegativeWaitGroup,
			sentence: func(f *Finding, a *Access, on string) string {
				return "In a schedule that nothing rules out, goroutine " + itoa(a.Goroutine) + "'s Done on" + on + " is its next step with the counter at zero: it panics."
			}},
		{kind: KindWaitGroupReuse, title: "WaitGroup Add concurrent with Wait", rule: "Waitgroup-reuse", level: "error", word: "violation", misuse: true, ending: waitGroupReuseEnding, hover: misuseHover, explain: explainWaitGroupReuse,
			sentence: func(f *Finding, a *Access, on string) string {
				return "In a schedule that nothing rules out, the Wait and the Add on" + on + " are both next with the counter at zero: the Wait can return before the Add."
			}},
		{kind: KindUnlockOfUnlocked, title: "unlock of an unlocked mutex", rule: "Unlock-of-unlocked", level: "error", word: "violation", misuse: true, ending: misuseEnding, hover: misuseHover, explain: explainUnlockOfUnlocked,
			sentence: func(f *Finding, a *Access, on string) string {
				return "In a schedule that nothing rules out, goroutine " + itoa(a.Goroutine) + "'s unlock of" + on + " is its next step with the mutex unlocked: the program stops."
			}},
		{kind: KindNilDeref, title: "nil dereference", rule: "NilDereference", level: "error", word: "violation", ending: nilDerefEnding, hover: nilDerefHover, explain: explainNilDeref},
		{kind: KindIndexOutOfRange, title: "index of a nil slice", rule: "IndexOutOfRange", level: "error", word: "violation", ending: nilDerefEnding, hover: nilDerefHover, explain: explainIndexOutOfRange},
		{kind: KindNilMapWrite, title: "write to a nil map", rule: "NilMapWrite", level: "error", word: "violation", ending: nilDerefEnding, hover: nilDerefHover, explain: explainNilMapWrite},
	}
}

// info returns k's row of the table, or nil for a kind seer does not
// report.
func (k Kind) info() *kindInfo {
	for i := range kinds {
		if kinds[i].kind == k {
			return &kinds[i]
		}
	}
	return nil
}

// Kinds lists the finding kinds, in the order the docs list them.
func Kinds() []Kind {
	out := make([]Kind, len(kinds))
	for i := range kinds {
		out[i] = kinds[i].kind
	}
	return out
}

// ParseKind returns the kind that name (in any case) names.
func ParseKind(name string) (Kind, bool) {
	k := Kind(strings.ToLower(name))
	return k, k.info() != nil
}

// Explain returns the documentation of a finding kind as markdown.
func Explain(k Kind) (string, bool) {
	if in := k.info(); in != nil {
		return in.explain, true
	}
	return "", false
}

// IsMisuse reports whether k is one of the misuse kinds.
func (k Kind) IsMisuse() bool {
	in := k.info()
	return in != nil && in.misuse
}

// Replayable reports whether replaying a finding's witness can confirm a
// finding of kind k: races and deadlocks.
func (k Kind) Replayable() bool {
	in := k.info()
	return in != nil && in.replayable
}

// Title names k in prose: "data race", "send on a closed channel". A
// kind seer does not report is its own title.
func (k Kind) Title() string {
	if in := k.info(); in != nil {
		return in.title
	}
	return string(k)
}

// heading is the title of k's witness page.
func (k Kind) heading() string {
	if in := k.info(); in != nil && in.heading != "" {
		return in.heading
	}
	return k.Title()
}

// ruleName is k's SARIF rule name, in SARIF's PascalCase.
func (k Kind) ruleName() string {
	if in := k.info(); in != nil {
		return in.rule
	}
	return capitalize(string(k))
}

// level is the SARIF level of k's findings: "error" when Go's memory
// model gives the program no defined meaning (a race), it hangs (a
// deadlock) or it panics (a misuse), else "warning".
func (k Kind) level() string {
	if in := k.info(); in != nil {
		return in.level
	}
	return "warning"
}

// word is what a witness step that makes one of the finding's accesses
// calls the finding: "race", "deadlock", "leak", or "violation".
func (k Kind) word() string {
	if in := k.info(); in != nil {
		return in.word
	}
	return "violation"
}
