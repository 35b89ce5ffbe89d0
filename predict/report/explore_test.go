// This file tests what the text report and the hover say of exploring.

package report

import (
	"bytes"
	"strings"
	"testing"
)

func TestExploreText(t *testing.T) {
	rep := &Report{
		Findings: []Finding{{
			Test: "TestPool", Package: "example.com/p", Kind: KindRace, Predicted: false, Count: 1,
			Accesses: []Access{{File: "/m/pool.go", Line: 29, Op: "write", Goroutine: 9}, {File: "/m/pool.go", Line: 29, Op: "write", Goroutine: 10}},
			Origin:   &Origin{Run: 3, Strategy: StrategyPartner, Seed: 77, Runs: 4},
		}},
		Explore: []Exploration{{
			Package: "example.com/p", Seed: 5, Budget: 20,
			Runs:    make([]ExploreRun, 8),
			Found:   []int{0, 0, 1, 1, 1, 1, 1, 1, 1},
			Stopped: "stopped after 8 runs: 5 runs in a row added no finding and no coverage",
		}},
	}
	var b bytes.Buffer
	writeText(&b, rep, func(s string) string { return s })
	for _, want := range []string{
		"\tfound in explore run 3 (partner, seed 77): it took 4 runs\n",
		"seer: example.com/p: explored 8 of 20 runs, -explore-seed 5; findings after each run: 0 0 1 1 1 1 1 1 1\n",
		"seer: example.com/p: stopped after 8 runs: 5 runs in a row added no finding and no coverage\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	if s := (&Origin{Run: 0, Strategy: StrategyFirst}).Sentence(); s != "found in the first run" {
		t.Errorf("first run's origin: %q", s)
	}
	// A report without exploring says nothing of it.
	b.Reset()
	rep.Findings[0].Origin, rep.Explore = nil, nil
	writeText(&b, rep, func(s string) string { return s })
	if strings.Contains(b.String(), "explore") {
		t.Errorf("a report without exploring mentions it:\n%s", b.String())
	}
}
