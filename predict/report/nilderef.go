// This file implements the report side of a predicted nil dereference
// and of its slice and map forms, an index out of range and a write to a
// nil map (predict's nilderef.go):
// their documentation, the sentence that says what their schedule does,
// their hover and the text report's ending. Their titles and SARIF rules
// are rows of the kinds table (kind.go).

package report

import "fmt"

const explainNilDeref = `# nil-dereference: a pointer another order of critical sections leaves nil

One goroutine stores nil into a pointer (or an interface) — a Close or Stop
method that drops a connection, a buffer, a handler — and another goroutine
reads it and dereferences it at once, with no nil check. Both may hold the
same mutex, so no race is reported: in the recorded run the reader's
critical section came first and saw a live value. In another order of the
two critical sections the store runs first, the reader sees nil, and the
program panics with "invalid memory address or nil pointer dereference".

The finding names the store and the read. Its witness is a schedule of the
same test: the storing goroutine's critical section (and what it depends
on) runs first, in the order of the recorded run, then the reader's
events from the acquire of its critical section to the read, each doing
what it did in the recorded run and every read before the last one seeing
the same write. The independent checker replays it and checks that the
read sees the store, with no other write between. That the store writes
nil and that the value read is dereferenced right after it (in the same
basic block, with no branch, call or channel operation between) and that
no function on the reader's stack defers a recover, seer proves from the
source; findings need it (seer check loads it; seer predict on a trace
file alone does not report this kind).

Fix: check the value for nil after reading it, under the lock; or stop the
reader before the store (wait for the watcher to return before Close sets
the field); or keep the value and signal closing by another field.`

const explainIndexOutOfRange = `# index-out-of-range: a slice another order of critical sections leaves nil

One goroutine sets a slice to nil — a Close or Reset that drops a buffer or
a list — and another goroutine reads the slice and indexes it at once, with
no length check. Both may hold the same mutex, so no race is reported: in
the recorded run the reader's critical section came first and saw the
elements. In another order of the two critical sections the store runs
first, the reader sees a nil slice, whose length is 0, and the program
panics with "index out of range".

The finding, its witness and what the checker and the source prove are
those of nil-dereference: the store's critical section first, then the
reader's events from its acquire to the read, which sees the store; the
source shows that the store writes nil and that the slice read is indexed
right after it with no branch, call or channel operation between, and no
recover on the reader's stack.

Fix: check the length after reading the slice, under the lock; or stop the
reader before the store; or empty the slice where readers expect it (and
check for that).`

const explainNilMapWrite = `# nil-map-write: a map another order of critical sections leaves nil

One goroutine sets a map to nil — a Close or Reset that drops an index or
a cache — and another goroutine reads the map and assigns an entry of it
at once, with no nil check. Both may hold the same mutex, so no race is
reported: in the recorded run the writer's critical section came first
and saw the live map. In another order of the two critical sections the
store runs first, the writer sees a nil map, and the program panics with
"assignment to entry in nil map" (reading a nil map or deleting from it
does not panic, and is not reported).

The finding, its witness and what the checker and the source prove are
those of nil-dereference: the store's critical section first, then the
reader's events from its acquire to the read, which sees the store; the
source shows that the store writes nil and that the map read is assigned
an entry right after it with no branch, call or channel operation
between, and no recover on the reader's stack.

Fix: check the map for nil after reading it, under the lock; or stop the
writers before the store; or clear the map (clear(m), or a new empty map)
instead of setting it to nil.`

// NilDerefSentence says what the schedule of a nil dereference, an
// index of a nil slice or a write to a nil map does, for the hover: the store's goroutine, the
// read's, and what is read.
func NilDerefSentence(f *Finding) string {
	if len(f.Accesses) != 2 {
		return ""
	}
	w, r := f.Accesses[0], f.Accesses[1]
	what, use := "the pointer", "dereferences it"
	switch f.Kind {
	case KindIndexOutOfRange:
		what, use = "the slice", "indexes it"
	case KindNilMapWrite:
		what, use = "the map", "assigns an entry of it"
	}
	if r.Variable != "" {
		what = r.Variable
	}
	return fmt.Sprintf("In a schedule that nothing rules out, goroutine %d stores nil into %s first, and goroutine %d's read of it at line %d sees nil and %s: the program panics.",
		w.Goroutine, what, r.Goroutine, r.Line, use)
}

func nilDerefHover(f *Finding, access func(int) string, short func(string) string) string {
	if s := NilDerefSentence(f); s != "" {
		return s + "\n\n"
	}
	return raceHover(f, access, short)
}

// nilDerefEnding: the read, next, sees the store of nil.
func nilDerefEnding(f *Finding) string {
	return endingWith(f.Accesses[len(f.Accesses)-1:], "'s %s of nil from", " ")
}
