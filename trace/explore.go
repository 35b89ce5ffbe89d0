// This file implements what steering a run needs from recording (seer
// check -explore): the names the recorder gives goroutines by creation
// (GoPaths), the steering file it reads (SEER_EXPLORE) and what it writes
// back. The recorder's side is the "Steering" section of
// record/runtime/recorder.c, the runner's record/explore.go; which runs to
// steer how is package check's (predict/check/explore.go).

package trace

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"time"
)

// An ExploreSchedule steers one run: the recorder delays goroutines, and
// never does anything else, so every steered run is one Go could take.
type ExploreSchedule struct {
	Seed uint64
	// PCT, if set, runs PCT (Burckhardt et al., ASPLOS'10): random
	// priorities from Seed, and the priority drops at the steering points
	// numbered in Change (1-based, the d-1 change points). Delays are not
	// taken then.
	PCT    bool
	Change []uint64
	// StepWait bounds one goroutine's wait at one PCT steering point.
	StepWait time.Duration
	// Delays make the named goroutines wait at their positions.
	Delays []ExploreDelay
	// Budget bounds the time all goroutines of the run spend waiting.
	Budget time.Duration
}

// An ExploreDelay makes the goroutine whose creation path hashes to Path
// (GoPaths) wait for Wait once it has made Pos countable records (its
// position, Trace.ReplayPos): just before the event at that position.
type ExploreDelay struct {
	Path uint64
	Pos  uint32
	Wait time.Duration
}

// An ExploreOutcome is what the recorder reports of a steered run.
type ExploreOutcome struct {
	Attached bool          // the recorder read the steering file
	Delayed  int           // delays taken
	Steps    int           // PCT steering points passed
	Waited   time.Duration // time goroutines spent waiting, summed
}

const (
	exMagic      = 0x524c5058
	exVersion    = 1
	exPCT        = 1
	exHeaderSize = 80
	exRoot       = 0x9E3779B97F4A7C15
)

// exMix is the recorder's ex_mix (splitmix64's finaliser, 0 made 1).
func exMix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	x ^= x >> 31
	if x == 0 {
		return 1
	}
	return x
}

// GoPaths returns, for each goroutine of t (by GoID), the hash the
// recorder's steering names it by: the root's is fixed, and the k-th
// child that a goroutine starts by a go statement (every child, for the
// root) has the hash of its parent's and k. It is 0 for a goroutine with
// no such name (the runtime's).
func GoPaths(t *Trace) []uint64 {
	out := make([]uint64, len(t.Goroutines))
	kids := make([]uint32, len(t.Goroutines))
	for id := range t.Goroutines {
		if id > 0 && t.Goroutines[id].Parent == 0 {
			out[id] = exRoot
		}
	}
	for i := range t.Events {
		e := &t.Events[i]
		if e.Op != OpGo || e.Stack == 0 || e.Peer <= 0 || int(e.Peer) >= len(t.Goroutines) || out[e.G] == 0 {
			continue
		}
		if t.Goroutines[e.G].Parent != 0 {
			if top, ok := t.Stacks.Top(e.Stack); ok && !Countable(top.Func) {
				continue
			}
		}
		k := kids[e.G]
		kids[e.G]++
		out[e.Peer] = exMix(out[e.G]*31 + uint64(k) + 1)
	}
	return out
}

// encodeExplore lays s out as recorder.c's struct ex_header, the change
// points, the delays (sorted) and the countable pc ranges.
func encodeExplore(s *ExploreSchedule, ranges []uint64) []byte {
	le := binary.LittleEndian
	var b []byte
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	flags := uint32(0)
	var change []uint64
	if s.PCT {
		flags |= exPCT
		change = s.Change
	}
	delays := slices.Clone(s.Delays)
	if s.PCT {
		delays = nil
	}
	slices.SortFunc(delays, func(a, b ExploreDelay) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Pos, b.Pos))
	})
	stepWait, budget := s.StepWait, s.Budget
	if stepWait <= 0 {
		stepWait = 20 * time.Millisecond
	}
	if budget <= 0 {
		budget = 2 * time.Second
	}
	u32(exMagic)
	u32(exVersion)
	u32(flags)
	u32(uint32(len(change)))
	u32(uint32(len(delays)))
	u32(uint32(len(ranges) / 2))
	u32(uint32(stepWait / time.Microsecond))
	u32(uint32(budget / time.Millisecond))
	b = le.AppendUint64(b, s.Seed)
	for len(b) < exHeaderSize {
		u32(0)
	}
	for _, c := range change {
		b = le.AppendUint64(b, c)
	}
	for _, d := range delays {
		b = le.AppendUint64(b, d.Path)
		u32(d.Pos)
		u32(uint32(max(d.Wait/time.Millisecond, 1)))
	}
	for _, r := range ranges {
		b = le.AppendUint64(b, r)
	}
	return b
}

// ReadExploreOutcome reads what the recorder wrote back into the
// steering file.
func ReadExploreOutcome(path string) (*ExploreOutcome, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < exHeaderSize {
		return nil, fmt.Errorf("steering file %s: cut short", path)
	}
	le := binary.LittleEndian
	return &ExploreOutcome{
		Attached: le.Uint32(b[40:]) != 0,
		Delayed:  int(le.Uint32(b[44:])),
		Steps:    int(le.Uint64(b[48:])),
		Waited:   time.Duration(le.Uint64(b[56:])) * time.Microsecond,
	}, nil
}

// WriteExplore writes s, for the test binary bin, to path.
func WriteExplore(path, bin string, s *ExploreSchedule) error {
	ranges, err := countableRanges(bin)
	if err != nil {
		return err
	}
	return os.WriteFile(path, encodeExplore(s, ranges), 0o600)
}
