// This file implements the event table's prefaulter: a goroutine that,
// once the test process is gone, has the kernel fault in the table's pages
// a little ahead of the conversion that writes them, and the side log's
// blocks one block ahead (local_side.go), on the core the recorded test no
// longer uses.
//
// After the run the conversion is one goroutine writing events to fresh
// pages of the table (most of them left out at the end, local.go), and
// the page faults were much of its CPU (bench/RESULTS.md, "the
// conversion after the run on two cores"). Faulting a page in asks nothing of its contents
// (madvise MADV_POPULATE_WRITE, prefault_linux.go), so the prefaulter and
// the writer need no ordering between them: whichever of the two touches
// a page first, the kernel zeroes it once, and the events are the same.

package trace

import (
	"unsafe"

	"github.com/seer-tools/seer/internal/bigslice"
)

const (
	// prefaultAhead is how far past the table's length the prefaulter
	// keeps pages faulted in (4 MiB of events). Pages faulted in far
	// ahead are out of the cache when the writer gets to them: a wider
	// window cost the whole conversion more CPU than it saved
	// (bench/RESULTS.md, "the conversion after the run on two cores").
	prefaultAhead = 1 << 17
	// prefaultStep is how many events are added between two requests.
	prefaultStep = 1 << 15
)

// A prefaulter faults in the pages of the event table ahead of its
// length, and of the side log's next block. The zero value (nil) does
// nothing.
type prefaulter struct {
	req  chan region   // the next range to fault in; newer requests replace older ones
	done chan struct{} // closed when run returns
	next int           // the length at which ask sends again
	// gone reports whether the test process is gone: until then the
	// conversion runs at a low priority and the prefaulter would not.
	gone func() bool
}

// newPrefaulter starts a prefaulter, or returns nil where pages cannot be
// faulted in ahead (prefaults).
func newPrefaulter(gone func() bool) *prefaulter {
	if !prefaults {
		return nil
	}
	p := &prefaulter{req: make(chan region, 1), done: make(chan struct{}), gone: gone}
	go p.run()
	return p
}

// A region is memory to fault in: the table's events ahead, or a block of
// the side log (local_side.go).
type region struct {
	p unsafe.Pointer
	n uintptr
}

// run faults in each range requested, until stop.
func (p *prefaulter) run() {
	defer close(p.done)
	for r := range p.req {
		if r.n == 0 {
			continue
		}
		if !populate(r.p, r.n) {
			// Not supported (a kernel before 5.14): the writer faults
			// its pages in itself, as it did before.
			for range p.req {
			}
			return
		}
	}
}

// due reports whether ask(events, n, false) would ask for pages: its test,
// inlined where each event is added.
func (p *prefaulter) due(n int) bool { return p != nil && n >= p.next }

// ask asks for the pages of events past n, the table's length, to be
// faulted in, when n passed the point of the last request or force says
// the table is a new array (Builder.Grow).
func (p *prefaulter) ask(events []Event, n int, force bool) {
	if p == nil || !force && n < p.next {
		return
	}
	p.next = n + prefaultStep
	if !p.gone() {
		return
	}
	hi := min(n+prefaultAhead, cap(events))
	if hi <= n {
		return
	}
	r := events[n:hi:hi]
	p.send(region{unsafe.Pointer(unsafe.SliceData(r)), uintptr(len(r)) * unsafe.Sizeof(Event{})})
}

// askBlock asks for the pages of a new block of the side log to be
// faulted in (sideLog.fresh), after the run.
func (p *prefaulter) askBlock(b []sideRec) {
	if p == nil || len(b) == 0 || !p.gone() {
		return
	}
	p.send(region{unsafe.Pointer(&b[0]), uintptr(len(b)) * unsafe.Sizeof(sideRec{})})
}

// send sends r, replacing a request that waits.
func (p *prefaulter) send(r region) {
	select {
	case p.req <- r:
	default:
		// A request is waiting: replace it by this one, which reaches
		// further (or is of the new array), or is of the side log's
		// next block where the waiting one is of the table, or the
		// other way round: pages of the one replaced that no later
		// request names, the writer faults in itself.
		select {
		case <-p.req:
		default:
		}
		select {
		case p.req <- r:
		default:
		}
	}
}

// minSplitCopy is the fewest events copyEvents copies on two cores.
const minSplitCopy = 1 << 18

// copyEvents copies src to dst, the table grown (Builder.copyEvents):
// after the run, a large table in two halves at once, one on a goroutine
// of its own, since writing the grown table's fresh pages is most of the
// copy's time and the kernel faults them in on either core. Either way
// in steps the collector can stop between (bigslice.Copy).
func (p *prefaulter) copyEvents(dst, src []Event) {
	if p == nil || len(src) < minSplitCopy || !p.gone() {
		bigslice.Copy(dst, src)
		return
	}
	inHalves(len(src)/2, len(src), func(from, to int) { bigslice.Copy(dst[from:to], src[from:to]) })
}

// reach returns the length up to which the prefaulter may have faulted in
// the table of n events: shrinkEvents gives back pages up to there.
func (p *prefaulter) reach(events []Event, n int) int {
	if p == nil {
		return n
	}
	return min(max(n, p.next-prefaultStep+prefaultAhead), cap(events))
}

// stop ends the prefaulter and waits for it, so that no page is faulted
// in after the caller gives the table's tail back (shrinkEvents).
func (p *prefaulter) stop() {
	if p != nil && p.req != nil {
		close(p.req)
		<-p.done
		p.req = nil
	}
}
