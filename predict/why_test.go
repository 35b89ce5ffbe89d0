package predict

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// chainText prints an Ordering as "lock L" or the rules of its chain with
// their events' lines (the trace text's line numbers are the events').
func chainText(t *trace.Trace, o Ordering) string {
	if o.Lock != 0 {
		return fmt.Sprintf("lock held at %d and %d", o.Held[0], o.Held[1])
	}
	return edgesText(o.Chain)
}

func edgesText(chain []OrderEdge) string {
	var parts []string
	for _, e := range chain {
		if len(e.Because) > 0 {
			parts = append(parts, fmt.Sprintf("%d-%s[%s]->%d", e.From, e.Rule, edgesText(e.Because), e.To))
			continue
		}
		parts = append(parts, fmt.Sprintf("%d-%s->%d", e.From, e.Rule, e.To))
	}
	return strings.Join(parts, " ")
}

func TestWhyShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		a, b       int
		want       string
	}{
		{"lock", "T1|acq(l)|1\nT1|w(x)|2\nT1|rel(l)|3\nT2|acq(l)|4\nT2|r(x)|5\nT2|rel(l)|6", 1, 4, "lock held at 0 and 3"},
		{"signal", "T1|w(x)|1\nT1|sig(s)|2\nT2|wait(s)|3\nT2|r(x)|4", 0, 3, "0-program order->1 1-sync->2 2-program order->3"},
		{"fork", "T1|w(x)|1\nT1|fork(T2)|2\nT2|r(x)|3", 0, 3, "0-program order->1 1-go->2 2-program order->3"}, // 2 is the start event
		{"join", "T2|w(x)|1\nT1|join(T2)|2\nT1|r(x)|3", 0, 2, "0-join->1 1-program order->2"},
		// The read of y keeps its writer, which comes after the write
		// of x.
		{"read-from", "T1|w(x)|1\nT1|w(y)|2\nT2|r(y)|3\nT2|w(x)|4", 0, 3, "0-program order->1 1-read-from->2 2-program order->3"},
		// The racing read's own writer orders nothing: it may see
		// another write.
		{"own read-from", "T1|w(x)|1\nT2|r(x)|2", 0, 1, ""},
		// Sections of one lock in the observed order, but nothing
		// forces that order: no reason.
		{"reorderable sections", "T1|w(x)|1\nT1|acq(l)|2\nT1|rel(l)|3\nT2|acq(l)|4\nT2|rel(l)|5\nT2|r(x)|6", 0, 5, ""},
		// The lock rule: T2's section reads what T1's wrote, so T1's
		// section comes first, and with it the write of x.
		{"lock rule", "T1|acq(l)|1\nT1|w(y)|2\nT1|w(x)|3\nT1|rel(l)|4\nT2|acq(l)|5\nT2|r(y)|6\nT2|rel(l)|7\nT2|r(x)|8", 2, 7,
			"2-program order->3 3-lock[1-read-from->5]->4 4-program order->7"},
		// Read locks do not exclude each other.
		{"read locks", "T1|racq(l)|1\nT1|w(x)|2\nT1|rrel(l)|3\nT2|racq(l)|4\nT2|w(x)|5\nT2|rrel(l)|6", 1, 4, ""},
		// The shortest chain in cross-goroutine rules: the direct
		// signal, not the detour through T3.
		{"shortest", "T1|w(x)|1\nT1|sig(a)|2\nT3|wait(a)|3\nT3|sig(b)|4\nT1|sig(c)|5\nT2|wait(b)|6\nT2|wait(c)|7\nT2|r(x)|8", 0, 7, "0-program order->4 4-sync->6 6-program order->7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := parseTrace(t, tc.text)
			ords, err := Why(context.Background(), tr, [][2]int{{tc.a, tc.b}}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := chainText(tr, ords[0]); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if ords[0].Ordered() != (tc.want != "") {
				t.Errorf("Ordered() = %v", ords[0].Ordered())
			}
			// The exhaustive oracle agrees: a pair with a reason never
			// races, and these pairs without one do.
			o := newOracle(tr, false)
			o.run()
			if races := o.races[[2]int{tc.a, tc.b}]; races == ords[0].Ordered() {
				t.Errorf("the oracle says races=%v, Why says ordered=%v", races, ords[0].Ordered())
			}
		})
	}
}

