// This file tests what replay needs from recording: replay positions, the
// countable functions and the schedule file.

package trace

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestCountable(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.gopark":                false,
		"sync.(*Mutex).Lock":            false,
		"sync/atomic.(*Int32).Add":      false,
		"internal/sync.(*Mutex).Lock":   false,
		"runtime.chansend1":             false,
		"runtime/debug.SetGCPercent":    false,
		"example.com/p.TestX.func1":     true,
		"testing.tRunner":               true,
		"bytes.(*Buffer).Write":         true,
		"github.com/x/runtime.Allocate": true,
	} {
		if got := Countable(fn); got != want {
			t.Errorf("Countable(%q) = %v, want %v", fn, got, want)
		}
	}
}

// TestScheduleFile lays out a schedule as the recorder reads it, and reads
// the (untouched) outcome back.
func TestScheduleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sched")
	s := &ReplaySchedule{
		Goroutines: []ReplayGoroutine{{Parent: -1, Hold: -1}, {Parent: 0, Index: 3, Enforced: true, Hold: 7}, {Parent: 1, Index: 0, Enforced: true, Hold: -1, HoldAfterStep: true, AfterUnlock: true}},
		Steps:      []ReplayStep{{Slot: 1, Gate: 2}, {Slot: 2, Gate: 0}, {Slot: 1, Gate: 2, Same: true, AfterUnlock: true}},
		Stall:      5 * time.Millisecond,
	}
	b := encodeSchedule(s, []uint64{0x1000, 0x2000, 0x3000, 0x3100})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	le := binary.LittleEndian
	w := func(off int) uint32 { return le.Uint32(b[off:]) }
	if w(0) != rpMagic || w(4) != rpVersion || w(8) != 3 || w(12) != 3 || w(16) == 0 || w(20) != 5000 || w(24) != 20000 || w(28) != 2000 {
		t.Fatalf("header % x", b[:32])
	}
	gor := func(k int) [4]uint32 {
		o := rpHeaderSize + 16*k
		return [4]uint32{w(o), w(o + 4), w(o + 8), w(o + 12)}
	}
	if g := gor(0); g != [4]uint32{0xffffffff, 0, 0, 0} {
		t.Errorf("goroutine 0: %v", g)
	}
	if g := gor(1); g != [4]uint32{0, 3, 1, 8} {
		t.Errorf("goroutine 1: %v", g)
	}
	if g := gor(2); g != [4]uint32{1, 0, 1 | 2 | 4, 0} {
		t.Errorf("goroutine 2: %v", g)
	}
	step := func(k int) [3]uint32 {
		o := rpHeaderSize + 16*3 + 16*k
		return [3]uint32{w(o), w(o + 4), w(o + 8)}
	}
	if st := step(2); st != [3]uint32{1, 2, 1 | 2} {
		t.Errorf("step 2: %v", st)
	}
	ranges := (len(b) - (rpHeaderSize + 16*3 + 16*3)) / 16
	if ranges != int(w(16)) || ranges != 2 || le.Uint64(b[len(b)-8:]) != 0x3100 {
		t.Errorf("%d ranges in the file, header says %d", ranges, w(16))
	}
	o, err := ReadOutcome(path)
	if err != nil || o.Attached || o.Missing != -1 || o.Turn != 0 {
		t.Errorf("outcome of an unrun schedule: %+v, %v", o, err)
	}
}
