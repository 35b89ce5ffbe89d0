// This file implements the steering runner's side of a recording (seer
// check -explore): the steering file and environment that make a run
// take an ExploreSchedule (trace/explore.go has its encoding).

package record

import (
	"fmt"
	"os"

	"github.com/seer-tools/seer/trace"
)

// exploreEnv writes s for b and returns the file's name and the
// environment that makes the run take it: the file, and Ps enough that
// a goroutine waiting at a steering point (it keeps its P) never keeps
// the goroutines it waits for from running.
func (b *Binary) exploreEnv(s *trace.ExploreSchedule) ([]string, error) {
	f, err := os.CreateTemp(b.work, "explore-")
	if err != nil {
		return nil, err
	}
	f.Close()
	if err := trace.WriteExplore(f.Name(), b.Path, s); err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return []string{f.Name(), "SEER_EXPLORE=" + f.Name(), fmt.Sprintf("GOMAXPROCS=%d", ExploreProcs)}, nil
}

// ExploreProcs is GOMAXPROCS for a steered run: a waiting goroutine keeps
// its P, so a run needs more Ps than goroutines that wait at once.
const ExploreProcs = 64
