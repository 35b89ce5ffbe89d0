// This file implements the storage of clock histories (clock_pass.go): for every
// goroutine g and every goroutine k it ever knows of, the positions of g
// at which component k of g's clock rose, with the new values. A pass
// replays the trace with persistent clocks (clock_vc.go) and records, after
// each event, only the components that rose, as its joins report them
// (clock_vc.go's joinOwn: no whole clocks are compared again); the history
// is then indexed per (g, k). The log is varint-coded, the rises at one
// position in one group (about 3 bytes a rise rather than 12); indexed, a
// rise takes 4 bytes where its position and value fit 16 bits, and a
// goroutine keeps apart the few components whose rises do not. A pass
// that keeps only some states (clock_pass.go's want) compares the clocks it
// records, keeping a private copy of each delta.
//
// Storing each state of a clock instead, as persistent clocks would allow,
// costs a copy of the clock's changed part per state: when thousands of
// goroutines talk to all (a worker pool around an atomic counter), every
// join changes hundreds of components and makes a new base of thousands,
// and ten million events took gigabytes. Here a state costs what rose in
// it; a component is read in two binary searches, and a whole clock (for
// the causal cone) in one per component it holds.

package predict

import (
	"context"
	"slices"
)

// pv is one rise of a component: from position pos of its goroutine on,
// the component is v.
type pv struct{ pos, v int32 }

// kpv is a rise of component k, as logged during a pass.
type kpv struct{ k, pos, v int32 }

// riseLog is the indexed record of one pass: the clock history of every
// goroutine, as the rises of each component.
type riseLog struct {
	keys [][]int32 // per goroutine: the components it ever knows of, sorted
	// k16 holds instead of keys[g] the components of a pass over fewer
	// than 65,536 goroutines: where a clock rises once or twice per
	// component (issue 31's ring), keys weigh as much as the rises.
	k16 [][]uint16
	off [][]int32 // per goroutine: rises of keys[g][j] are ents[g][off[g][j]:off[g][j+1]]
	// o16 holds instead of off[g] the offsets of a goroutine with fewer
	// than 65,536 rises: where a clock rises once or twice per component
	// (issue 31's ring), offsets weigh as much as the rises. A goroutine
	// most of whose components rose once has neither, but multi[g]: the
	// rises of keys[g][j] start at j plus the rises beyond one of the
	// components before it (issue 31's pond, where a worker's clock
	// learns of each of thousands of goroutines once, of a few more often).
	o16 [][]uint16
	// multi holds, for such a goroutine, a pair per component that rose
	// more than once, in order: its index j in keys[g], and the rises
	// beyond one of the components up to and including it.
	multi [][]int32
	ents  [][]pv
	// p16 holds instead of ents[g] the rises of a goroutine whose
	// positions and values all fit in 16 bits, as pos<<16|v (4 bytes a
	// rise, not 8: thousands of goroutines that all talk to all make tens
	// of millions of rises, each of them short).
	p16 [][]uint32
	// wide holds the exceptions of a goroutine whose rises mostly fit
	// p16 but for a few components' (issue 31's pond, where a worker's
	// clock learns of thousands of goroutines once each, and of the few
	// long-lived ones' hundreds of thousands of events): p16[g] holds the
	// rises of the components that fit, wide[g] those of the rest (a
	// pointer: most goroutines have none).
	wide []*wideRises
	// ch, if not nil, are the pass's chains (clock_chain.go): its
	// components are chains, which get, each and cursor translate to
	// goroutines, and the cone's readers through them
	// (clock_chain_cone.go).
	ch *chainMap
}

// wideRises are the rises of a goroutine's components that do not fit
// p16, in order, and at a pair per such component: its index j in the
// goroutine's keys, and the rises of these components up to and
// including it.
type wideRises struct {
	at   []int32
	ents []pv
}

// narrowMax bounds the goroutines of a pass whose keys are k16, and the
// rises of a goroutine whose offsets are o16; tests set it to 0 to read
// the wide forms (offsets stored even for one rise a component, no
// goroutine's rises split between p16 and wide).
var narrowMax = 1 << 16

// packMax bounds the positions and values of the rises packed in p16:
// 1<<16, what 16 bits hold; tests lower it so that small traces have
// goroutines whose rises split between p16 and wide.
var packMax int32 = 1 << 16

// riseRecorder records a pass, to be indexed into a riseLog.
type riseRecorder struct {
	size int64    // bytes logged, of every goroutine
	log  []kpvLog // per goroutine: rises, in order of position
	last []vclock // per goroutine: the clock last recorded, its delta a copy
	buf  []centry // scratch
	// ar, if not nil, holds the index's rises and keys
	// (clock_rises_file.go) and, as each log's ar, the log's chunks
	// (clock_rises_log_file.go's useArena).
	ar *riseArena
}

