// This file implements the memory budget of the SHB pass (issue 31, item
// 2: a budget for every layer that keeps what SHB proves of the whole
// run). A synchronisation address's clock (clock_pass.go's syncVar) holds
// a base that, once its releaser's clock has moved on, nothing else holds:
// the channel stress test at 100,000 channels kept 814 MB of such bases,
// one per channel, each of a thousand goroutines. When the bases the
// arena holds after a sweep (clock_arena.go) pass clockMode.spill bytes,
// the clocks of the addresses idle longest are written to a temporary
// file, unlinked as soon as it is made (nothing is left behind, however
// seer stops, and predict starts no process: deps_test.go), and read back
// at the address's next use, until half the excess is written. A clock
// comes back with the same components, so the pass computes the same
// clocks (TestSpillSameSHB): what it loses is only the identity of the
// base, which joins use as a shortcut (clock_vc.go's dominates), never
// for their result. Only a pass that keeps no log spills (the journal
// tags a variable's clock by its place in a goroutine's log), and only a
// variable with no pending merges (their clocks are joined lazily).

package predict

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
)

// spillMin is the fewest entries worth writing out: a smaller clock costs
// less than its variable's bookkeeping.
var spillMin = 16

// spillEvery is how many events apart a pass under a budget looks at
// what it holds, besides at each sweep of its arena.
var spillEvery = 1 << 16

// spilled, for tests, counts the clocks written out since the process
// started.
var spilled int

// spillFile is where a pass writes the clocks it spills: each one's
// entries as uvarints (goroutine minus the previous one's, then value)
// in a region of the file whose size is a power of two; a region read
// back is free for the next clock of its size.
type spillFile struct {
	f    *os.File
	end  int64
	free map[int][]int64 // offsets of free regions, by size
	buf  []byte
}

// spillRef says where a variable's clock is while it is spilled: n bytes
// at off (n is 0 while it is in memory).
type spillRef struct {
	off int64
	n   int32
}

// regionSize is the size of the region that holds n bytes.
func regionSize(n int) int {
	s := 64
	for s < n {
		s <<= 1
	}
	return s
}

// open makes the file, unlinked at once, at the first clock written.
func (sf *spillFile) open() error {
	if sf.f != nil {
		return nil
	}
	f, err := os.CreateTemp("", "seer-spill-*")
	if err != nil {
		return err
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return err
	}
	sf.f, sf.free = f, make(map[int][]int64)
	return nil
}

// close closes and removes the file, if one was made.
func (sf *spillFile) close() {
	if sf == nil || sf.f == nil {
		return
	}
	sf.f.Close()
	sf.f = nil
}

// write writes clock c and returns where it is.
func (sf *spillFile) write(c vclock) (spillRef, error) {
	b := sf.buf[:0]
	prev := int32(0)
	c.each(func(g, v int32) {
		b = binary.AppendUvarint(b, uint64(g-prev))
		b = binary.AppendUvarint(b, uint64(v))
		prev = g
	})
	sf.buf = b
	return sf.writeBuf()
}

// writeEnts writes sorted entries ents and returns where they are.
func (sf *spillFile) writeEnts(ents []centry) (spillRef, error) {
	b := sf.buf[:0]
	prev := int32(0)
	for _, e := range ents {
		b = binary.AppendUvarint(b, uint64(e.g-prev))
		b = binary.AppendUvarint(b, uint64(e.v))
		prev = e.g
	}
	sf.buf = b
	return sf.writeBuf()
}

// writeBuf writes sf.buf and returns where it is.
func (sf *spillFile) writeBuf() (spillRef, error) {
	if err := sf.open(); err != nil {
		return spillRef{}, err
	}
	b := sf.buf
	size := regionSize(len(b))
	var off int64
	if l := sf.free[size]; len(l) > 0 {
		off, sf.free[size] = l[len(l)-1], l[:len(l)-1]
	} else {
		off, sf.end = sf.end, sf.end+int64(size)
	}
	if _, err := sf.f.WriteAt(b, off); err != nil {
		return spillRef{}, err
	}
	spilled++
	return spillRef{off: off, n: int32(len(b))}, nil
}

