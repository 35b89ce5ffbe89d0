// This file tests that the witness checker's shortcut (witness/check.go: walk X,
// the events the prefix leaves out, instead of replaying the prefix) is
// exact: on random traces with accesses of mixed sizes and offsets, and
// random schedules in Finding's compact form (valid and invalid alike),
// it must agree with a naive checker that expands the schedule and
// replays it byte by byte from the start, as the maximal causal model's
// Theorem 2 reads.

package predict

import (
	"flag"
	"fmt"
	"math/rand"
	"testing"

	"github.com/seer-tools/seer/predict/witness"
	"github.com/seer-tools/seer/trace"
)

// naiveFeasible replays schedule w from the start.
func naiveFeasible(t *trace.Trace, w []int, relaxed bitset) error {
	n, ng := len(t.Events), len(t.Goroutines)
	posOf := make([]int, n)
	goOf := map[int]int{}
	joinN := map[int]int{}
	obsW := make([]map[uint64]int, n)
	obsS := map[int]syncState{}
	count := make([]int, ng)
	last := map[uint64]int{}
	sst := map[uint64]*syncState{}
	for i := range t.Events {
		e := &t.Events[i]
		posOf[i] = count[e.G]
		count[e.G]++
		if e.Op == trace.OpGo && count[e.Peer] == 0 {
			if _, ok := goOf[int(e.Peer)]; !ok {
				goOf[int(e.Peer)] = i
			}
		}
		if e.Op == trace.OpJoin {
			joinN[i] = count[e.Peer]
		}
		if chkMem(e) {
			if chkReads(e.Op) {
				obsW[i] = map[uint64]int{}
				for a := e.Addr; a < e.End(); a++ {
					if x, ok := last[a]; ok {
						obsW[i][a] = x
					} else {
						obsW[i][a] = -1
					}
				}
			}
			if chkWrites(e.Op) {
				for a := e.Addr; a < e.End(); a++ {
					last[a] = i
				}
			}
		}
		if chkSync(e) {
			s := sst[e.Addr]
			if s == nil {
				s = &syncState{rel: -1}
				sst[e.Addr] = s
			}
			if e.Sync.Acquires() {
				obsS[i] = syncState{rel: s.rel, merges: append([]int(nil), s.merges...)}
			}
			s.apply(e, i)
		}
	}
	lastOf := map[trace.GoID]int{}
	for _, i := range w {
		lastOf[t.Events[i].G] = i
	}
	next := make([]int, ng)
	done := map[int]bool{}
	mem := map[uint64]int{}
	syn := map[uint64]*syncState{}
	locks := map[trace.ObjID]*lockState{}
	for step, i := range w {
		e := &t.Events[i]
		g := e.G
		if done[i] || posOf[i] != next[g] {
			return fmt.Errorf("step %d: event %d is not next", step, i)
		}
		if j, ok := goOf[int(g)]; ok && next[g] == 0 && !done[j] {
			return fmt.Errorf("step %d: start before go", step)
		}
		next[g]++
		if chkMem(e) && chkReads(e.Op) && lastOf[g] != i && !(e.Op == trace.OpRead && relaxed.has(int32(i))) {
			for a := e.Addr; a < e.End(); a++ {
				x, ok := mem[a]
				if !ok {
					x = -1
				}
				if x != obsW[i][a] {
					return fmt.Errorf("step %d: read %d sees %d at %#x, observed %d", step, i, x, a, obsW[i][a])
				}
			}
		}
		if chkMem(e) && chkWrites(e.Op) {
			for a := e.Addr; a < e.End(); a++ {
				mem[a] = i
			}
		}
		if e.Op.IsLock() {
			l := locks[e.Obj]
			if l == nil {
				l = &lockState{}
				locks[e.Obj] = l
			}
			if !l.step(e.Op) {
				return fmt.Errorf("step %d: lock %d: %s", step, i, lockError(e.Op))
			}
		}
		if chkSync(e) {
			s := syn[e.Addr]
			if s == nil {
				s = &syncState{rel: -1}
				syn[e.Addr] = s
			}
			if e.Sync.Acquires() && !s.equal(obsS[i]) {
				return fmt.Errorf("step %d: acquire %d", step, i)
			}
			s.apply(e, i)
		}
		if e.Op == trace.OpJoin && next[e.Peer] < joinN[i] {
			return fmt.Errorf("step %d: early join %d", step, i)
		}
		done[i] = true
	}
	return nil
}

// mixSizes gives the accesses of t random offsets and sizes within their
// variable's 32 bytes (and now and then a large access over several
// variables and pages), so that accesses overlap partially.
func mixSizes(r *rand.Rand, t *trace.Trace) {
	for i := range t.Events {
		e := &t.Events[i]
		if !e.Op.IsAccess() || r.Intn(3) == 0 {
			continue
		}
		base := 0x100000 + (e.Addr-0x1000)*4 // 32 bytes per variable
		switch x := r.Intn(10); {
		case x == 0:
			e.Addr, e.Size = 0x100000+uint64(r.Intn(40)), uint32(200+r.Intn(400))
		default:
			off := uint64(r.Intn(24))
			e.Addr, e.Size = base+off, uint32(1+r.Intn(int(32-off)))
		}
	}
}