// kpvLog is a goroutine's log of rises, append-only and read in order:
// the rises at one position as a group of uvarints (position since the
// previous group, number of rises times two plus one if the components
// are coded as differences, then component and value of each), usually
// 3 bytes a rise instead of 12, in chunks that are never copied (growing
// one slice by doubling would leave as much garbage as the log holds).
type kpvLog struct {
	full [][]byte
	cur  []byte
	last int32 // position of the last group
	n    int   // rises
	size int   // bytes
	// ar, if not nil, holds the chunks (clock_rises_log_file.go).
	ar *riseArena
}

// add logs rises rs at position pos, encoded in place at the end of the
// current chunk, and returns the bytes that took.
func (l *kpvLog) add(pos int32, rs []centry) int {
	if len(rs) == 0 {
		return 0
	}
	if at := len(l.cur); cap(l.cur)-at >= maxGroup(len(rs)) {
		// Room for the longest group of this many rises: no chunk to
		// decide on, and the group is written as sorted without a scan
		// first, again unsorted should a component not rise above the
		// one before (several joins at one event: rare).
		d := uint32(pos - l.last)
		b := l.cur[at:cap(l.cur)]
		size, sorted := putSorted(b, d, rs)
		if !sorted {
			size = putGroup(b, d, uint32(len(rs))<<1, rs, false)
		}
		l.cur = l.cur[:at+size]
		l.last = pos
		l.n += len(rs)
		l.size += size
		return size
	}
	// Components in increasing order (as a join reports them) are coded
	// as the difference from the previous one: thousands of goroutines
	// need two bytes each, and the gaps between the few that rise at
	// once one. The group's exact size, counted as the order is checked
	// (again for the rare group not in order), says whether it starts a
	// new chunk.
	d := uint32(pos - l.last)
	hdr := uint32(len(rs)) << 1
	size, sorted := sortedSize(d, rs)
	if sorted {
		hdr |= 1
	} else {
		size = groupSize(d, hdr, rs, false)
	}
	if room := cap(l.cur) - len(l.cur); room < size {
		if l.cur != nil {
			l.full = append(l.full, l.cur)
		}
		// Chunks grow with the log, by a quarter of it, up to 256 KiB
		// (or one group): the last one's room is what the log wastes
		// (thousands of goroutines' logs, each with its last chunk).
		l.cur = l.ar.logChunk(max(size, min(max(64, l.size/4), 1<<18)))
	}
	at := len(l.cur)
	size = putGroup(l.cur[at:cap(l.cur)], d, hdr, rs, sorted)
	l.cur = l.cur[:at+size]
	l.last = pos
	l.n += len(rs)
	l.size += size
	return size
}

// maxGroup bounds the bytes of a group of n rises: five a uvarint of 32
// bits, two a rise and two for position and header.
func maxGroup(n int) int { return 10 * (n + 1) }

// putSorted writes a group of the log at the start of b, which has room
// for its longest encoding (maxGroup), as putGroup does for sorted rises,
// and returns the bytes written; or reports that rs is not sorted (each
// component above the one before), having written part of it.
func putSorted(b []byte, d uint32, rs []centry) (int, bool) {
	i := putUv(b, 0, d)
	i = putUv(b, i, uint32(len(rs))<<1|1)
	prev := int32(0)
	for j, r := range rs {
		if r.g <= prev && j > 0 {
			return 0, false
		}
		i = putUv(b, i, uint32(r.g-prev))
		i = putUv(b, i, uint32(r.v))
		prev = r.g
	}
	return i, true
}

// sortedSize returns the bytes putGroup writes for a group of sorted
// rises rs (groupSize), or reports that rs is not sorted (each component
// above the one before).
func sortedSize(d uint32, rs []centry) (int, bool) {
	size := uvarintLen(d) + uvarintLen(uint32(len(rs))<<1|1)
	prev := int32(0)
	for j, r := range rs {
		if r.g <= prev && j > 0 {
			return 0, false
		}
		size += uvarintLen(uint32(r.g-prev)) + uvarintLen(uint32(r.v))
		prev = r.g
	}
	return size, true
}

// groupSize returns the bytes putGroup writes for a group.
func groupSize(d, hdr uint32, rs []centry, sorted bool) int {
	size := uvarintLen(d) + uvarintLen(hdr)
	prev := int32(0)
	for _, r := range rs {
		k := r.g
		if sorted {
			k, prev = r.g-prev, r.g
		}
		size += uvarintLen(uint32(k)) + uvarintLen(uint32(r.v))
	}
	return size
}

