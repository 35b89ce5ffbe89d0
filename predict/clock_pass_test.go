// This file tests the record of rises at release-acquire events
// (clock_pass.go's eventRises): its two encodings, narrow and wide, and the rank
// by which an event finds its group.

package predict

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// Every group reads back as it was kept, whichever encoding it took: the
// narrow one holds goroutines and values below 1<<16 as two uint16s, and
// one entry at or above it makes the group wide.
func TestEventRisesRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		rs   []centry
	}{
		{"empty", nil},
		{"one small", []centry{{1, 1}}},
		{"varint boundary", []centry{{127, 128}, {128, 127}, {16383, 16384}}},
		{"narrow top", []centry{{1<<16 - 1, 1<<16 - 1}, {0, 0}}},
		{"wide goroutine", []centry{{1 << 16, 3}, {4, 5}}},
		{"wide value", []centry{{3, 1 << 16}, {4, 5}}},
		{"wide both", []centry{{1<<17 + 3, 1<<20 + 7}, {2, 1<<31 - 1}}},
	}
	r := rand.New(rand.NewSource(5))
	for k := 0; k < 50; k++ {
		var rs []centry
		top := []int32{1 << 8, 1 << 16, 1 << 17, 1 << 30}[r.Intn(4)]
		for n := r.Intn(40); n > 0; n-- {
			rs = append(rs, centry{r.Int31n(top), r.Int31n(top)})
		}
		cases = append(cases, struct {
			name string
			rs   []centry
		}{"random", rs})
	}
	// A trace with a release-acquire event (a relacq signal) per case,
	// and a plain access between them, which keeps nothing.
	var text string
	for range cases {
		text += "T1|relacq(S1)|1\nT1|r(y)|2\n"
	}
	tr, err := buildTrace(text)
	if err != nil {
		t.Fatal(err)
	}
	c := newCTP(tr)
	var evs []int32
	for i := range c.ev {
		if c.syncKind(i) == trace.SyncReleaseAcquire {
			evs = append(evs, int32(i))
		}
	}
	if len(evs) != len(cases) {
		t.Fatalf("%d release-acquire events, want %d", len(evs), len(cases))
	}
	r2 := newEventRises(c)
	for j, tc := range cases {
		r2.add(evs[j], tc.rs)
	}
	var buf []centry
	for j, tc := range cases {
		buf = r2.at(buf, evs[j])
		if !slices.Equal(buf, tc.rs) && !(len(buf) == 0 && len(tc.rs) == 0) {
			t.Errorf("%s: kept %v, read back %v", tc.name, tc.rs, buf)
		}
	}
	if got := r2.events(); !slices.Equal(got, evs) {
		t.Errorf("events() = %v, want %v", got, evs)
	}
}

// uvarintLen is the length binary.AppendUvarint writes: a group is
// encoded in place in the room it says it needs.
func TestUvarintLen(t *testing.T) {
	xs := []uint32{0, 1, 127, 128, 1<<14 - 1, 1 << 14, 1<<21 - 1, 1 << 21, 1<<28 - 1, 1 << 28, 1<<32 - 1}
	for b := range 32 { // every length in bits, at both ends
		xs = append(xs, 1<<b, 1<<(b+1)-1)
	}
	for _, x := range xs {
		if got, want := uvarintLen(x), len(binary.AppendUvarint(nil, uint64(x))); got != want {
			t.Errorf("uvarintLen(%d) = %d, want %d", x, got, want)
		}
	}
}

// A history's log (kpvLog) reads back every group as it was logged,
// whether its components were coded as differences (in increasing order)
// or as they are.
func TestKPVLogRoundTrip(t *testing.T) {
	groups := [][]centry{
		{{5, 1}},
		{{1, 2}, {200, 3}, {201, 1 << 20}, {1 << 20, 7}},         // increasing: differences
		{{300, 2}, {7, 9}, {301, 1}},                             // not increasing
		{{0, 1}, {0, 2}},                                         // a repeated component is not increasing
		{{127, 128}, {128, 127}, {16511, 16384}, {1<<31 - 1, 1}}, // varint boundaries
	}
	r := rand.New(rand.NewSource(31))
	for k := 0; k < 300; k++ {
		var rs []centry
		for n := 1 + r.Intn(30); n > 0; n-- {
			rs = append(rs, centry{r.Int31n(1 << uint(1+r.Intn(20))), 1 + r.Int31n(1<<uint(1+r.Intn(20)))})
		}
		if r.Intn(2) == 0 {
			slices.SortFunc(rs, func(a, b centry) int { return int(a.g - b.g) })
			rs = slices.CompactFunc(rs, func(a, b centry) bool { return a.g == b.g })
		}
		groups = append(groups, rs)
	}
	var l kpvLog
	var want []kpv
	pos := int32(0)
	for _, rs := range groups {
		pos += 1 + r.Int31n(300)
		l.add(pos, rs)
		for _, x := range rs {
			want = append(want, kpv{x.g, pos, x.v})
		}
	}
	if got := l.appendAll(nil); !slices.Equal(got, want) {
		for j := range min(len(got), len(want)) {
			if got[j] != want[j] {
				t.Fatalf("rise %d: read back %v, logged %v", j, got[j], want[j])
			}
		}
		t.Fatalf("read back %d rises, logged %d", len(got), len(want))
	}
}