var checkPropN = flag.Int("checkprop.n", 1500, "random traces in the checker property test")

func TestCheckerMatchesNaiveReplay(t *testing.T) {
	n := *checkPropN
	if testing.Short() {
		n = 200
	}
	r := rand.New(rand.NewSource(11))
	var valid, invalid int
	for it := 0; it < n; it++ {
		p := genParams{goroutines: 2 + r.Intn(4), vars: 1 + r.Intn(3), locks: r.Intn(3), sigs: r.Intn(3),
			ops: 3 + r.Intn(10), atomics: r.Intn(2) == 0, tx: r.Intn(3) == 0, cut: 0.01}
		tr, text := genTrace(r, p)
		if r.Intn(2) == 0 {
			mixSizes(r, tr)
		}
		ne, ng := len(tr.Events), len(tr.Goroutines)
		if ne == 0 {
			continue
		}
		loc, spans := trace.GroupAccesses(tr.Events)
		var relaxed bitset
		if r.Intn(3) == 0 {
			relaxed = newBitset(ne)
			for i := 0; i < ne; i++ {
				if r.Intn(3) == 0 {
					relaxed.set(int32(i))
				}
			}
		}
		k := witness.NewChecker(tr, loc, spans)
		k.Relax(relaxed.has)
		byG := make([][]int, ng)
		for i := range tr.Events {
			byG[tr.Events[i].G] = append(byG[tr.Events[i].G], i)
		}
		for trial := 0; trial < 12; trial++ {
			f := randomCompact(r, tr, byG)
			if f == nil {
				continue
			}
			got := k.Feasible(f.claim())
			want := naiveFeasible(tr, f.Schedule(tr), relaxed)
			if (got == nil) != (want == nil) {
				t.Fatalf("trace %d: prefix %d stops %v witness %v (schedule %v):\nchecker: %v\nnaive:   %v\n%s",
					it, f.Prefix, f.Stops, f.Witness, f.Schedule(tr), got, want, text)
			}
			if got == nil {
				valid++
			} else {
				invalid++
			}
		}
	}
	t.Logf("%d feasible and %d infeasible schedules agreed", valid, invalid)
}

// randomCompact returns a random schedule in compact form: a prefix cut
// per goroutine below a random Prefix (often the observed run's), then a
// window of the goroutines' next events, in observed order or shuffled.
func randomCompact(r *rand.Rand, t *trace.Trace, byG [][]int) *Finding {
	ne, ng := len(t.Events), len(byG)
	f := &Finding{Prefix: r.Intn(ne + 1)}
	if r.Intn(6) == 0 {
		f.Prefix = 0
	}
	b := make([]int, ng)
	for g := 1; g < ng; g++ {
		below := 0
		for below < len(byG[g]) && byG[g][below] < f.Prefix {
			below++
		}
		b[g] = below
		if r.Intn(3) == 0 {
			b[g] = r.Intn(below + 1)
		}
	}
	// The window: some goroutines run on from their cut.
	next := append([]int(nil), b...)
	var window []int
	for g := 1; g < ng; g++ {
		if r.Intn(2) == 0 {
			for m := r.Intn(4); m > 0 && next[g] < len(byG[g]); m-- {
				window = append(window, byG[g][next[g]])
				next[g]++
			}
		}
	}
	if len(window) == 0 {
		return nil
	}
	if r.Intn(2) == 0 {
		// Shuffle, keeping program order.
		var out []int
		pos := map[trace.GoID][]int{}
		for _, i := range window {
			pos[t.Events[i].G] = append(pos[t.Events[i].G], i)
		}
		for len(out) < len(window) {
			g := t.Events[window[r.Intn(len(window))]].G
			if len(pos[g]) > 0 {
				out = append(out, pos[g][0])
				pos[g] = pos[g][1:]
			}
		}
		window = out
	} else {
		sortInts(window)
	}
	f.Witness = window
	in := map[trace.GoID]bool{}
	for _, i := range window {
		in[t.Events[i].G] = true
	}
	for g := 1; g < ng; g++ {
		if !in[trace.GoID(g)] && b[g] < len(byG[g]) && byG[g][b[g]] < f.Prefix {
			f.Stops = append(f.Stops, byG[g][b[g]])
		}
	}
	if r.Intn(10) == 0 && len(f.Witness) > 1 { // a malformed window now and then
		f.Witness[0], f.Witness[len(f.Witness)-1] = f.Witness[len(f.Witness)-1], f.Witness[0]
	}
	return f
}

func sortInts(s []int) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