// putGroup writes a group of the log at the start of b, which has room
// for it: d, the position since the previous group, hdr, then
// component (or difference, if sorted) and value of each rise, each a
// uvarint as binary.AppendUvarint codes it. It returns the bytes written.
func putGroup(b []byte, d, hdr uint32, rs []centry, sorted bool) int {
	i := putUv(b, 0, d)
	i = putUv(b, i, hdr)
	prev := int32(0)
	for _, r := range rs {
		k := r.g
		if sorted {
			k, prev = r.g-prev, r.g
		}
		i = putUv(b, i, uint32(k))
		i = putUv(b, i, uint32(r.v))
	}
	return i
}

// putUv writes x as a uvarint at b[i:] and returns the index after it.
func putUv(b []byte, i int, x uint32) int {
	if x < 1<<14 { // one or two bytes, the usual: without the loop
		if x < 0x80 {
			b[i] = byte(x)
			return i + 1
		}
		b[i], b[i+1] = byte(x)|0x80, byte(x>>7)
		return i + 2
	}
	for x >= 0x80 {
		b[i] = byte(x) | 0x80
		x >>= 7
		i++
	}
	b[i] = byte(x)
	return i + 1
}

// uvAt decodes the uvarint at b[i:], returning it and the index after
// it: the one-byte ones inline.
func uvAt(b []byte, i int) (uint32, int) {
	if x := b[i]; x < 0x80 {
		return uint32(x), i + 1
	}
	return uvAtSlow(b, i)
}

func uvAtSlow(b []byte, i int) (uint32, int) {
	if i+1 < len(b) && b[i+1] < 0x80 {
		return uint32(b[i]&0x7f) | uint32(b[i+1])<<7, i + 2
	}
	return uvLong(b, i)
}

// uvLong decodes the uvarint at b[i:], of any length (at most 32 bits),
// returning it and the index after it: a loop without a call, which the
// compiler inlines.
func uvLong(b []byte, i int) (uint32, int) {
	x := uint32(0)
	for s := uint(0); ; s += 7 {
		c := b[i]
		i++
		x |= uint32(c&0x7f) << s
		if c < 0x80 {
			return x, i
		}
	}
}

// appendAll appends every rise to xs, in order.
func (l *kpvLog) appendAll(xs []kpv) []kpv {
	// The loop has no call (the rises are written by index, the long
	// numbers decoded inline), so that the compiler keeps its variables
	// in registers rather than storing them at every turn.
	at := len(xs)
	xs = slices.Grow(xs, l.n)[:at+l.n]
	out := xs[at:]
	pos, j := int32(0), 0
	for c := 0; c <= len(l.full); c++ {
		b := l.cur
		if c < len(l.full) {
			b = l.full[c]
		}
		for i := 0; i < len(b); {
			var d, hdr, k, v uint32
			d, i = uvAt(b, i)
			hdr, i = uvAt(b, i)
			pos += int32(d)
			// base is added to each component: the previous one if the
			// group's are coded as differences (add), else 0.
			base, sorted := uint32(0), hdr&1 != 0
			for n := hdr >> 1; n > 0; n-- {
				// uvAt, inline, and uvAtSlow's two-byte case too (a
				// component among a thousand goroutines takes two bytes;
				// uvAt with it is too long for the compiler to inline),
				// the longer ones by uvLong, inlined.
				if k = uint32(b[i]); k < 0x80 {
					i++
				} else if i+1 < len(b) && b[i+1] < 0x80 {
					k, i = k&0x7f|uint32(b[i+1])<<7, i+2
				} else {
					k, i = uvLong(b, i)
				}
				if v = uint32(b[i]); v < 0x80 {
					i++
				} else if i+1 < len(b) && b[i+1] < 0x80 {
					v, i = v&0x7f|uint32(b[i+1])<<7, i+2
				} else {
					v, i = uvLong(b, i)
				}
				k += base
				if sorted {
					base = k
				}
				out[j] = kpv{int32(k), pos, int32(v)}
				j++
			}
		}
	}
	return xs
}

func newRiseRecorder(ng int) *riseRecorder {
	return &riseRecorder{log: make([]kpvLog, ng), last: make([]vclock, ng)}
}

// record logs the components of cur, goroutine g's clock after its first
// pos events, that rose since the last record (clocks only grow).
func (l *riseRecorder) record(g, pos int32, cur vclock) {
	old := l.last[g]
	l.rises(g, pos, old, cur)
	// A copy of the delta, in the storage of the one it replaces (read
	// by now): the pass may update cur's delta in place. The middle
	// layer is never updated (clock_layer.go).
	l.last[g] = vclock{base: cur.base, mid: cur.mid, delta: append(old.delta[:0], cur.delta...)}
}

