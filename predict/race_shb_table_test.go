package predict

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"unsafe"
)

// Every location's runs are left behind at its last access, its index
// keys with them, so that the table holds what the locations in use
// need: after a whole trace, nothing.
func TestSHBTableDrops(t *testing.T) {
	defer func(n int) { shbIndexAt = n }(shbIndexAt)
	for _, at := range []int{1, 2} {
		shbIndexAt = at
		for seed := int64(1); seed <= 4; seed++ {
			tab := shbTableOf(seed)
			peak := 0
			recordShared(tab, func(l, i int32) {
				peak = max(peak, len(tab.index))
				tab.retire(l, i)
			})
			held := 0
			for _, ps := range tab.poss {
				held += len(ps)
			}
			if tab.deadG != len(tab.groups) || tab.deadE != len(tab.ents) || len(tab.freePoss) != len(tab.poss) || held != 0 {
				t.Errorf("index at %d, seed %d: left behind %d of %d groups, %d of %d entries; %d of %d position lists free, %d positions held",
					at, seed, tab.deadG, len(tab.groups), tab.deadE, len(tab.ents), len(tab.freePoss), len(tab.poss), held)
			}
			if seed%2 == 0 && len(tab.poss) == 0 {
				t.Errorf("index at %d, seed %d: no entry held two accesses", at, seed)
			}
			if len(tab.index) != 0 || at == 1 && peak == 0 {
				t.Errorf("index at %d, seed %d: %d keys left in the index (%d at most)", at, seed, len(tab.index), peak)
			}
		}
	}
}

// A group holds one entry per access key (location, goroutine, site, kind,
// address and size), whether it finds an access's entry by scanning its
// fingerprints or by its index: the entries the table makes are the
// distinct keys, counted by brute force; and an entry is 16 bytes.
func TestSHBTableEntryPerKey(t *testing.T) {
	defer func(n int) { shbIndexAt = n }(shbIndexAt)
	if n := unsafe.Sizeof(shbEntry{}); n != 16 {
		t.Errorf("an entry is %d bytes, want 16", n)
	}
	type key struct {
		l, g, site    int32
		write, atomic bool
		addr          uint64
		size          uint32
	}
	for seed := int64(1); seed <= 4; seed++ {
		tr := synth(synthParams{goroutines: 4, locks: 2, vars: 3, events: 4000, racy: 0.1, seed: seed})
		c := newCTP(tr)
		m := newMemory(c)
		keys := map[key]bool{}
		for i := range c.ev {
			if e := &c.ev[i]; m.shared(int32(i)) {
				keys[key{m.loc[i], int32(e.G), c.site(int32(i)), isWrite(e.Op), e.Op.IsAtomic(), e.Addr, e.Size}] = true
			}
		}
		for _, at := range []int{1, 1 << 30} {
			shbIndexAt = at
			tab := newSHBTable(c, m)
			recordShared(tab, func(int32, int32) {})
			made := 0
			for l := range tab.loc {
				for _, gr := range tab.groupsOf(int32(l)) {
					made += int(gr.ents.n)
				}
			}
			if made != len(keys) || made == 0 {
				t.Errorf("seed %d, index at %d: %d entries made, want %d (the distinct keys)", seed, at, made, len(keys))
			}
		}
	}
}

// recordShared records every shared access of the table's trace in its
// goroutine's group, in trace order, calling after with the location and
// the access after each.
func recordShared(tab *shbTable, after func(l, i int32)) {
	c, m := tab.c, tab.m
	for i := range c.ev {
		if !m.shared(int32(i)) {
			continue
		}
		e, l := &c.ev[i], m.loc[i]
		own := -1
		for k, gr := range tab.groupsOf(l) {
			if gr.g == int32(e.G) {
				own = k
			}
		}
		tab.record(l, int32(e.G), own, int32(i), c.pos[i], c.site(int32(i)), isWrite(e.Op), e.Op.IsAtomic())
		after(l, int32(i))
	}
}

// A compacted pool has the room of the old one's length: its runs leave
// behind another quarter of it before the next compaction, so that it does
// not regrow (copying dead room and all) in between.
func TestSHBCompactKeepsRoom(t *testing.T) {
	defer func(n int) { shbCompactAt = n }(shbCompactAt)
	shbCompactAt = 1
	compacted := 0
	for seed := int64(1); seed <= 4; seed++ {
		tab := shbTableOf(seed)
		recordShared(tab, func(l, i int32) {
			tab.retire(l, i)
			ne, ng := len(tab.ents), len(tab.groups)
			dueE, _ := compactDue(ne, cap(tab.ents), tab.deadE)
			dueG, _ := compactDue(ng, cap(tab.groups), tab.deadG)
			due := dueE || dueG
			tab.compact()
			if !due {
				return
			}
			compacted++
			if tab.deadE == 0 && cap(tab.ents) < ne || tab.deadG == 0 && cap(tab.groups) < ng {
				t.Errorf("seed %d: compacted pools hold room for %d entries and %d groups, want at least %d and %d (the old lengths)",
					seed, cap(tab.ents), cap(tab.groups), ne, ng)
			}
		})
	}
	if compacted == 0 {
		t.Error("no pool was compacted")
	}
}

