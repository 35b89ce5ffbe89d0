// This file implements the choice, on a trace of concurrentPassesBelow
// events or more, to run the SHB layer's passes beside the
// must-happen-before pass (analyze_phases.go's startSHB) when the Go
// memory limit leaves room for both passes at once.
//
// Below concurrentPassesBelow events the two passes always run at once:
// their worst-case peaks per event fit the default budget there. Above,
// they ran one after the other, as the worst case (a thousand goroutines
// that all talk to all) would not fit; yet most large traces are far from
// it. On pond's root package under seer check the SHB pass, on one core,
// is the longest part of the analysis, and the must-happen-before pass
// ran after it on the same core while the other was idle (bench/RESULTS.md,
// "pond: the SHB layer beside the must-happen-before pass"). What the
// passes will take cannot be told before they run, but what is live when
// they start can: the trace, its CTP and its locations, which both passes
// read. The passes run at once when the room left under the memory limit
// is at least what is live then, so that both passes' clocks and tables
// may together take as much again as the structures they read (on the
// traces measured they took well under that), and one after the other
// otherwise (seer predict of the channel stress trace, or of pond's trace
// at the event cap of the default -maxmem, leaves less room than that).
// Without a memory limit (a library caller that set none) or a second
// processor they run one after the other, as before.
//
// The limit is the whole process's, and the live heap too: when several
// analyses may hold memory under it at once (seer check's packages
// checked side by side, Options.Sharing), each was budgeted its share of
// the limit (the events and the history of each package), and another
// may grow to its share after this one has measured the room. The room
// is then judged against this analysis's share alone, the limit divided
// by the analyses that may run at once, with the whole live heap counted
// as this one's: never more than it may take. seer check counts only the
// packages not yet done, so the last package (pond's root package, whose
// analysis runs alone) has the whole limit.
//
// Which way they run changes no finding, no funnel count and no history
// cut: the two passes read neither the other's clocks nor the trace's
// values (parked for both ways, analyze_values.go), and the
// must-happen-before pass's budget counts only its own history. What
// comes after the passes (the values read back, the layers after the
// races, the access classes, the prefix after a cut) waits for the SHB
// layer first, so that no third goroutine runs beside the two passes but
// the cut history's index (history_cut.go), which reads only its log.

package predict

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// passesBeside says whether a large trace's SHB layer runs beside its
// must-happen-before pass; the tests set it to run both ways.
var passesBeside = besideFits

// besideFits reports whether o's share of the room under the Go memory
// limit allows two steps of its analysis at once (passesFitLimit).
func besideFits(o *Options) bool {
	shares := 1
	if o.Sharing != nil {
		shares = max(o.Sharing(), 1)
	}
	return passesFitLimit(shares)
}

// passesFitLimit reports whether the room in a share of the Go memory
// limit, the limit divided by shares, is at least the live heap,
// collected first: there are two processors and a limit, and the memory
// of two steps at once may be as large again as what they read.
func passesFitLimit(shares int) bool {
	if runtime.GOMAXPROCS(0) < 2 || shares < 1 {
		return false
	}
	limit := debug.SetMemoryLimit(-1) // reads the limit
	if limit <= 0 || limit == math.MaxInt64 {
		return false
	}
	limit /= int64(shares)
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return false
	}
	live := s[0].Value.Uint64()
	return live <= math.MaxInt64/2 && int64(2*live) <= limit
}
