// This file implements the event cap that keeps Analyze's first phase
// within a memory budget (issue 31, item 5: seer's own process within
// -maxmem), from the trace's own counts. That phase is where a large
// trace's analysis peaks: the trace's events, the CTP and the locations
// with their read-from (analysis.prePass), and the first vector-clock
// passes, which read them all (startSHB, mustHappenBefore). Its live
// heap grows with the events, and more with the synchronisation events
// (the CTP's releases and critical sections, the passes' clocks) and
// the goroutines (the per-goroutine tables of the CTP and the passes,
// their dense clocks) than with the rest. A cap of -maxmem over a fixed
// cost an event (trace/record.BytesPerEvent) held the channel stress
// trace, mostly accesses, and let pond's trace, half synchronisation
// and tens of thousands of goroutines, past the limit by a tenth
// (bench/RESULTS.md, "seer's own process against -maxmem: who holds the
// bytes past it"). EventsWithin counts each event by what it is, with
// the costs that section's successor measured (bench/RESULTS.md, "the
// pre-pass's event cap from the trace's own counts").

package predict

import "github.com/seer-tools/seer/trace"

// The live heap of Analyze's first phase, per event of the trace, per
// synchronisation event besides, and per goroutine that has an event
// (see the file's comment): an upper bound of what was measured, not a
// worst case.
const (
	prePassEventBytes     = 48
	prePassSyncBytes      = 52
	prePassGoroutineBytes = 2048
)

// PrePassShare is the part of -maxmem, as bytes of it, that EventsWithin
// lets Analyze's first phase take: the Go memory limit seer sets is
// mem - mem/8, and a sixteenth of mem below it is left for what the
// estimate does not count (the runtime's own memory, the garbage
// collected at the limit).
func PrePassShare(mem int64) int64 { return mem - mem/8 - mem/16 }

// EventsWithin returns how many of t's first events Analyze's first
// phase holds within budget bytes of live heap: the most whose cost, by
// the counts of those events alone, is at most budget (len(t.Events) if
// all are; 0 if not even the first is). The first n events of a trace
// are a run in their own right, its recording stopped there, so a caller
// may analyse t.Prefix of them.
func EventsWithin(t *trace.Trace, budget int64) int {
	return eventsWithin(t.Events, budget)
}

// eventsWithin is EventsWithin over the events alone.
func eventsWithin(evs []trace.Event, budget int64) int {
	var cost int64
	var seen []bool // by goroutine: has an event among the counted
	for i := range evs {
		e := &evs[i]
		c := int64(prePassEventBytes)
		if e.Sync != trace.SyncNone {
			c += prePassSyncBytes
		}
		if g := int(e.G); g >= len(seen) || !seen[g] {
			if g >= len(seen) {
				seen = append(seen, make([]bool, g+1-len(seen))...)
			}
			seen[g] = true
			c += prePassGoroutineBytes
		}
		if cost += c; cost > budget {
			return i
		}
	}
	return len(evs)
}
