// This file tests the threshold of reading through copies, and the
// looks between two sweeps of the mapping's pages, derived from the room
// -maxmem leaves outside the Go memory limit (spool_window.go's
// openBytesWithin and sweepLooks, memlimit.go's SetSpoolRoom), shared by
// the spools mapped at once (spoolRoomShare).

package trace

import "testing"

func TestOpenBytesWithin(t *testing.T) {
	for _, tc := range []struct {
		name   string
		room   int64
		mapped int64 // spools mapped at once (0 counts as 1: the one read)
		open   int   // cursors open
		many   bool  // read through copies
	}{
		{"no room set: manyOpenBytes", 0, 0, 30_724, false},     // pond's root package, in place as before
		{"no room set, past manyOpenBytes", 0, 0, 32_769, true}, // stress-chan-100k's
		{"-maxmem 512MiB: pond", 64 << 20, 0, 30_724, true},
		{"-maxmem 512MiB: at 1,024 open", 64 << 20, 0, 1_024, false},
		{"-maxmem 512MiB: past 1,024 open", 64 << 20, 0, 1_025, true},
		{"-maxmem 1GiB: stress-chan-3m", 128 << 20, 0, 1_111, false},
		{"-maxmem 1GiB: pond", 128 << 20, 0, 30_724, true},
		{"-maxmem 64GiB: manyOpenBytes", 8 << 30, 0, 30_724, false},
		{"-maxmem 1GiB, one spool mapped: stress-chan-3m", 128 << 20, 1, 1_111, false},
		{"-maxmem 1GiB, two spools mapped (-p 2): stress-chan-3m", 128 << 20, 2, 1_111, true},
		{"-maxmem 512MiB, two spools mapped: at 512 open", 64 << 20, 2, 512, false},
		{"-maxmem 512MiB, two spools mapped: past 512 open", 64 << 20, 2, 513, true},
		{"no room set, two spools mapped: manyOpenBytes", 0, 2, 30_724, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			SetSpoolRoom(tc.room)
			defer SetSpoolRoom(0)
			was := memLimit.mapped.Swap(tc.mapped)
			defer memLimit.mapped.Store(was)
			var w spoolWindow
			w.count(tc.open, spoolChunkBytes)
			if w.many != tc.many {
				t.Errorf("room %d, %d spools, %d open: many = %v, want %v (threshold %d bytes of chunks)", tc.room, tc.mapped, tc.open, w.many, tc.many, openBytesWithin(spoolRoomShare()))
			}
		})
	}
}

func TestSweepLooks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		room   int64
		mapped int64 // spools mapped at once (0 counts as 1)
		looks  int
	}{
		{"no room set", 0, 0, windowSweep},
		{"-maxmem 1GiB", 128 << 20, 0, windowSweep},
		{"-maxmem 64GiB", 8 << 30, 0, windowSweep},
		{"-maxmem 512MiB", 64 << 20, 0, 512},
		{"-maxmem 384MiB", 48 << 20, 0, 384},
		{"-maxmem 1GiB, two spools mapped (-p 2)", 128 << 20, 2, 512},
		{"less than a look's pages", lookBytes - 1, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			SetSpoolRoom(tc.room)
			defer SetSpoolRoom(0)
			was := memLimit.mapped.Swap(tc.mapped)
			defer memLimit.mapped.Store(was)
			if got := sweepLooks(spoolRoomShare()); got != tc.looks {
				t.Errorf("room %d, %d spools: a sweep every %d looks, want %d", tc.room, tc.mapped, got, tc.looks)
			}
			// The looks between two sweeps map no more than the room.
			if got := int64(sweepLooks(spoolRoomShare())) * lookBytes; tc.room > lookBytes && got > tc.room/max(tc.mapped, 1) {
				t.Errorf("room %d, %d spools: %d looks map up to %d bytes", tc.room, tc.mapped, sweepLooks(spoolRoomShare()), got)
			}
		})
	}
}