// logRises logs rises, the components of goroutine g's clock that rose
// at its position pos (as the pass's joins reported them).
// It returns the bytes that took.
func (l *riseRecorder) logRises(g, pos int32, rises []centry) int {
	n := l.log[g].add(pos, rises)
	l.size += int64(n)
	return n
}

// rises logs the components of cur that exceed old's.
func (l *riseRecorder) rises(g, pos int32, old, cur vclock) {
	var rs []centry
	if old.base == cur.base && old.mid == cur.mid {
		// The bases and layers agree: only delta entries can differ.
		rs = keepAbove(l.buf[:0], cur.delta, old.delta)
	} else {
		rs = risesOver(l.buf[:0], old, cur)
	}
	l.buf = rs
	l.size += int64(l.log[g].add(pos, rs))
}

// index builds the history, releasing the log: a counting sort of each
// goroutine's rises by component, stable in position. A goroutine's
// rises are stored in p16 where they fit. If acq is not nil, it also
// keeps there the rises at each release-acquire event (the log's group at
// its position), read from the log as it is released. It returns ctx's
// error if cancelled.
func (l *riseRecorder) index(ctx context.Context, acq *eventRises, c *ctp) (*riseLog, error) {
	ng := len(l.log)
	h := &riseLog{keys: make([][]int32, ng), k16: make([][]uint16, ng), off: make([][]int32, ng), o16: make([][]uint16, ng), multi: make([][]int32, ng), ents: make([][]pv, ng), p16: make([][]uint32, ng), wide: make([]*wideRises, ng)}
	cnt := make([]int32, ng)  // per component: rises, then next slot
	top := make([]int32, ng)  // per component: the largest position or value of its rises
	var xs []kpv              // a goroutine's rises, decoded once
	kbuf := make([]int32, ng) // a goroutine's keys, gathered (copied below, at their size)
	for g := range l.log {
		if g&stopEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		log := &l.log[g]
		if log.n == 0 {
			continue
		}
		xs = log.appendAll(xs[:0])
		l.ar.touched(log.size) // the log's pages read back
		if acq != nil {
			acq.fromLog(c, int32(g), xs)
		}
		nk, gtop := tally(xs, cnt, kbuf) // gtop: the largest position or value
		keys := kbuf[:nk]
		if gtop >= packMax {
			// Some rises do not fit p16: which components' (else top
			// stays 0: every component fits).
			for _, x := range xs {
				top[x.k] = max(top[x.k], x.pos, x.v)
			}
		}
		if 16*len(keys) > ng {
			// Dense: one scan of the counts beats sorting.
			keys = keys[:0]
			for k, n := range cnt {
				if n > 0 {
					keys = append(keys, int32(k))
				}
			}
		} else {
			slices.Sort(keys)
		}
		off := make([]int32, len(keys)+1)
		nw, cw := int32(0), 0 // rises and components that do not fit p16
		for j, k := range keys {
			off[j+1] = off[j] + cnt[k]
			if top[k] >= packMax {
				nw += cnt[k]
				cw++
			}
		}
		switch n := int32(log.n); {
		case gtop < packMax:
			for j, k := range keys {
				cnt[k] = off[j]
			}
			p16 := arenaSlice[uint32](l.ar, int(n))
			scatter16(xs, cnt, p16)
			h.p16[g] = p16
		case narrowMax > 0 && 4*(n-nw)+8*nw+8*int32(cw) < 8*n:
			// A few components do not fit: their rises go to wide,
			// the rest are packed (each list keeps its place in
			// either, which span's offsets less the other's rises
			// before it give).
			wideAt := make([]int32, 0, 2*cw)
			nn := int32(0) // narrow rises before keys[j]
			for j, k := range keys {
				c := off[j+1] - off[j]
				if top[k] >= packMax {
					cnt[k] = off[j] - nn
					wideAt = append(wideAt, int32(j), off[j+1]-nn)
				} else {
					cnt[k] = nn
					nn += c
				}
			}
			p16, wide := arenaSlice[uint32](l.ar, int(n-nw)), arenaSlice[pv](l.ar, int(nw))
			for _, x := range xs {
				if top[x.k] >= packMax {
					wide[cnt[x.k]] = pv{x.pos, x.v}
				} else {
					p16[cnt[x.k]] = uint32(x.pos)<<16 | uint32(x.v)
				}
				cnt[x.k]++
			}
			h.p16[g], h.wide[g] = p16, &wideRises{at: wideAt, ents: wide}
		default:
			for j, k := range keys {
				cnt[k] = off[j]
			}
			ents := arenaSlice[pv](l.ar, int(n))
			scatter(xs, cnt, ents)
			h.ents[g] = ents
		}
		for _, k := range keys {
			cnt[k] = 0
		}
		if gtop >= packMax {
			for _, k := range keys {
				top[k] = 0
			}
		}
		if ng <= narrowMax {
			k := arenaSlice[uint16](l.ar, len(keys))
			for j, x := range keys {
				k[j] = uint16(x)
			}
			h.k16[g] = k
		} else {
			h.keys[g] = arenaSlice[int32](l.ar, len(keys))
			copy(h.keys[g], keys)
		}
		nm := 0 // components that rose more than once
		for j := range keys {
			if off[j+1]-off[j] > 1 {
				nm++
			}
		}
		if narrowMax > 0 && 4*nm < len(keys) {
			// Mostly one rise a component: the offsets follow from the
			// keys' indexes and the few exceptions (span), which weigh
			// less than offsets that weigh as much as the rises.
			var m []int32
			if nm > 0 {
				m = make([]int32, 0, 2*nm)
			}
			for j := range keys {
				if off[j+1]-off[j] > 1 {
					m = append(m, int32(j), off[j+1]-int32(j)-1)
				}
			}
			h.multi[g] = m
		} else if log.n < narrowMax {
			o := make([]uint16, len(off))
			for j, x := range off {
				o[j] = uint16(x)
			}
			h.o16[g] = o
		} else {
			h.off[g] = off
		}
		l.log[g] = kpvLog{}
	}
	l.last = nil
	return h, nil
}

