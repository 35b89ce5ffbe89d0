// This file implements Analyze's way out on a panic (a bug in seer,
// which the language server and seer check recover and go on from):
// before the panic goes on, every goroutine the call started has ended
// and what it holds is released, as on its other ways out. Those are
// the pre-pass's locations (prePass), the caller's work beside the
// passes over the whole trace (Options.WhileWhole), the SHB layer beside the
// must-happen-before pass or the classes beside the wait for a cut
// history's index (startSHB), the layers after the races (sideLayers),
// and the index of a cut history (history_cut.go), which writes the
// arena; the arena Analyze made (its mappings and file) is freed only
// once they have all ended, and the trace's values are read back only
// once nothing reads its tables. A goroutine's own panic, which its wait
// would raise again, gives way to the panic already on its way out.
// The tests reach each stage through panicHook and count the goroutines
// through trackGoroutine; both are nil outside the tests, and the
// normal path does nothing more than test them.

package predict

// panicStage names a point of Analyze at which the tests panic
// (panicHook), each with goroutines of the call still running.
type panicStage int

const (
	// panicPrePass: in the pre-pass, its locations' goroutine started.
	panicPrePass panicStage = iota
	// panicCut: the must-happen-before pass's history cut, its index
	// on a goroutine of its own (history_cut.go's indexBesideFrom).
	panicCut
	// panicSide: the layers after the races started on their goroutine.
	panicSide
)

// panicHook, if not nil, is called at each panicStage; the tests set it
// to panic there.
var panicHook func(panicStage)

// trackGoroutine, if not nil, is called by goroutine as it starts one,
// on the caller's goroutine; the function it returns is called as that
// goroutine ends. The tests count Analyze's goroutines with it.
var trackGoroutine func() (end func())

// quietly calls wait, and stops a panic it raises again (a goroutine's
// own, goroutine's wait): on a panic's way out the panic in flight goes
// on.
func quietly(wait func()) {
	if wait == nil {
		return
	}
	defer func() { _ = recover() }()
	wait()
}

// settle ends Analyze on a panic's way out (see the file's comment):
// it waits for every goroutine the call started, then reads the trace's
// values back and, if own, frees the arena.
func (a *analysis) settle(own bool) {
	quietly(a.waitMem)
	quietly(a.waitSHB)
	quietly(a.waitIndex)
	quietly(a.waitSide)
	quietly(a.waitWhole)
	_ = a.restoreValues()
	if own {
		a.o.freeArenas()
	}
}
