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
// What the Go memory limit does not see must not stay resident: the
// arena gives its pages back to the kernel (dropPages) every dropEvery
// bytes it makes or the index reads back (touched), so the log and the
// index keep about that much resident beside the heap, plus the pages a
// journal's try reads back.

package predict

// dropEvery is how many bytes made or read back in an arena apart its
// pages are given back (a variable for the tests).
var dropEvery = 8 << 20

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
	if b := a.alloc(n); b != nil {
		return b[:0]
	}
	return make([]byte, 0, n)
}

// touched counts n bytes of a (nil: none) made or read back, and gives
// the pages back once dropEvery bytes were since it last did.
func (a *riseArena) touched(n int) {
	if a == nil {
		return
	}
	if a.since += n; a.since >= dropEvery {
		a.since = 0
		for _, m := range a.maps {
			dropPages(m)
		}
	}
}
