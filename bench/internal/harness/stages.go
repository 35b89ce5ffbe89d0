// This file implements SeerStages: how a seer check run's wall time
// divides between the tests running, the conversion left after them, and
// the analysis, from the stage lines seer prints under SEER_TIMING=1.

package harness

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Stages is how a seer check run's wall time divides. Packages run and
// are analysed one at a time, so the parts add up to the wall time.
type Stages struct {
	// Run is the time the tests ran (a package's "running" to its
	// "converting").
	Run time.Duration `json:"run_ns"`
	// Convert is the conversion left when a test process ended
	// ("converting" to "analysing").
	Convert time.Duration `json:"convert_after_run_ns"`
	// Analyse is the analysis and report ("analysing" to the next
	// "running", or the end).
	Analyse time.Duration `json:"analyse_ns"`
	// Other is the rest: listing and loading, builds that nothing hid.
	Other time.Duration `json:"other_ns"`
}

func (s Stages) String() string {
	return fmt.Sprintf("run %s, conversion after run %s, analysis %s, other %s",
		FormatDuration(s.Run), FormatDuration(s.Convert), FormatDuration(s.Analyse), FormatDuration(s.Other))
}

// SeerStages reads the stage lines of stderr ("  1.40s example.com/p
// running 0": seconds since the start, package, stage, events) of a run
// that took wall, and reports whether there were any.
func SeerStages(stderr []byte, wall time.Duration) (Stages, bool) {
	type mark struct {
		at         time.Duration
		pkg, stage string
	}
	var marks []mark
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 || !strings.HasSuffix(f[0], "s") {
			continue
		}
		secs, err := strconv.ParseFloat(strings.TrimSuffix(f[0], "s"), 64)
		if _, nerr := strconv.Atoi(f[3]); err != nil || nerr != nil {
			continue
		}
		switch f[2] {
		case "running", "converting", "analysing":
			marks = append(marks, mark{time.Duration(secs * float64(time.Second)), f[1], f[2]})
		}
	}
	if len(marks) == 0 {
		return Stages{}, false
	}
	slices.SortStableFunc(marks, func(a, b mark) int { return int(a.at - b.at) })
	var s Stages
	for i, m := range marks {
		// A stage lasts until its package's next stage, or for an
		// analysis, until the next run starts or the process ends.
		end := wall
		for _, n := range marks[i+1:] {
			if n.pkg == m.pkg && m.stage != "analysing" || n.stage == "running" {
				end = n.at
				break
			}
		}
		d := max(end-m.at, 0)
		switch m.stage {
		case "running":
			s.Run += d
		case "converting":
			s.Convert += d
		case "analysing":
			s.Analyse += d
		}
	}
	s.Other = max(wall-s.Run-s.Convert-s.Analyse, 0)
	return s, true
}
