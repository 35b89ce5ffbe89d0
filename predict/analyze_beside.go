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
var passesBeside = passesFitLimit

// passesFitLimit reports whether the room under the Go memory limit is at
// least the live heap, collected first: there are two processors and a
// limit, and the passes' memory at once may be as large again as what
// they read.
func passesFitLimit() bool {
	if runtime.GOMAXPROCS(0) < 2 {
		return false
	}
	limit := debug.SetMemoryLimit(-1) // reads the limit
	if limit <= 0 || limit == math.MaxInt64 {
		return false
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return false
	}
	live := s[0].Value.Uint64()
	return live <= math.MaxInt64/2 && int64(2*live) <= limit
}
