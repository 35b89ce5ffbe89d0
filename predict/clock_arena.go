// This file implements the arena that clock bases (clock_vc.go) are made in
// during one vector-clock pass (clock_pass.go). When thousands of goroutines meet
// at an atomic counter, every meeting joins two clocks of thousands of
// entries on unrelated bases and makes a new base: ten million events made
// two gigabytes of bases, nearly all dropped soon after, and the garbage
// collector let the heap grow to twice the live data for them. The pass
// knows every place a clock is held (its roots), so the arena sweeps
// between events: a base no root holds any more gives its storage to the
// next base. Another base may still name it as prev (dominates compares
// only identities), so a swept base keeps its identity and loses only its
// entries, which nothing reads again.

package predict

import "math/bits"

// sweepEntries is how many entries the arena hands out between sweeps (8
// MB): a sweep costs a look at every root, a few per goroutine.
var sweepEntries = 1 << 20

// baseArena is the storage of the bases one pass makes.
type baseArena struct {
	made  []*frozen          // bases made and held at the last sweep
	free  map[int][][]centry // storage of swept bases, by capacity (a size class)
	fresh int                // entries handed out since the last sweep
	epoch uint32
	// asked: the entries asked for since the last sweep, by size class.
	asked map[int]int
}

// classBits is the number of size classes an octave of sizes has, as a
// power of two: 4, so that storage of a class wastes at most a sixteenth
// of it. Bases are made exactly as long as their entries (flattenDense
// counts them), and with a quarter an octave (the classes of 2^k·(4+j)/4)
// much of the pass's base storage was slack on a channel stress trace
// (bench/RESULTS.md, "the bases' size classes").
const classBits = 4

// sizeClass rounds n up to a capacity of the form 2^k·(16+j)/16, j < 16
// (n itself up to 32): storage of one class serves any base of that
// class.
func sizeClass(n int) int {
	if n <= 2<<classBits {
		return max(n, 1)
	}
	k := bits.Len(uint(n-1)) - classBits - 1 // n-1 < 2^(classBits+1)·2^k
	q := (n - 1) >> k                        // in 16..31
	return (q + 1) << k
}

// alloc returns an empty entry list with room for n entries, the storage
// of a swept base of n's size class, or else of the class above it (at
// most an eighth of slack then), if there is one.
func (a *baseArena) alloc(n int) []centry {
	n = sizeClass(n)
	a.fresh += n
	if a.asked == nil {
		a.asked = make(map[int]int)
	}
	a.asked[n] += n
	for _, c := range [2]int{n, sizeClass(n + 1)} {
		if l := a.free[c]; len(l) > 0 {
			b := l[len(l)-1]
			a.free[c] = l[:len(l)-1]
			return b
		}
	}
	return make([]centry, 0, n)
}

// add registers a base made from alloc's storage.
func (a *baseArena) add(f *frozen) { a.made = append(a.made, f) }

// due reports whether a sweep is due.
func (a *baseArena) due() bool { return a.fresh >= sweepEntries }

// sweep takes back the storage of every base made here that roots does
// not hold: roots must call hold for the base of every clock the pass
// keeps anywhere.
func (a *baseArena) sweep(roots func(hold func(*frozen))) {
	a.epoch++
	roots(func(f *frozen) {
		if f != nil {
			f.seen = a.epoch
		}
	})
	// What the last sweep freed and no base has used since is mostly of
	// sizes the pass has outgrown (clocks grow): it goes to the garbage
	// collector. But the sizes of full clocks are asked for in bursts,
	// and so as much storage of a class as was asked for since the last
	// sweep stays for the next (at most sweepEntries in all): on a
	// channel stress trace, storage of its largest class was dropped
	// while new storage of that class was made (bench/RESULTS.md, "the
	// arena's free storage").
	if a.free == nil {
		a.free = make(map[int][][]centry)
	}
	for c, l := range a.free {
		k := min(len(l), a.asked[c]/c)
		clear(l[k:])
		if k == 0 {
			delete(a.free, c)
		} else {
			a.free[c] = l[:k]
		}
	}
	clear(a.asked)
	keep := a.made[:0]
	for _, f := range a.made {
		if f.seen == a.epoch {
			keep = append(keep, f)
			continue
		}
		n := cap(f.ents)
		a.free[n] = append(a.free[n], f.ents[:0])
		f.ents, f.n = nil, 0 // a swept dense base reads as empty, not as n components of nothing
	}
	clear(a.made[len(keep):])
	a.made = keep
	a.fresh = 0
}
