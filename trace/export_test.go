// This file gives the external tests of package trace (those that record
// through trace/record: live_test.go, bench_test.go, local_test.go) the
// internals they check.

package trace

import (
	"encoding/binary"
	"os"
)

// ConvertOptions are convertOptions's, for the external tests.
type ConvertOptions struct {
	Replayable  bool
	KeepLocal   bool
	SettleEvery int
	Settled     *int
	NoPrefault  bool
	NoSide      bool
	SideStopAt  int
	SideStops   *int
	RecDropped  *int
}

// ConvertAgain is convert with o, for the external tests, which convert a
// recording's kept spool again after the run.
func ConvertAgain(spoolPath, bin, shadow string, h Header, atomic func(string) bool, maxEvents int, o ConvertOptions) (t *Trace, capped bool, err error) {
	co := LiveOptions{Replayable: o.Replayable, KeepLocal: o.KeepLocal}.options()
	co.settleEvery, co.settled, co.noPrefault, co.noSide = o.SettleEvery, o.Settled, o.NoPrefault, o.NoSide
	co.sideStopAt, co.sideStops = o.SideStopAt, o.SideStops
	co.recDropped = o.RecDropped
	return convert(spoolPath, bin, shadow, h, atomic, maxEvents, co)
}

// ShrinkEvents is shrinkEvents (local.go), for local_test.go.
var ShrinkEvents = shrinkEvents

// ReplayPositions returns t's replay positions as the trace holds them,
// for live_test.go.
func ReplayPositions(t *Trace) []uint32 { return t.replayPos }

// SpoolChunksOff returns where the spool at path says its chunks begin,
// and where PrepareSpool assumes they do (spool_warm.go's copy of
// recorder.c's layout), for live_test.go.
func SpoolChunksOff(path string) (got, assumed uint64, err error) {
	s, err := tryOpenSpool(path, false, false)
	if err != nil {
		return 0, 0, err
	}
	defer s.close()
	return s.chunksOff, spoolChunksOff, nil
}

// ForkOrder is forkOrder (local_handoff_test.go), for local_test.go.
var ForkOrder = forkOrder

// SpoolCounters are the counters of a kept spool's header, for
// record_evcap_test.go.
type SpoolCounters struct {
	Cut       uint64 // the recorder's cut: the last sequence number kept, or 0
	Overflow  uint64 // records that found the spool full
	NextChunk uint64 // chunks handed out
}

// ReadSpoolCounters reads the counters of the spool at path.
func ReadSpoolCounters(path string) (SpoolCounters, error) {
	f, err := os.Open(path)
	if err != nil {
		return SpoolCounters{}, err
	}
	defer f.Close()
	var h [hdrSeq + 8]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return SpoolCounters{}, err
	}
	u := func(off int) uint64 { return binary.LittleEndian.Uint64(h[off:]) }
	return SpoolCounters{Cut: u(hdrCut), Overflow: u(hdrOverflow), NextChunk: u(hdrNextChunk)}, nil
}

// RechunkSpool is rechunkSpool, for the external tests.
func RechunkSpool(src, dst string, chunkBytes uint64) error {
	return rechunkSpool(src, dst, chunkBytes)
}