func TestWhyBadInput(t *testing.T) {
	tr := parseTrace(t, "T1|w(x)|1\nT1|w(x)|2\nT2|r(x)|3")
	for _, p := range [][2]int{{0, 1}, {0, 7}, {-1, 2}} {
		if _, err := Why(context.Background(), tr, [][2]int{p}, Options{}); err == nil {
			t.Errorf("pair %v: no error", p)
		}
	}
}

var whyVerbose = flag.Bool("why.v", false, "log the pairs Why gives no reason for")

// Every reason Why gives holds in every schedule: the exhaustive oracle
// (oracle_test.go) finds no race between a pair Why orders. It also
// measures how many of the pairs that cannot race Why explains.
func TestWhySoundAgainstOracle(t *testing.T) {
	n := *oracleN / 2
	if testing.Short() {
		n = 300
	}
	r := rand.New(rand.NewSource(*oracleSeed + 17))
	var ordered, explained, byLock, racy, tested int
	for k := 0; k < n; k++ {
		p := genParams{goroutines: 2 + r.Intn(3), vars: 1 + r.Intn(2), locks: r.Intn(3), sigs: r.Intn(2),
			ops: 2 + r.Intn(4), atomics: r.Intn(3) == 0, cut: 0.02}
		tr, text := genTrace(r, p)
		if len(tr.Events) > 16 {
			continue
		}
		tested++
		var irr func(*trace.Trace, int) bool
		var feeds func(*trace.Trace, int) ([]int, bool)
		if r.Intn(3) == 0 {
			salt, mod := r.Intn(1000), 2+r.Intn(2)
			irr = func(_ *trace.Trace, i int) bool { return (i*7+salt)%mod != 0 }
			feeds = randomFeeds(r, tr)
		}
		var pairs [][2]int
		for a := range tr.Events {
			for b := a + 1; b < len(tr.Events); b++ {
				ea, eb := &tr.Events[a], &tr.Events[b]
				if ea.G != eb.G && chkMem(ea) && chkMem(eb) && ea.Addr == eb.Addr && (chkWrites(ea.Op) || chkWrites(eb.Op)) && !(ea.Op.IsAtomic() && eb.Op.IsAtomic()) {
					pairs = append(pairs, [2]int{a, b})
				}
			}
		}
		ords, err := Why(context.Background(), tr, pairs, Options{ControlIrrelevant: irr, Feeds: feeds})
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		o := newOracle(tr, false)
		o.irr, o.feeds = irr, feeds
		o.run()
		for k, pr := range pairs {
			if o.races[pr] {
				racy++
				if ords[k].Ordered() {
					var rel []string
					if irr != nil {
						for i := range tr.Events {
							if tr.Events[i].Op == trace.OpRead && irr(tr, i) {
								ws, ok := feeds(tr, i)
								rel = append(rel, fmt.Sprintf("%d feeds %v %v", i, ws, ok))
							}
						}
					}
					t.Fatalf("pair %v races, but Why says %s\ncontrol-irrelevant reads: %v\n%s", pr, chainText(tr, ords[k]), rel, text)
				}
				continue
			}
			ordered++
			if !ords[k].Ordered() && *whyVerbose {
				t.Logf("no reason for %v:\n%s", pr, text)
			}
			if ords[k].Ordered() {
				explained++
				for _, e := range ords[k].Chain {
					if e.Rule == RuleLock {
						byLock++
						break
					}
				}
			}
		}
	}
	t.Logf("%d traces: %d racing pairs, none explained; %d pairs that cannot race, %d of them explained by a lock or a chain (%d chains use the lock rule)", tested, racy, ordered, explained, byLock)
}
