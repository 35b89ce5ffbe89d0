// This file implements FuzzConvert, which feeds arbitrary record streams to
// the spool reader and the converter: go test -fuzz=FuzzConvert ./trace

package trace

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

// spoolRec encodes one spool record of the given kind: its first word
// (sequence number and kind), then the rest.
func spoolRec(seq uint64, kind uint8, words ...uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seq<<8|uint64(kind))
	for _, w := range words {
		b = binary.LittleEndian.AppendUint64(b, w)
	}
	return b
}

// writeSpool writes a spool file whose chunks hold the given record
// streams (gid 0 is the symbol stream), one chunk per stream, in the
// layout recorder.c writes.
func writeSpool(t testing.TB, path string, streams map[uint32][]byte) {
	const chunkBytes = 8192
	le := binary.LittleEndian
	var gids []uint32
	for gid := range streams {
		gids = append(gids, gid)
	}
	for i := 1; i < len(gids); i++ { // deterministic order
		for j := i; j > 0 && gids[j] < gids[j-1]; j-- {
			gids[j], gids[j-1] = gids[j-1], gids[j]
		}
	}
	data := make([]byte, 8192+len(gids)*chunkBytes)
	le.PutUint64(data[0:], spoolMagic)
	le.PutUint32(data[8:], spoolVersion)
	le.PutUint32(data[12:], chunkBytes)
	le.PutUint64(data[16:], 8192)              // chunks offset
	le.PutUint64(data[24:], 4096)              // malloc region bytes
	le.PutUint64(data[32:], uint64(len(gids))) // chunks
	for i, gid := range gids {
		c := data[8192+i*chunkBytes:]
		recs := streams[gid]
		if len(recs) > chunkBytes-chunkHdr {
			recs = recs[:chunkBytes-chunkHdr]
		}
		if gid == 0 {
			gid = symGID
		}
		le.PutUint32(c[0:], gid)
		le.PutUint32(c[4:], uint32(len(recs)))
		copy(c[chunkHdr:], recs)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzConvert checks that no record stream makes conversion panic: a
// malformed stream is cut where it goes wrong and the trace of what came
// before is still built (and passes the builder's checks).
func FuzzConvert(f *testing.F) {
	var main, child []byte
	main = append(main, spoolRec(1, rGo, 2, 0x1000)...)
	main = append(main, spoolRec(3, rWrite, 0xc000010000, 0x1000<<8|8)...)
	main = append(main, spoolRec(4, rRelease, 0xc000020000, 0)...)
	main = append(main, spoolRec(7, rAcquire, 0xc000020000, 1, 0x1000)...)
	main = append(main, spoolRec(8, rFingo)...)
	main = append(main, spoolRec(9, rEnd)...)
	child = append(child, spoolRec(2, rStart, 1)...)
	child = append(child, spoolRec(5, rRead, 0xc000010000, 0x1000<<8|8)...)
	child = append(child, spoolRec(6, rAtomic, 0xc000030000, uint64(aAdd)<<16|4, 2, 1, 1, 0x1000)...)
	child = append(child, spoolRec(10, rEnd)...)
	f.Add(main, child)
	f.Add(main[:20], child)
	f.Add(append(spoolRec(1, rStart, 7), spoolRec(2, rFingo)...), child[:30])
	f.Add([]byte{}, []byte{})
	f.Add(randomBytes(1024, 4), randomBytes(1024, 5))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		path := filepath.Join(t.TempDir(), "spool")
		writeSpool(t, path, map[uint32][]byte{1: a, 2: b})
		tr, err := Convert(path, "", "", Header{}, nil, 1000)
		if err != nil {
			if len(err.Error()) >= 300 {
				t.Fatalf("error of %d bytes: %.300s", len(err.Error()), err)
			}
			return
		}
		if len(tr.Events) > 1000+len(tr.Goroutines) { // one record may add an event per goroutine
			t.Fatalf("%d events converted, want at most about 1000", len(tr.Events))
		}
		for i := range tr.Events {
			e := &tr.Events[i]
			if tr.Goroutine(e.G) == nil {
				t.Fatalf("event %d: goroutine %d is not in the trace", i, e.G)
			}
		}
	})
}

// TestConvertStopsAtCut: when the recorder could not keep a record, it
// notes the last sequence number all of whose records it kept; the trace
// is the prefix up to it (a goroutine with room left in its chunk wrote on,
// but those records are not used), a whole file of the run's first events
// (Header.Capped), as at the event cap. It was marked truncated (a
// damaged file to seer predict) whenever a record past the cut stopped
// the walk, which the spool-full recordings of x/sync's syncmap did about
// one time in six. A cut the recorder made at the event cap (recorder.c,
// "Stopping at the event cap": a cut with no record lost to a full
// spool) that came before the cap is marked truncated instead: the
// recorder's count of events was not a lower bound, and the file is not
// the run's first maxEvents events that Capped would claim.
func TestConvertStopsAtCut(t *testing.T) {
	var main, child []byte
	main = append(main, spoolRec(1, rGo, 2, 0x1000)...)
	main = append(main, spoolRec(3, rWrite, 0xc000010000, 0x1000<<8|8)...)
	main = append(main, spoolRec(4, rRelease, 0xc000020000, 0)...)
	main = append(main, spoolRec(6, rWrite, 0xc000010000, 0x1000<<8|8)...)
	main = append(main, spoolRec(7, rEnd)...)
	child = append(child, spoolRec(2, rStart, 1)...)
	child = append(child, spoolRec(5, rRead, 0xc000010000, 0x1000<<8|8)...)
	path := filepath.Join(t.TempDir(), "spool")
	writeSpool(t, path, map[uint32][]byte{1: main, 2: child})
	for _, tc := range []struct {
		cut, overflow  uint64
		max            int
		events, capped int
		truncated      bool
	}{
		{0, 0, 0, 7, 0, false},
		{5, 0, 0, 5, 5, false},
		{3, 0, 0, 3, 3, false},
		{0, 0, 10, 7, 0, false}, // under the cap
		{5, 0, 5, 5, 5, false},  // the recorder's stop at the cap
		{6, 0, 5, 5, 5, false},  // past the cap
		{5, 1, 10, 5, 5, false}, // the spool full before the cap
		{5, 0, 10, 5, 0, true},  // the recorder's stop at the cap before the cap
	} {
		data, _ := os.ReadFile(path)
		binary.LittleEndian.PutUint64(data[hdrCut:], tc.cut)
		binary.LittleEndian.PutUint64(data[hdrOverflow:], tc.overflow)
		os.WriteFile(path, data, 0o644)
		tr, err := Convert(path, "", "", Header{}, nil, tc.max)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Events) != tc.events || tr.Truncated != tc.truncated || tr.Header.Capped != tc.capped {
			t.Errorf("%+v: %d events, truncated %v, capped %d", tc, len(tr.Events), tr.Truncated, tr.Header.Capped)
		}
	}
}