// tally counts xs, a goroutine's rises, by component into cnt (zero at
// their components before), writes those components to keys in order of
// their first rise (room for every component: written by index, the
// loop has no call), and returns how many and the largest position or
// value of the rises. It and the scatters are kept out of index, whose many
// variables left the loops' in memory when they were inlined there.
//
//go:noinline
func tally(xs []kpv, cnt, keys []int32) (int, int32) {
	nk, top := 0, int32(0)
	for _, x := range xs {
		if cnt[x.k] == 0 {
			keys[nk] = x.k
			nk++
		}
		cnt[x.k]++
		top = max(top, x.pos, x.v)
	}
	return nk, top
}

// scatter16 writes xs's rises packed to p16, each at the slot cnt holds
// for its component, moving the slot on: the counting sort's last pass.
//
//go:noinline
func scatter16(xs []kpv, cnt []int32, p16 []uint32) {
	for _, x := range xs {
		p16[cnt[x.k]] = uint32(x.pos)<<16 | uint32(x.v)
		cnt[x.k]++
	}
}

// scatter is scatter16 for rises that are not packed.
//
//go:noinline
func scatter(xs []kpv, cnt []int32, ents []pv) {
	for _, x := range xs {
		c := cnt[x.k]
		ents[c] = pv{x.pos, x.v}
		cnt[x.k] = c + 1
	}
}

// riseList is a view of one component's rises in a goroutine's clock,
// in order of position (and so of value: a component only rises): ents,
// or for a packed goroutine p16, read in place.
type riseList struct {
	ents []pv
	p16  []uint32
}

// len returns the number of rises.
func (r riseList) len() int {
	if r.p16 != nil {
		return len(r.p16)
	}
	return len(r.ents)
}

// at returns the q-th rise.
func (r riseList) at(q int) pv {
	if r.p16 != nil {
		return pv{int32(r.p16[q] >> 16), int32(r.p16[q] & 0xffff)}
	}
	return r.ents[q]
}

// last returns the value of the last rise, the largest (0 if none).
func (r riseList) last() int32 {
	if r.p16 != nil {
		return int32(r.p16[len(r.p16)-1] & 0xffff)
	}
	if len(r.ents) == 0 {
		return 0
	}
	return r.ents[len(r.ents)-1].v
}

// valueAt returns the component's value at position p: the value of the
// last rise at or before p (0 if none).
func (r riseList) valueAt(p int32) int32 {
	if r.p16 != nil {
		return valueAt16(r.p16, p)
	}
	return valueAt(r.ents, p)
}

// firstAbove returns the position of the first rise above v, or -1: the
// first position of the goroutine whose clock knows more than v.
func (r riseList) firstAbove(v int32) int32 {
	if r.p16 == nil {
		return firstAboveIn(r.ents, v)
	}
	if v >= 1<<16-1 {
		return -1
	}
	// Values grow with positions: the first entry whose value exceeds v.
	j, _ := slices.BinarySearchFunc(r.p16, v, func(x uint32, v int32) int {
		if int32(x&0xffff) <= v {
			return -1
		}
		return 1
	})
	if j == len(r.p16) {
		return -1
	}
	return int32(r.p16[j] >> 16)
}

