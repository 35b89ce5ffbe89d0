// This file tests the history log's encoder (clock_rises.go's
// kpvLog.add): its bytes, its chunks and the sizes it reports are those
// of the plain encoding with binary.AppendUvarint it replaced, on which
// the journal's reads (clock_journal.go) and the history's budget (the
// bytes logged, clockMode.budget) rest.

package predict

import (
	"encoding/binary"
	"math/rand"
	"slices"
	"testing"
)

// refAdd is kpvLog.add as it was: the exact size counted first
// (groupSize, which decides on a new chunk the same way), then each
// uvarint appended; its size is the bytes appended.
func refAdd(l *kpvLog, pos int32, rs []centry) int {
	if len(rs) == 0 {
		return 0
	}
	sorted := true
	for j := 1; j < len(rs) && sorted; j++ {
		sorted = rs[j].g > rs[j-1].g
	}
	d := uint32(pos - l.last)
	hdr := uint32(len(rs)) << 1
	if sorted {
		hdr |= 1
	}
	if size := groupSize(d, hdr, rs, sorted); cap(l.cur)-len(l.cur) < size {
		if l.cur != nil {
			l.full = append(l.full, l.cur)
		}
		l.cur = make([]byte, 0, max(size, min(max(64, l.size/4), 1<<18)))
	}
	at := len(l.cur)
	b := binary.AppendUvarint(l.cur, uint64(d))
	b = binary.AppendUvarint(b, uint64(hdr))
	prev := int32(0)
	for _, r := range rs {
		k := r.g
		if sorted {
			k, prev = r.g-prev, r.g
		}
		b = binary.AppendUvarint(b, uint64(uint32(k)))
		b = binary.AppendUvarint(b, uint64(uint32(r.v)))
	}
	l.cur = b
	l.last = pos
	l.n += len(rs)
	l.size += len(b) - at
	return len(b) - at
}

// randomGroups returns n groups of rises like a pass's: most sorted (a
// join's), some not (several joins at one event, some of them in order
// but for a repeated component at the end), of every varint
// length, some of them long enough to start a chunk of their own.
func randomGroups(r *rand.Rand, n int) [][]centry {
	var gs [][]centry
	for range n {
		var rs []centry
		m := 1 + r.Intn(40)
		if r.Intn(20) == 0 {
			m = 1 + r.Intn(3000)
		}
		for range m {
			rs = append(rs, centry{r.Int31n(1 << uint(1+r.Intn(30))), r.Int31n(1 << uint(1+r.Intn(30)))})
		}
		if r.Intn(4) != 0 {
			slices.SortFunc(rs, func(a, b centry) int { return int(a.g - b.g) })
			rs = slices.CompactFunc(rs, func(a, b centry) bool { return a.g == b.g })
			if j := len(rs) - 1; j > 0 && r.Intn(8) == 0 {
				// In order but for a repeated component: not
				// increasing, coded as it is.
				rs[j].g = rs[j-1].g
			}
		}
		gs = append(gs, rs)
	}
	return gs
}

func TestKPVLogAddSameBytes(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for trial := range 40 {
		var got, want kpvLog
		pos := int32(0)
		for k, rs := range randomGroups(r, 400) {
			if k%50 != 49 { // an empty group now and then
				pos += r.Int31n(1 << uint(r.Intn(31-trial%8)))
			} else {
				rs = nil
			}
			if g, w := got.add(pos, rs), refAdd(&want, pos, rs); g != w {
				t.Fatalf("trial %d, group %d: add returned %d bytes, want %d", trial, k, g, w)
			}
		}
		if len(got.full) != len(want.full) || got.n != want.n || got.size != want.size || got.last != want.last {
			t.Fatalf("trial %d: %d full chunks, %d rises, %d bytes, last %d; want %d, %d, %d, %d",
				trial, len(got.full), got.n, got.size, got.last, len(want.full), want.n, want.size, want.last)
		}
		for c := range got.full {
			if !slices.Equal(got.full[c], want.full[c]) || cap(got.full[c]) != cap(want.full[c]) {
				t.Fatalf("trial %d: chunk %d differs", trial, c)
			}
		}
		if !slices.Equal(got.cur, want.cur) || cap(got.cur) != cap(want.cur) {
			t.Fatalf("trial %d: the last chunk differs", trial)
		}
	}
}

// BenchmarkKPVLogAdd logs groups shaped like the channel stress trace's
// (bench/RESULTS.md): a hundred-odd rises a group, sorted, over a
// thousand goroutines, values in the thousands.
func BenchmarkKPVLogAdd(b *testing.B) {
	r := rand.New(rand.NewSource(1))
	var gs [][]centry
	for range 1000 {
		var rs []centry
		for g := int32(0); g < 1113; g++ {
			if r.Intn(7) == 0 {
				rs = append(rs, centry{g, 1 + r.Int31n(5000)})
			}
		}
		gs = append(gs, rs)
	}
	n := 0
	for _, rs := range gs {
		n += len(rs)
	}
	for _, tc := range []struct {
		name string
		add  func(*kpvLog, int32, []centry) int
	}{{"add", (*kpvLog).add}, {"ref", refAdd}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				var l kpvLog
				for k, rs := range gs {
					tc.add(&l, int32(k+1), rs)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/rise")
		})
	}
}
