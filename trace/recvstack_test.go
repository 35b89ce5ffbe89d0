// This file tests the stack of a synchronisation that the runtime
// annotates for a parked goroutine (its partner makes the annotation).

package trace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

const recvStackSrc = `package rec

import (
	"testing"
	"time"
)

var x int

func TestParkedRecv(t *testing.T) {
	ch := make(chan int)
	go func() {
		time.Sleep(20 * time.Millisecond)
		ch <- 1 // line 14
	}()
	x = 1 // line 16
	<-ch  // line 17
	x = 2
}

func TestParkedSend(t *testing.T) {
	ch := make(chan int)
	go func() {
		x = 3     // line 24
		ch <- 1   // line 25
		x = 4
	}()
	time.Sleep(20 * time.Millisecond)
	<-ch // line 29
}
`

// TestParkedSyncStack: a goroutine parked in a channel operation is
// annotated by its partner; the event must carry the parked goroutine's
// own line (the receive or send), not the line of its event before (the
// recorder used to give it the stack of the goroutine's last event).
func TestParkedSyncStack(t *testing.T) {
	skipIfCannotRecord(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/rec\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "rec_test.go"), []byte(recvStackSrc), 0o644)
	res, err := Record(context.Background(), RecordOptions{Dir: dir, NoFile: true})
	if err != nil {
		t.Fatal(err)
	}
	tr := res.Trace
	want := map[string]map[Op]int{
		"TestParkedRecv": {OpRecv: 17, OpSend: 14},
		"TestParkedSend": {OpSend: 25, OpRecv: 29},
	}
	got := map[string]map[Op][]int{}
	for i := range tr.Events {
		e := &tr.Events[i]
		if e.Op != OpSend && e.Op != OpRecv {
			continue
		}
		g := tr.Goroutine(e.G)
		f, ok := UserFrame(tr.Stack(e.Stack), tr.Header.GOROOT)
		if g == nil || want[g.Test] == nil || !ok || filepath.Base(f.File) != "rec_test.go" {
			continue
		}
		if got[g.Test] == nil {
			got[g.Test] = map[Op][]int{}
		}
		got[g.Test][e.Op] = append(got[g.Test][e.Op], f.Line)
	}
	for test, ops := range want {
		for op, line := range ops {
			lines := got[test][op]
			if len(lines) == 0 {
				t.Errorf("%s: no %s event in user code", test, op)
			}
			for _, l := range lines {
				if l != line {
					t.Errorf("%s: %s event at line %d, want %d (all: %v)", test, op, l, line, lines)
				}
			}
		}
	}
}
