// This file tests the sentences of a finding's story (story.go).

package report

import (
	"fmt"
	"path/filepath"
	"testing"
)

func TestStorySentences(t *testing.T) {
	f := &witnessReport("/src/bank").Findings[0]
	rel := filepath.Base
	if got, want := PrefixPhrase(f, rel), "the recorded run before event 3800, less goroutine 9's events from bank.go:21 on (7 events) and 1 later event of a goroutine in the runtime or the test harness"; got != want {
		t.Errorf("prefix:\n got %s\nwant %s", got, want)
	}
	want := []string{"in the recorded run goroutine 9's critical section on a.mu at bank.go:22 ran before goroutine 10's at :32; the witness runs goroutine 10's first, and nothing else orders them"}
	if got := ReorderedSentences(f, rel); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reordered:\n got %q\nwant %q", got, want)
	}
	// Two locks, one with two sections the witness overtakes.
	f.Reordered = []Sync{
		{Op: "lock", Goroutine: 3, File: "/src/a.go", Line: 5, Object: "mu"},
		{Op: "lock", Goroutine: 4, File: "/src/a.go", Line: 9, Object: "mu"},
		{Op: "lock", Goroutine: 5, File: "/src/b.go", Line: 7, Object: "mu", First: true},
		{Op: "rlock", Goroutine: 3, File: "/src/a.go", Line: 30, Object: "s.rw"},
		{Op: "rlock", Goroutine: 6, File: "/src/a.go", Line: 40, Object: "s.rw", First: true},
	}
	want = []string{
		"in the recorded run goroutine 3's critical section on mu at a.go:5 and goroutine 4's at :9 ran before goroutine 5's at b.go:7; the witness runs goroutine 5's first, and nothing else orders them",
		"in the recorded run goroutine 3's read-locked section on s.rw at a.go:30 ran before goroutine 6's at :40; the witness runs goroutine 6's first, and nothing else orders them",
	}
	if got := ReorderedSentences(f, rel); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("reordered:\n got %q\nwant %q", got, want)
	}
}

// PrefixPhrase names the positions of maxPrefixStops goroutines at most
// and counts the others' events, harness goroutines apart.
func TestPrefixPhraseCapped(t *testing.T) {
	stops := func(n int) []Stop {
		var out []Stop
		for k := range n {
			out = append(out, Stop{Goroutine: 10 + k, File: "/src/pool.go", Line: 469, Left: 6})
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		stops []Stop
		want  string
	}{
		{"four", stops(4), "the recorded run before event 99, less goroutine 10's events from pool.go:469 on (6 events), goroutine 11's events from pool.go:469 on (6 events), goroutine 12's events from pool.go:469 on (6 events) and goroutine 13's events from pool.go:469 on (6 events)"},
		{"three hundred", append(stops(300), Stop{Goroutine: 2, Harness: true, Left: 8}), "the recorded run before event 99, less goroutine 10's events from pool.go:469 on (6 events), goroutine 11's events from pool.go:469 on (6 events), goroutine 12's events from pool.go:469 on (6 events), goroutine 13's events from pool.go:469 on (6 events), the later events of 296 more goroutines (1776 events) and 8 later events of a goroutine in the runtime or the test harness"},
	} {
		f := &Finding{PrefixEnd: 99, PrefixStops: tc.stops}
		if got := PrefixPhrase(f, filepath.Base); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
