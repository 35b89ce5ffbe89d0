// This file implements the replay runner's side of a recording: the
// schedule file and environment that make a run enforce a witness
// schedule (trace/replay.go has the schedule's encoding).

package record

import (
	"fmt"
	"os"

	"github.com/seer-tools/seer/trace"
)

// replayEnv writes s for b and returns the file's name and the
// environment that makes the run enforce it: the schedule; Ps enough
// for every goroutine that may wait at a gate (a waiting goroutine keeps
// its P) and the one whose turn it is; and no garbage collection, whose
// stop-the-world would wait for the goroutines waiting at gates.
func (b *Binary) replayEnv(s *trace.ReplaySchedule) ([]string, error) {
	f, err := os.CreateTemp(b.work, "replay-")
	if err != nil {
		return nil, err
	}
	f.Close()
	if err := trace.WriteSchedule(f.Name(), b.Path, s); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	procs := min(2*len(s.Goroutines)+8, 256)
	return []string{f.Name(), "SEER_REPLAY=" + f.Name(), fmt.Sprintf("GOMAXPROCS=%d", procs), "GOGC=off"}, nil
}