// TestSHBCompactDue: a pool is compacted when a quarter of it is dead
// room, or an eighth is and its capacity is nearly spent (the next moves
// would regrow it, copying the dead room), with room to grow then.
func TestSHBCompactDue(t *testing.T) {
	defer func(n int) { shbCompactAt = n }(shbCompactAt)
	shbCompactAt = 1000
	for _, tc := range []struct {
		name       string
		n, c, dead int
		due        bool
		room       int
	}{
		{"little dead room", 100_000, 100_000, 900, false, 0},
		{"a quarter dead", 100_000, 200_000, 25_001, true, 112_500},
		{"an eighth dead, room left", 100_000, 110_000, 12_501, false, 0},
		{"an eighth dead, full", 100_000, 105_000, 12_501, true, 125_000},
		{"less than an eighth dead, full", 100_000, 100_000, 12_000, false, 0},
	} {
		due, room := compactDue(tc.n, tc.c, tc.dead)
		if due != tc.due || due && room != tc.room {
			t.Errorf("%s: compactDue(%d, %d, %d) = %v, %d, want %v, %d", tc.name, tc.n, tc.c, tc.dead, due, room, tc.due, tc.room)
		}
		if due && room < tc.n {
			t.Errorf("%s: a new pool of room %d for a pool of %d", tc.name, room, tc.n)
		}
	}
}

// shbTableOf returns an empty table of a channel trace (odd seeds) or a
// lock and variable trace (even seeds), of seed.
func shbTableOf(seed int64) *shbTable {
	tr := synthChan(8, 3, 300, seed)
	if seed%2 == 0 {
		tr = synth(synthParams{goroutines: 6, locks: 2, vars: 8, events: 3000, racy: 0.05, seed: seed})
	}
	c := newCTP(tr)
	return newSHBTable(c, newMemory(c))
}

// A pool with the room compactDue asks for is compacted in place (the
// compacted pool is the same array), one without it into a new array of
// a quarter more than that room; and every location's groups, batches
// and bags and their entries (and the open bags' entries) are what they
// were. The SHB layer's pass runs over a pool of tasks, with open bags
// made at every chance; after each access, the pools are compacted at
// every chance (and only there).
func TestSHBCompactInPlace(t *testing.T) {
	defer func(n, open int) { shbCompactAt, shbOpenAt = n, open }(shbCompactAt, shbOpenAt)
	shbOpenAt = 0
	inPlace, batches := [2]int{}, 0
	for seed := int64(1); seed <= 3; seed++ {
		c := newCTP(poolTrace(poolParams{tasks: 400, live: 40, waitEvery: 50, racy: 0.05, seed: seed}))
		m := newMemory(c)
		f := newSHBFinds(c, m)
		tab := f.tab
		visit := func(i int32, cur vclock, d []int32) {
			shbCompactAt = 1 << 30
			f.visit(i, cur, d)
			shbCompactAt = 1
			dueE, roomE := compactDue(len(tab.ents), cap(tab.ents), tab.deadE)
			dueG, roomG := compactDue(len(tab.groups), cap(tab.groups), tab.deadG)
			if !dueE && !dueG {
				return
			}
			before := shbContents(tab)
			ents, groups := unsafe.SliceData(tab.ents), unsafe.SliceData(tab.groups)
			keepE, keepG := dueE && cap(tab.ents) >= roomE, dueG && cap(tab.groups) >= roomG
			tab.compact()
			if keepE && unsafe.SliceData(tab.ents) != ents || keepG && unsafe.SliceData(tab.groups) != groups {
				t.Errorf("seed %d, access %d: a pool with the room was compacted into a new array (entries %v, groups %v)", seed, i, keepE, keepG)
			}
			if dueE && !keepE && cap(tab.ents) < roomE+roomE/4 || dueG && !keepG && cap(tab.groups) < roomG+roomG/4 {
				t.Errorf("seed %d, access %d: new pools of room %d entries and %d groups, want a quarter more than %d and %d",
					seed, i, cap(tab.ents), cap(tab.groups), roomE, roomG)
			}
			if keepE {
				inPlace[0]++
			}
			if keepG {
				inPlace[1]++
			}
			if after := shbContents(tab); !slices.Equal(before, after) {
				k := 0
				for k < min(len(before), len(after)) && before[k] == after[k] {
					k++
				}
				t.Fatalf("seed %d, access %d: the compaction changed the table's contents, from node %d of %d on: %v, want %v",
					seed, i, k, len(before), after[k:min(k+3, len(after))], before[k:min(k+3, len(before))])
			}
			for _, gr := range tab.groups {
				if gr.batch {
					batches++
				}
			}
		}
		mode := clockMode{locks: true, serial: true, rf: true, want: map[int32][]int32{}, visit: visit}
		if _, err := newClocks(context.Background(), c, m, mode); err != nil {
			t.Fatal(err)
		}
	}
	if inPlace[0] == 0 || inPlace[1] == 0 || batches == 0 {
		t.Errorf("compacted in place %d entry pools and %d group pools (%d batches and bags seen), want some of each", inPlace[0], inPlace[1], batches)
	}
}

// shbContents lists what the table holds, every node of every location
// (below a batch, its nodes) and then the open bags' groups, each with
// its entries, leaving out where runs are in their pools.
func shbContents(tab *shbTable) []string {
	var out []string
	group := func(depth int, gr shbGroup) {
		r := gr.ents
		gr.ents.off = 0
		out = append(out, fmt.Sprint(depth, gr))
		if !gr.batch {
			out = append(out, fmt.Sprint(tab.ents[r.off:r.off+r.n]))
		}
	}
	var walk func(depth int, r span)
	walk = func(depth int, r span) {
		for _, gr := range tab.groups[r.off : r.off+r.n] {
			group(depth, gr)
			if gr.batch {
				walk(depth+1, gr.ents)
			}
		}
	}
	for l := range tab.loc {
		out = append(out, fmt.Sprint("location ", l))
		walk(0, tab.loc[l])
	}
	for _, l := range slices.Sorted(maps.Keys(tab.opens)) {
		for _, b := range tab.opens[l] {
			out = append(out, fmt.Sprint("bag of ", l))
			for _, gr := range b.groups {
				group(0, gr)
			}
		}
	}
	return out
}
