package check

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// TestRelevanceNext compares relevance.next, which looks through the
// trace's next events until it has looked through too many and makes the
// lists of every goroutine's events, with those lists, for every event of
// traces where goroutines interleave densely and one sparsely.
func TestRelevanceNext(t *testing.T) {
	for seed := range 6 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		b := trace.NewBuilder(trace.Header{Format: "seer"})
		ng := 2 + r.IntN(6)
		gs := []trace.GoID{b.Goroutine(0, 0)}
		for range ng - 1 {
			gs = append(gs, b.Goroutine(gs[0], 0))
		}
		x := b.Object(trace.ObjVar, 0x1000, 8, "")
		for range 5000 + r.IntN(5000) {
			// Goroutine 0 makes most events; the last one rarely.
			g := gs[r.IntN(len(gs)-1)]
			if r.IntN(200) == 0 {
				g = gs[len(gs)-1]
			}
			b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: 0x1000, Size: 8, Obj: x})
		}
		tr, err := b.Trace()
		if err != nil {
			t.Fatal(err)
		}
		byG := eventsByGoroutine(tr)
		rel := newRelevance(tr, nil)
		for i := range tr.Events {
			events := byG[tr.Events[i].G]
			k, _ := slices.BinarySearch(events, int32(i))
			rest := events[k+1:]
			want, wantEnded := rest[:min(len(rest), feedScan)], len(rest) <= feedScan
			var got []int32
			ended := rel.next(i, func(j int32) bool {
				got = append(got, j)
				return true
			})
			if !slices.Equal(got, want) || ended != wantEnded {
				t.Fatalf("seed %d, event %d: next = %v, %v; want %v, %v", seed, i, got, ended, want, wantEnded)
			}
			// Stopped after the first, it reports that it did not see all.
			if len(want) > 0 {
				got = got[:0]
				if rel.next(i, func(j int32) bool { got = append(got, j); return false }) || !slices.Equal(got, want[:1]) {
					t.Fatalf("seed %d, event %d: stopped next saw %v", seed, i, got)
				}
			}
		}
		if rel.byG == nil {
			t.Errorf("seed %d: next never made the lists", seed)
		}
	}
}

// TestRelevanceNextNear: when each question is answered by the
// goroutine's next event (a read whose value is stored at once), next
// never makes the lists of every goroutine's events.
func TestRelevanceNextNear(t *testing.T) {
	b := trace.NewBuilder(trace.Header{Format: "seer"})
	g1 := b.Goroutine(0, 0)
	g2 := b.Goroutine(g1, 0)
	x := b.Object(trace.ObjVar, 0x1000, 8, "")
	for k := range 10000 {
		g := []trace.GoID{g1, g2}[k/100%2] // bursts of 100
		b.Add(trace.Event{Op: trace.OpRead, G: g, Addr: 0x1000, Size: 8, Obj: x})
		b.Add(trace.Event{Op: trace.OpWrite, G: g, Addr: 0x1000, Size: 8, Obj: x})
	}
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	rel := newRelevance(tr, nil)
	for i := 0; i < len(tr.Events); i += 2 {
		var got int32 = -1
		rel.next(i, func(j int32) bool { got = j; return false })
		if got != int32(i+1) {
			t.Fatalf("event %d: next gave %d first, want %d", i, got, i+1)
		}
	}
	if rel.byG != nil {
		t.Errorf("next made the lists of every goroutine's events after looking through %d events", rel.scanned)
	}
}