// read reads back the clock at r, as a base of its own, and frees its
// region.
func (sf *spillFile) read(r spillRef) (vclock, error) {
	ents, err := sf.readEnts(r)
	if err != nil || len(ents) == 0 {
		return vclock{}, err
	}
	return vclock{base: &frozen{ents: ents, og: -1}}, nil
}

// readEnts reads back the entries at r, in a list of their own, and
// frees its region.
func (sf *spillFile) readEnts(r spillRef) ([]centry, error) {
	b := slices.Grow(sf.buf[:0], int(r.n))[:r.n]
	sf.buf = b
	if _, err := sf.f.ReadAt(b, r.off); err != nil {
		return nil, err
	}
	size := regionSize(int(r.n))
	sf.free[size] = append(sf.free[size], r.off)
	var ents []centry
	g := int32(0)
	for len(b) > 0 {
		dg, k := binary.Uvarint(b)
		v, k2 := binary.Uvarint(b[k:])
		if k <= 0 || k2 <= 0 {
			return nil, fmt.Errorf("predict: a spilled clock at byte %d is corrupt", r.off)
		}
		b = b[k+k2:]
		g += int32(dg)
		ents = append(ents, centry{g, int32(v)})
	}
	return ents, nil
}

// baseBytes returns the bytes of the bases the arena holds, as of its
// last sweep.
func (a *baseArena) baseBytes() int64 {
	var n int64
	for _, f := range a.made {
		n += int64(cap(f.ents)) * 8
	}
	return n
}

// spillIdle, after a sweep, writes out the clocks of the variables idle
// longest while the arena's bases and the variables' deltas pass the
// pass's budget, then sweeps again so that the bases only they held are
// free.
func (ps *pass) spillIdle() error {
	if ps.sf == nil || ps.jr != nil {
		return nil
	}
	// An idle address's clock (s), or a write's snapshot (w, when s is
	// nil: clock_spill_snap.go), last used at event used.
	type idle struct {
		s       *syncVar
		w, used int32
		size    int
	}
	var cands []idle
	held := ps.ar.baseBytes()
	for _, s := range ps.vars {
		if s == nil {
			continue
		}
		held += int64(s.clk.over()) * 8
		if s.at.n == 0 && len(s.pend) == 0 && s.clk.size() >= spillMin {
			cands = append(cands, idle{s: s, used: s.used, size: s.clk.size()})
		}
	}
	// Snapshots share deltas (a goroutine's clock is snapshotted at each
	// of its writes until a join raises it) and middle layers (a delta
	// kept as one, clock_layer.go): each list counts once, its storage
	// freed only with its last holder.
	seen := make(map[*centry]bool)
	for w, clk := range ps.snap {
		if clk.over() < spillMin {
			continue
		}
		n := 0
		for _, l := range [2][]centry{clk.midEnts(), clk.delta} {
			if len(l) > 0 && !seen[&l[0]] {
				seen[&l[0]] = true
				n += len(l)
			}
		}
		held += int64(n) * 8
		cands = append(cands, idle{w: w, used: w, size: n})
	}
	over := held - ps.mode.spill
	if over <= 0 || len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b idle) int {
		if a.used != b.used {
			return int(a.used - b.used)
		}
		return int(a.w - b.w)
	})
	goal := over/2 + 1
	for _, x := range cands {
		if goal <= 0 {
			break
		}
		goal -= int64(x.size) * 8
		if x.s == nil {
			if err := ps.spillSnap(x.w); err != nil {
				return err
			}
			continue
		}
		r, err := ps.sf.write(x.s.clk)
		if err != nil {
			return err
		}
		x.s.clk, x.s.at = vclock{}, r
	}
	ps.sweep()
	return nil
}

// unspill reads back s's clock if it is spilled, and marks s used at
// event i.
func (ps *pass) unspill(s *syncVar, i int) error {
	s.used = int32(i)
	if s.at.n == 0 {
		return nil
	}
	clk, err := ps.sf.read(s.at)
	if err != nil {
		return err
	}
	s.clk, s.at = clk, spillRef{}
	return nil
}
