// This file implements the entry point through which trace/record converts
// a spool while its test runs: ConvertLive is convert with the options a
// recording sets.

package trace

import "sync/atomic"

// SpoolChunkBytes is the size of one chunk of the recorder's spool
// (recorder.c's CHUNK_BYTES), by which a recording sizes the spool.
const SpoolChunkBytes = spoolChunkBytes

// LiveOptions are the options of a conversion that a recording runs.
type LiveOptions struct {
	Replayable bool // keep each event's replay position (replay.go)
	KeepLocal  bool // keep the goroutine-local accesses too (local.go)
	// Ended, if not nil, is closed when the test process that writes the
	// spool is gone: until then the spool is converted as it is written.
	Ended <-chan struct{}
	// Recycle, with Ended, gives the recorder back the spool's room of
	// every chunk converted, to write new records to pages in memory
	// (recorder.c's "Recycling"): the spool then keeps only what was not
	// converted, so it is for a spool nothing reads again.
	Recycle bool
	// Abort, if not nil, ends the conversion early when closed.
	Abort <-chan struct{}
	// GoIDs, if not nil, is set to the map from the recorder's goroutine
	// ids to the trace's, for output that names the recorder's (the hang
	// watcher's report, trace/record/hang.go).
	GoIDs *map[uint32]GoID
	// Converted, if not nil, is kept at the number of events converted so
	// far, chunk by chunk (a recording's live progress).
	Converted *atomic.Int64
}

// ConvertLive is Convert with the options of a recording; it also reports
// whether the conversion stopped at maxEvents.
func ConvertLive(spoolPath, bin, shadow string, h Header, atomic func(string) bool, maxEvents int, o LiveOptions) (t *Trace, capped bool, err error) {
	return convert(spoolPath, bin, shadow, h, atomic, maxEvents, o.options())
}

func (o LiveOptions) options() convertOptions {
	return convertOptions{replayable: o.Replayable, keepLocal: o.KeepLocal, live: o.Ended, recycle: o.Recycle, abort: o.Abort, goIDs: o.GoIDs, converted: o.Converted}
}
