// This file tests the replay positions of a recorded run (replay.go); it
// records, through package trace/record, so it is an external test.

package trace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

// TestReplayPositions records a goroutine's plain writes and a lock:
// each write in the test's code is a countable record, one position
// after the one before, and the lock, made by package sync, counts
// nothing.
func TestReplayPositions(t *testing.T) {
	skipIfCannotRecord(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/rec\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "rec_test.go"), []byte(`package rec

import (
	"sync"
	"testing"
)

var x, y, z int
var mu sync.Mutex

func TestPositions(t *testing.T) {
	x = 1
	mu.Lock()
	y = 2
	mu.Unlock()
	z = 3
}
`), 0o644)
	res, err := Record(context.Background(), RecordOptions{Dir: dir, NoFile: true, Replayable: true, KeepLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	pos := map[string]uint32{}
	for i := range tr.Events {
		e := &tr.Events[i]
		g := tr.Goroutine(e.G)
		if g == nil || g.Test != "TestPositions" {
			continue
		}
		p, own, ok := tr.ReplayPos(i)
		if !ok {
			t.Fatal("no replay positions in a replayable trace")
		}
		name := ""
		if e.Op == OpWrite {
			name = tr.ObjectName(e.Obj)
		}
		switch {
		case name == "example.com/rec.x", name == "example.com/rec.y", name == "example.com/rec.z":
			pos[name[len("example.com/rec."):]] = p
		case (e.Op == OpLock || e.Op == OpUnlock) && filepath.Base(tr.Site(e).File) == "rec_test.go":
			pos[e.Op.String()] = p
		default:
			continue
		}
		if !own {
			t.Errorf("event %d (%s): not its goroutine's own", i, e.Op)
		}
	}
	want := map[string]uint32{"x": pos["x"], "lock": pos["x"] + 1, "y": pos["x"] + 1, "unlock": pos["x"] + 2, "z": pos["x"] + 2}
	for k, v := range want {
		if got, ok := pos[k]; !ok || got != v {
			t.Errorf("position of %s: %d (%v), want %d; all: %v", k, got, ok, v, pos)
		}
	}
	// Without Replayable, no positions.
	res, err = Record(context.Background(), RecordOptions{Dir: dir, NoFile: true, KeepLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := res.Trace.ReplayPos(0); ok {
		t.Error("replay positions in a trace not recorded to be replayed")
	}
}
