// This file puts a must-happen-before pass's log of rises (clock_rises.go's
// kpvLog) in the pass's riseArena (clock_rises_file.go), beside the
// history's index, rather than in the heap. The log is append-only: each
// chunk is written once, read back by the journal's tries
// (clock_journal.go) for the latest groups of a goroutine and once more
// when the history is indexed (riseRecorder.index). In the heap it was
// live data the collector could never take, and on a trace whose history
// outgrows its budget it was most of the budget itself: the pass then ran
// with the heap at the Go memory limit that -maxmem sets, collecting
// again and again (bench/RESULTS.md, "stress-chan-3m: where the
// analysis's wall time goes"). The log's chunks are plain bytes (no
// pointers), so nothing in the heap needs them to be there.
//
// The arena's pages are given back to the kernel (dropPages) every
// logDropEvery bytes of log, so what the log keeps resident is about that
// much plus the pages a try or the index reads back: the pages the heap
// no longer holds are not taken back by the process's memory.

package predict

// logDropEvery is how many bytes of log chunks apart the arena gives its
// pages back (a variable for the tests).
var logDropEvery = 8 << 20

// useArena makes ar (nil: the heap) hold the index's rises and keys and
// the log's chunks made from now on.
func (r *riseRecorder) useArena(ar *riseArena) {
	r.ar = ar
	for g := range r.log {
		r.log[g].ar = ar
	}
}

// logChunk returns an empty chunk of a log with room for n bytes: from
// the arena, or from the heap for a nil arena or one that cannot map it.
func (a *riseArena) logChunk(n int) []byte {
	b := a.alloc(n)
	if b == nil {
		return make([]byte, 0, n)
	}
	if a.logSince += len(b); a.logSince >= logDropEvery {
		a.logSince = 0
		for _, m := range a.maps {
			dropPages(m)
		}
	}
	return b[:0]
}
