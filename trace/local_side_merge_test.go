// This file tests mergeSide (local_side.go) on a side log of several
// blocks, against the merge worked out record by record: which records go
// into the table (their life shared, named by the scan's last events, or
// all), where, what the trace counts as left out, and the last events
// renumbered. lastRefs's order walks beside the log's blocks; a record
// named at a block's edge, or twice, must be found as the map found it.

package trace

import (
	"fmt"
	"testing"
)

func TestMergeSideBlocks(t *testing.T) {
	const n = 2*sideBlock + 300 // records: three blocks, the last part full
	const posEvery = 1000       // a table event after every posEvery records
	// Lives 1 to 5: 1 and 3 owned by one goroutine, 2 and 4 shared, 5
	// never observed (not owned: put back).
	owner := []uint32{0, 1, multiOwner, 2, multiOwner}
	lifeOf := func(i int) uint64 { return uint64(1 + i%5) }
	owned := func(i int) bool { l := lifeOf(i); return l < uint64(len(owner)) && owner[l] != multiOwner }
	// Records the scan's last events name: owned ones at the blocks'
	// edges, one named twice, the first and the last, a shared one.
	named := []int{0, sideBlock - 1, sideBlock + 1, 2*sideBlock - 2, 2 * sideBlock, sideBlock + 1, n - 4, sideBlock}
	cases := []struct {
		name  string
		all   bool
		named []int
	}{
		{"named records", false, named},
		{"none named", false, nil},
		{"all", true, named},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(Header{})
			g1 := b.Goroutine(0, 0)
			b.Goroutine(g1, 0)
			l, s := newSideLog(), newLocalScan(b.Stacks(), "")
			s.lifeOwner = append([]uint32(nil), owner...)
			table := 0
			var want []Event // the table after the merge
			wantLocal := make([]int, 3)
			recAt := map[int]int{} // record -> its index in want
			tableAt := map[int]int{}
			ref := map[int]bool{}
			for _, i := range tc.named {
				ref[i] = true
			}
			addTable := func() {
				e := Event{Op: OpLock, Addr: uint64(table + 1), G: 1}
				b.Add(e)
				tableAt[table] = len(want)
				want = append(want, e)
				table++
			}
			for i := range n {
				for table < i/posEvery {
					addTable()
				}
				life := lifeOf(i)
				op := OpRead
				if i%3 == 0 {
					op = OpWrite
				}
				e := Event{Op: op, Addr: LifeAddr(life, uint64(i%7)), Size: 1 + uint32(i%4), Obj: lifeObj | ObjID(life-1), Stack: StackID(1 + i%11), G: GoID(1 + i%2)}
				if !l.hold(life, e.Stack) {
					t.Fatalf("the log does not hold record %d", i)
				}
				if got := l.add(&e, life, b.Len()); got != i {
					t.Fatalf("record %d added as %d", i, got)
				}
				if tc.all || ref[i] || !owned(i) {
					recAt[i] = len(want)
					want = append(want, e)
				} else {
					wantLocal[e.G]++
				}
			}
			addTable()
			s.last = []int32{-1, 2, -1}
			for _, i := range tc.named {
				s.last = append(s.last, int32(-2-i))
			}
			m, moved := mergeSide(b, l, s, tc.all)
			if want, got := len(want)-table, m; got != want {
				t.Errorf("put %d records in the table, want %d", got, want)
			}
			if d := eventsDiff(want, b.t.Events); d != "" {
				t.Fatal(d)
			}
			if got := b.t.Local[:3]; fmt.Sprint(got) != fmt.Sprint(wantLocal) {
				t.Errorf("left out %v, want %v", got, wantLocal)
			}
			for j := range table {
				if got := moved(j); got != tableAt[j] {
					t.Errorf("table event %d moved to %d, want %d", j, got, tableAt[j])
				}
			}
			wantLast := []int32{-1, int32(tableAt[2]), -1}
			for _, i := range tc.named {
				wantLast = append(wantLast, int32(recAt[i]))
			}
			if fmt.Sprint(s.last) != fmt.Sprint(wantLast) {
				t.Errorf("last events %v, want %v", s.last, wantLast)
			}
		})
	}
}

// eventsDiff says where got differs from want, or "".
func eventsDiff(want, got []Event) string {
	for i := range min(len(want), len(got)) {
		if want[i] != got[i] {
			return fmt.Sprintf("event %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d events, want %d", len(got), len(want))
	}
	return ""
}