// keyList is a goroutine's keys (riseLog.keys or k16).
type keyList struct {
	k32 []int32
	k16 []uint16
}

// keysOf returns goroutine g's keys.
func (h *riseLog) keysOf(g int32) keyList { return keyList{h.keys[g], h.k16[g]} }

func (ks keyList) len() int { return len(ks.k32) + len(ks.k16) }

// at returns the j-th key.
func (ks keyList) at(j int) int32 {
	if ks.k16 != nil {
		return int32(ks.k16[j])
	}
	return ks.k32[j]
}

// find returns the index of key k, if it is one.
func (ks keyList) find(k int32) (int, bool) {
	if ks.k16 != nil {
		if k < 0 || k >= 1<<16 {
			return 0, false
		}
		return slices.BinarySearch(ks.k16, uint16(k))
	}
	return slices.BinarySearch(ks.k32, k)
}

// rises returns how many events of goroutine k goroutine g's clock
// knows, by position of g (translated from chains: clock_chain_cone.go).
func (h *riseLog) rises(g, k int32) knowsList { return h.knowsRises(g, k) }

// componentRises is rises for a history with chains too.
func (h *riseLog) componentRises(g, k int32) riseList {
	j, ok := h.keysOf(g).find(k)
	if !ok {
		return riseList{}
	}
	return h.list(g, j)
}

// span returns where the rises of component keys[g][j] are, in ents[g]
// or p16[g].
func (h *riseLog) span(g int32, j int) (lo, hi int32) {
	if o := h.o16[g]; o != nil {
		return int32(o[j]), int32(o[j+1])
	}
	if o := h.off[g]; o != nil {
		return o[j], o[j+1]
	}
	// Mostly one rise a component: t is the number of components before
	// j that rose more than once, found by binary search in multi.
	m := h.multi[g]
	t, before := pairsBefore(m, j) // before: rises beyond one before j
	lo = int32(j) + before
	hi = lo + 1
	if 2*t < len(m) && int(m[2*t]) == j {
		hi = int32(j) + 1 + m[2*t+1]
	}
	return lo, hi
}

// eachList calls f with the rises of every component keys[g][j] of a
// goroutine whose history is split (wide[g] not nil), in order: each
// span starts where the last one ended and the places in multi and
// wide.at move forward, so that a whole clock costs no search.
func (h *riseLog) eachList(g int32, f func(j int, r riseList)) {
	p16, w := h.p16[g], h.wide[g]
	o16, off, m := h.o16[g], h.off[g], h.multi[g]
	tm, tw := 0, 0                   // the next pairs of multi and w.at
	lo, before := int32(0), int32(0) // keys[j]'s rises start at lo of all, after before wide ones
	for j := range h.keysOf(g).len() {
		var hi int32
		switch {
		case o16 != nil:
			hi = int32(o16[j+1])
		case off != nil:
			hi = off[j+1]
		default:
			hi = lo + 1
			if 2*tm < len(m) && int(m[2*tm]) == j {
				hi = int32(j) + 1 + m[2*tm+1]
				tm++
			}
		}
		if 2*tw < len(w.at) && int(w.at[2*tw]) == j {
			f(j, riseList{ents: w.ents[before : before+hi-lo]})
			before = w.at[2*tw+1]
			tw++
		} else {
			f(j, riseList{p16: p16[lo-before : hi-before]})
		}
		lo = hi
	}
}

// pairsBefore returns, of the pairs (index, running total) in m, sorted
// by index (riseLog.multi, wideRises.at), how many have an index below j,
// t, found by binary search, and the total of the last of them (0 if none).
func pairsBefore(m []int32, j int) (t int, total int32) {
	n := len(m) / 2
	for t < n {
		mid := int(uint(t+n) >> 1)
		if int(m[2*mid]) < j {
			t = mid + 1
		} else {
			n = mid
		}
	}
	if t > 0 {
		total = m[2*t-1]
	}
	return t, total
}

// list returns the rises of component keys[g][j].
func (h *riseLog) list(g int32, j int) riseList {
	lo, hi := h.span(g, j)
	if p := h.p16[g]; p != nil {
		if w := h.wide[g]; w != nil {
			return w.mixed(j, lo, hi, p)
		}
		return riseList{p16: p[lo:hi]}
	}
	return riseList{ents: h.ents[g][lo:hi]}
}

// mixed returns the rises of the goroutine's component keys[j], at
// [lo, hi) of all its rises, which are p16's and w's: a wide component's
// start in w.ents is the wide rises before it, a packed one's in p16 its
// start less them.
func (w *wideRises) mixed(j int, lo, hi int32, p16 []uint32) riseList {
	wideAt := w.at
	t, before := pairsBefore(wideAt, j) // before: wide rises before j
	if 2*t < len(wideAt) && int(wideAt[2*t]) == j {
		return riseList{ents: w.ents[before : before+hi-lo]}
	}
	return riseList{p16: p16[lo-before : hi-before]}
}

// valueAt16 is valueAt for packed rises.
func valueAt16(rs []uint32, p int32) int32 {
	if p >= 1<<16-1 {
		if len(rs) == 0 {
			return 0
		}
		return int32(rs[len(rs)-1] & 0xffff)
	}
	if p < 0 {
		return 0
	}
	if len(rs) <= 8 {
		v := int32(0)
		for _, x := range rs {
			if int32(x>>16) > p {
				break
			}
			v = int32(x & 0xffff)
		}
		return v
	}
	// The first rise after p is the first entry >= (p+1)<<16.
	j, _ := slices.BinarySearch(rs, uint32(p+1)<<16)
	if j == 0 {
		return 0
	}
	return int32(rs[j-1] & 0xffff)
}

// valueAt returns the last value of rs at or before position p (0 if
// none). Most lists are short (a component rises a few times in a
// goroutine's clock): those are scanned, the rest searched.
func valueAt(rs []pv, p int32) int32 {
	if len(rs) <= 8 {
		v := int32(0)
		for _, r := range rs {
			if r.pos > p {
				break
			}
			v = r.v
		}
		return v
	}
	lo, hi := 0, len(rs)
	for lo < hi { // first rise after p
		m := int(uint(lo+hi) >> 1)
		if rs[m].pos <= p {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return 0
	}
	return rs[lo-1].v
}

// size returns how many components goroutine g's clock ever has.
func (h *riseLog) size(g int32) int { return h.keysOf(g).len() }

// get returns how many events of goroutine k goroutine g's clock knows
// after its first p events: its component k, or with chains, that of k's
// chain, translated.
func (h *riseLog) get(g, p, k int32) int32 {
	if ch := h.ch; ch != nil {
		return ch.count(ch.value(g, p, k, h.component(g, p, ch.of[k])), k)
	}
	return h.component(g, p, k)
}

// component returns component k of goroutine g's clock after its first
// p events.
func (h *riseLog) component(g, p, k int32) int32 {
	j, ok := h.keysOf(g).find(k)
	if !ok {
		return 0
	}
	return h.list(g, j).valueAt(p)
}

// each calls f for every goroutine k of which goroutine g's clock after
// its first p events knows v > 0 events, in goroutine order without
// chains; with chains, for every goroutine but g, a chain's in its order.
func (h *riseLog) each(g, p int32, f func(k, v int32)) {
	ch := h.ch
	if ch == nil {
		h.eachComponent(g, p, f)
		return
	}
	own := false
	h.eachComponent(g, p, func(x, v int32) {
		if x == ch.of[g] {
			own, v = true, ch.value(g, p, g, v)
		}
		ch.eachOf(x, v, g, f)
	})
	if x := ch.of[g]; !own && x != g {
		ch.eachOf(x, ch.value(g, p, g, 0), g, f)
	}
}

// eachComponent calls f for every non-zero component of goroutine g's
// clock after its first p events, in order.
func (h *riseLog) eachComponent(g, p int32, f func(k, v int32)) {
	p16, ks := h.p16[g], h.keysOf(g)
	if h.wide[g] != nil {
		h.eachList(g, func(j int, r riseList) {
			if v := r.valueAt(p); v > 0 {
				f(ks.at(j), v)
			}
		})
		return
	}
	for j := range ks.len() {
		k := ks.at(j)
		lo, hi := h.span(g, j)
		if v := h.valueIn(p16, g, lo, hi, p); v > 0 {
			f(k, v)
		}
	}
}

// valueIn is a component's value after the first p events of goroutine
// g, whose rises are [lo, hi) of its narrow (p16, if not nil) or wide list.
func (h *riseLog) valueIn(p16 []uint32, g, lo, hi, p int32) int32 {
	if p16 != nil {
		return valueAt16(p16[lo:hi], p)
	}
	return valueAt(h.ents[g][lo:hi], p)
}

// lastIn is the last rise's value of the component whose rises end at hi
// in goroutine g's narrow (p16, if not nil) or wide list: its largest.
func (h *riseLog) lastIn(p16 []uint32, g, hi int32) int32 {
	if p16 != nil {
		return int32(p16[hi-1] & 0xffff)
	}
	return h.ents[g][hi-1].v
}

// eachAbove calls f for every component k of goroutine g's clock after
// its first p events whose value exceeds floor[k], in goroutine order: what
// a cut (solve_plan.go's closeInto) does not hold yet. A component's last rise
// is its largest value, so one whose last rise is at most floor[k] is
// passed over without a search: as a closure's cut grows, most of a large
// clock is below it, and a step costs a load per component rather than a
// binary search.
func (h *riseLog) eachAbove(g, p int32, floor []int32, f func(k, v int32)) {
	if h.chained() {
		h.eachAboveChains(g, p, floor, f) // clock_chain_cone.go
		return
	}
	p16, ks := h.p16[g], h.keysOf(g)
	if h.wide[g] != nil {
		h.eachList(g, func(j int, r riseList) {
			k := ks.at(j)
			if r.last() > floor[k] {
				if v := r.valueAt(p); v > floor[k] {
					f(k, v)
				}
			}
		})
		return
	}
	for j := range ks.len() {
		k := ks.at(j)
		lo, hi := h.span(g, j)
		if h.lastIn(p16, g, hi) <= floor[k] {
			continue
		}
		if v := h.valueIn(p16, g, lo, hi, p); v > floor[k] {
			f(k, v)
		}
	}
}

// eachRisesMarked calls f with how many events of goroutine k goroutine
// g's clock knows, by position, for every k with mark[k] it ever knows
// of: in goroutine order without chains, with chains in a chain's
// (clock_chain_cone.go).
func (h *riseLog) eachRisesMarked(g int32, mark []bool, f func(k int32, rs knowsList)) {
	if h.chained() {
		h.eachKnowsMarked(g, mark, f)
		return
	}
	ks := h.keysOf(g)
	for j := range ks.len() {
		if k := ks.at(j); mark[k] {
			f(k, knowsList{r: h.list(g, j)})
		}
	}
}

// firstAboveIn is riseList.firstAbove for unpacked rises.
func firstAboveIn(rs []pv, v int32) int32 {
	j, _ := slices.BinarySearchFunc(rs, v, func(x pv, v int32) int {
		if x.v <= v {
			return -1
		}
		return 1
	})
	if j == len(rs) {
		return -1
	}
	return rs[j].pos
}

// riseCursor reads one component's rises at positions that never
// decrease, as a sweep over a goroutine's events asks them (candidates.go):
// each read moves forward from the last one, galloping, so that a sweep
// costs what it moves rather than a search of the whole list per event.
type riseCursor struct {
	r riseList
	j int // rises before j are at or before the last position read
	// With chains: g and k of cursor, translated (chainMap.count).
	ch   *chainMap
	g, k int32
}

// cursor returns a cursor over how many events of goroutine k goroutine
// g's clock knows (get, read in order).
func (h *riseLog) cursor(g, k int32) riseCursor {
	if h.ch != nil {
		return riseCursor{r: h.componentRises(g, h.ch.of[k]), ch: h.ch, g: g, k: k}
	}
	return riseCursor{r: h.componentRises(g, k)}
}

// valueAt returns the count of the cursor's goroutine known at position
// p, which is no less than the last position read.
func (c *riseCursor) valueAt(p int32) int32 {
	v := c.componentAt(p)
	if c.ch != nil {
		return c.ch.count(c.ch.value(c.g, p, c.k, v), c.k)
	}
	return v
}

// componentAt returns the component's value at position p, which is no
// less than the last position read.
func (c *riseCursor) componentAt(p int32) int32 {
	if c.r.p16 != nil {
		rs := c.r.p16
		if p >= 1<<16-1 {
			c.j = len(rs)
		} else {
			// Rises at or before p are those below (p+1)<<16.
			lim := uint32(p+1) << 16
			c.j = gallop(len(rs), c.j, func(i int) bool { return rs[i] < lim })
		}
		if c.j == 0 {
			return 0
		}
		return int32(rs[c.j-1] & 0xffff)
	}
	rs := c.r.ents
	c.j = gallop(len(rs), c.j, func(i int) bool { return rs[i].pos <= p })
	if c.j == 0 {
		return 0
	}
	return rs[c.j-1].v
}

// gallop returns the first index i >= j of [0, n) at which below is
// false, below being true on a prefix: by doubling steps from j, then a
// binary search.
func gallop(n, j int, below func(i int) bool) int {
	if j >= n || !below(j) {
		return j
	}
	lo, step := j+1, 1 // below holds before lo
	hi := j + step
	for hi < n && below(hi) {
		lo = hi + 1
		step <<= 1
		hi = j + step
	}
	hi = min(hi, n)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if below(m) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// chained reports whether the history's components are chains that some
// goroutine continued (clock_chain.go): then get, each and cursor
// translate them, and the readers of clock_chain_cone.go through those.
func (h *riseLog) chained() bool { return h.ch != nil && h.ch.handoffs > 0 }
