// This file implements the side log: the plain accesses to heap lives
// that, when the converter makes them, one goroutine owns (touched alone,
// or was handed by go statements, local_handoff.go), kept out of the event
// table in a compact log, and made into table events, in trace order, at
// the end of the conversion only if their life became shared meanwhile
// (or the access is a goroutine's last event, or its last with a user
// frame, which compactLocal keeps whatever it is).
//
// compactLocal (local.go) leaves out, at the end, every access to a life
// whose owner the whole trace never took as shared but for those last
// events. So the events the log holds back are, at the end, either put
// into the table where they would have been (their life became shared,
// or they are last events), and the trace is the same, or left out, as
// compactLocal would have left them, and counted in Trace.Local alike.
// Before, each of them cost a 32-byte slot of a table that held, on
// stress-tls and syncmap, many times the events the trace keeps (the
// table grown and copied, its pages faulted in, every event asked again
// at the end): bench/RESULTS.md, "the conversion after the run on two
// cores" and "the side log: accesses of lives one goroutine owns kept
// out of the event table".
//
// A record of the log is 16 bytes and names no event index: its life,
// offset there and size (packed: an access at an offset of 16M or more,
// or of more than 255 bytes, goes to the table), operation, stack and
// goroutine. Where it goes in the table, the table's length when it was
// made (pos: it goes before the table's event pos), is kept apart, once
// for each run of records of the same pos (sideLog.pos): the log is in
// trace order, so pos never falls, and a record's index orders it among
// those of the same pos. On stress-tls and syncmap the table's events
// come between held records far less often than records are held
// (bench/RESULTS.md, "the side log stops where it does not pay, and its
// records are 16 bytes"). The scan's last events (localScan.last) name
// a record of the log as -2-index. Records of a life the allocator
// ended while one goroutine owned it can never be put in the table (no
// later record names the life: settle.go), but for last events; the log
// is compacted when they are half of it, as settle compacts the table.

package trace

import (
	"slices"
	"sort"
)

// sideLog holds the accesses held back from the event table (see the file
// comment), in blocks of sideBlock records.
type sideLog struct {
	blocks [][]sideRec
	n      int       // records in the log
	pos    []sidePos // where the records go in the table, by runs
	count  []uint32  // per life: its records in the log, while one goroutine owns it
	site   []uint32  // per life: the stack of its first record, or sideNotHeld
	// Per site (the stack of a life's first record): the records held
	// of its lives, and those of them whose life became shared.
	siteHeld, siteShared []uint32
	dead                 int // records of lives ended while owned by one goroutine
	spare                [][]sideRec
	// fresh, if set, is given each new block one block ahead of its use,
	// to fault its pages in on another core (prefaulter.askBlock), since
	// after the run writing to the log's fresh pages is what add costs
	// (bench/RESULTS.md, "the side log: accesses of lives one goroutine
	// owns kept out of the event table").
	fresh func([]sideRec)
	ahead []sideRec
	// compactAt is the least number of dead records that makes add
	// compact the log (sideCompactMin, or less for tests), and siteMin
	// hold's sideSiteMin (or less for tests).
	compactAt, siteMin uint32
}

// sideRec is an access held back: Event{Op: op, Addr: the life's base +
// at>>8, Size: at&255, Obj: lifeObj | life-1, Stack: stack, G: g}.
type sideRec struct {
	life  uint32 // the life's number; its top bit: the access writes
	at    uint32 // the offset in the life<<8 | the size
	stack StackID
	g     GoID
}

// sidePos says that the records from the i-th on, up to the next
// sidePos's, go before the table's event pos.
type sidePos struct{ i, pos uint32 }

const (
	sideBlockBits = 16
	sideBlock     = 1 << sideBlockBits
	// sideSizeBits is how many low bits of sideRec.at hold the size; the
	// offset has the others.
	sideSizeBits = 8
	// sideWrite marks a record's life as a write's.
	sideWrite = 1 << 31
	// sideMax bounds the records of the log, so that -2-index fits the
	// scan's int32 last events.
	sideMax = 1<<31 - 2
	// sideCompactMin is the fewest dead records for which the log is
	// compacted (see retire).
	sideCompactMin = 1 << 18
	// sideNotHeld is a life's site when its accesses go to the table.
	sideNotHeld = ^uint32(0)
	// sideSiteMin is how many records of a site's lives are held before
	// the share that became shared can stop the site's new lives from
	// being held (see hold).
	sideSiteMin = 256
)

func newSideLog() *sideLog { return &sideLog{compactAt: sideCompactMin, siteMin: sideSiteMin} }

func (l *sideLog) at(i int) *sideRec { return &l.blocks[i>>sideBlockBits][i&(sideBlock-1)] }

// posOf returns the pos of record i.
func (l *sideLog) posOf(i int) int {
	k := sort.Search(len(l.pos), func(k int) bool { return int(l.pos[k].i) > i })
	return int(l.pos[k-1].pos)
}

// posCursor walks the pos of records in increasing order.
type posCursor struct {
	l *sideLog
	k int // l.pos[k] holds the record last asked of
}

// of returns the pos of record i, at or past the one last asked of.
func (c *posCursor) of(i int) int {
	for c.k+1 < len(c.l.pos) && int(c.l.pos[c.k+1].i) <= i {
		c.k++
	}
	return int(c.l.pos[c.k].pos)
}

// event returns the event record r stands for.
func (r *sideRec) event() Event {
	life := uint64(r.life &^ sideWrite)
	op := OpRead
	if r.life&sideWrite != 0 {
		op = OpWrite
	}
	return Event{Op: op, Addr: LifeAddr(life, uint64(r.at>>sideSizeBits)), Size: r.at & (1<<sideSizeBits - 1), Obj: lifeObj | ObjID(life-1), Stack: r.stack, G: r.g}
}

// sideLife returns the life of e if the side log can hold e, an event
// about to be added to a table of pos events: a plain read or write of a
// heap life, carrying no value, that sideRec.event gives back as it is.
func sideLife(e *Event) (uint64, bool) {
	if e.Op != OpRead && e.Op != OpWrite || e.Sync != SyncNone || e.Peer != 0 || e.Addr < lifeBase {
		return 0, false
	}
	life, off := lifeByte(e.Addr)
	if life == 0 || life >= sideWrite || off >= 1<<(32-sideSizeBits) || e.Size >= 1<<sideSizeBits || e.Obj != lifeObj|ObjID(life-1) {
		return 0, false
	}
	return life, true
}

// block returns a block for the log: a spare one, or the one made ahead,
// or a new one.
func (l *sideLog) block() []sideRec {
	var b []sideRec
	switch k := len(l.spare); {
	case k > 0:
		b, l.spare = l.spare[k-1], l.spare[:k-1]
	case l.ahead != nil:
		b, l.ahead = l.ahead, nil
	default:
		b = make([]sideRec, sideBlock)
	}
	if l.fresh != nil && l.ahead == nil && len(l.spare) == 0 {
		l.ahead = make([]sideRec, sideBlock)
		l.fresh(l.ahead)
	}
	return b
}

// hold reports whether the log holds an access of life, with stack
// stack. It is a guess, which changes no trace: it holds all of a life's
// accesses while one goroutine owns it, or none, and none of a new life
// whose first access is at a site (its stack) more than half of whose
// records held so far went to the table in the end (their life became
// shared), as a channel's messages do: held, then put back, they cost
// more than the table alone (bench/RESULTS.md, "the side log: accesses
// of lives one goroutine owns kept out of the event table").
func (l *sideLog) hold(life uint64, stack StackID) bool {
	for uint64(len(l.count)) <= life {
		k := len(l.count) + 1024
		l.count = append(l.count, make([]uint32, k)...)
		l.site = append(l.site, make([]uint32, k)...)
	}
	if l.count[life] == 0 {
		if l.site[life] == sideNotHeld {
			return false
		}
		if int(stack) < len(l.siteHeld) {
			if h := l.siteHeld[stack]; h >= l.siteMin && 2*l.siteShared[stack] > h {
				l.site[life] = sideNotHeld
				return false
			}
		}
		for len(l.siteHeld) <= int(stack) {
			k := len(l.siteHeld) + 1024
			l.siteHeld = append(l.siteHeld, make([]uint32, k)...)
			l.siteShared = append(l.siteShared, make([]uint32, k)...)
		}
		l.site[life] = uint32(stack)
	}
	return true
}

// shared notes that life, if the log holds records of it, became shared.
func (l *sideLog) shared(life uint64) {
	if life < uint64(len(l.count)) && l.count[life] > 0 {
		l.siteShared[l.site[life]] += l.count[life]
		l.count[life] = 0
	}
}

// add appends e, on life, to the log, before the table's event pos, and
// returns its index.
func (l *sideLog) add(e *Event, life uint64, pos int) int {
	i := l.n
	if i&(sideBlock-1) == 0 && i>>sideBlockBits == len(l.blocks) {
		l.blocks = append(l.blocks, l.block())
	}
	r := &l.blocks[i>>sideBlockBits][i&(sideBlock-1)]
	_, off := lifeByte(e.Addr)
	*r = sideRec{life: uint32(life), at: uint32(off)<<sideSizeBits | e.Size, stack: e.Stack, g: e.G}
	if k := len(l.pos); k == 0 || l.pos[k-1].pos != uint32(pos) {
		l.pos = append(l.pos, sidePos{uint32(i), uint32(pos)})
	}
	if e.Op == OpWrite {
		r.life |= sideWrite
	}
	l.n++
	l.count[life]++
	l.siteHeld[l.site[life]]++
	return i
}

// take holds e back from the table if the side log can hold it and its
// life stays one goroutine's with it (localScan.ownedAfter), noting it as
// the table would (noteEvent); it reports whether it did.
func (c *converter) take(e *Event) bool {
	life, ok := sideLife(e)
	if !ok || c.side.n >= sideMax || c.b.Len() > 1<<32-1 || !c.scan.ownedAfter(life, uint32(e.G)) || !c.side.hold(life, e.Stack) {
		return false
	}
	i := c.side.add(e, life, c.b.Len())
	c.held++
	c.noteEvent(-2-i, e)
	return true
}

// takeAccess holds back the plain access r of a heap life (r.aid set),
// op by goroutine g with stack stack, as access, addValue and take would
// with its event, if the side log can hold it and its life stays g's; it
// reports whether it did. It is their way for most records of a spinning
// test (syncmap), without the event's trips
// through addValue, sideLife's unpacking of the address it packed, and
// observe's questions whose answers ownedAfter gave (bench/RESULTS.md,
// "the spool walk's owned accesses"). An access it does not hold is
// asked again by take, with the same answer: hold, the only one of its
// questions that changes anything, answers a life's later questions as
// its first.
func (c *converter) takeAccess(g *convGoroutine, r *rawEvent, op Op, stack StackID) bool {
	off := r.addr - r.astart
	if r.size >= 1<<sideSizeBits || off >= 1<<(32-sideSizeBits) || c.side.n >= sideMax || c.b.Len() > 1<<32-1 {
		return false
	}
	life := c.life(r)
	if life >= sideWrite || !c.scan.ownedAfter(life, uint32(g.id)) || !c.side.hold(life, stack) {
		return false
	}
	var e Event // set field by field: a composite literal was made aside and copied in
	e.Op, e.Addr, e.Size, e.Obj, e.Stack, e.G = op, lifeBase+life<<lifeShift+off, uint32(r.size), lifeObj|ObjID(life-1), stack, g.id
	c.noteAdded(g, &e)
	i := c.side.add(&e, life, c.b.Len())
	c.held++
	// noteEvent's: the life stays g's, so it does not become shared.
	c.scan.observeOwned(-2-i, &e, life)
	c.noteFirstStack(&e)
	return true
}

// retireSide notes that life, whose allocation ended, will have no more
// events: if one goroutine owned it, its records are dead but for last
// events, and the log is compacted once they are half of it.
func (c *converter) retireSide(life uint32) {
	l := c.side
	if int(life) >= len(l.count) || l.count[life] == 0 || !c.scan.ownedLife(uint64(life)) {
		return
	}
	l.dead += int(l.count[life])
	l.count[life] = 0
	if l.dead >= int(l.compactAt) && 2*l.dead >= l.n {
		c.compactSide()
	}
}

// compactSide leaves out of the log the records of the lives the
// allocator ended while one goroutine owned them (settled), but for the
// scan's last events, counting them in Trace.Local, and renumbers those.
func (c *converter) compactSide() {
	l, s, t := c.side, c.scan, c.b.t
	refs, order := lastRefs(s)
	w := 0
	cur := posCursor{l: l}
	var pos []sidePos // l.pos of the records kept
	for i := 0; i < l.n; i++ {
		r := l.at(i)
		life := r.life &^ sideWrite
		var slots []int
		ref := len(order) > 0 && order[0] == int32(i)
		if ref {
			slots, order = refs[int32(i)], order[1:]
		}
		if !ref && c.settledOwned(uint64(life)) {
			for len(t.Local) <= int(r.g) {
				t.Local = append(t.Local, 0)
			}
			t.Local[r.g]++ // left out, as settle would count it
			continue
		}
		if w != i {
			*l.at(w) = *r
		}
		if p := uint32(cur.of(i)); len(pos) == 0 || pos[len(pos)-1].pos != p {
			pos = append(pos, sidePos{uint32(w), p})
		}
		for _, k := range slots {
			s.last[k] = int32(-2 - w)
		}
		w++
	}
	l.n, l.dead, l.pos = w, 0, pos
	keep := (w + sideBlock - 1) >> sideBlockBits
	l.spare = append(l.spare, l.blocks[keep:]...)
	clear(l.blocks[keep:])
	l.blocks = l.blocks[:keep]
}

// lastRefs returns the records of the side log that the scan's last
// events name (as -2-index), each with the slots of s.last that name it,
// and those records in increasing order, each once. The walks over the
// whole log (mergeSide, compactSide) step through order beside their
// index and ask the map only of the records it names: a lookup at every
// record was a large share of the instructions converting syncmap's
// spool, on one core after the merge (bench/RESULTS.md, branch sync9).
func lastRefs(s *localScan) (map[int32][]int, []int32) {
	refs := make(map[int32][]int)
	var order []int32
	for k, v := range s.last {
		if v <= -2 {
			if refs[-2-v] == nil {
				order = append(order, -2-v)
			}
			refs[-2-v] = append(refs[-2-v], k)
		}
	}
	slices.Sort(order)
	return refs, order
}

// mergeSide puts into b's table (grown by b.Grow) the records of the log
// whose life the whole trace took as shared, and those that are last
// events of the scan (or, if all, every record), each where it was made;
// it counts the others in the trace's Local, and renumbers what names
// events (a receive's send, Values, the scan's last events). It returns how many records it put in
// the table, and the new index of each event the table held before.
func mergeSide(b *Builder, l *sideLog, s *localScan, all bool) (int, func(int) int) {
	t := b.t
	refs, order := lastRefs(s)
	for len(t.Local) < len(t.Goroutines) {
		t.Local = append(t.Local, 0)
	}
	var sel []int32     // the records that go into the table, in order
	var selPos []uint32 // and their pos
	cur := posCursor{l: l}
	local, next := t.Local, order
	nextRef := int32(-1) // next[0], or -1 once none is left
	if len(next) > 0 {
		nextRef = next[0]
	}
	for bi, blk := range l.blocks {
		base := bi << sideBlockBits
		if base >= l.n {
			break
		}
		blk = blk[:min(len(blk), l.n-base)]
		for k := 0; k < len(blk); k++ {
			if !all {
				if k = leaveOut(blk, k, int(nextRef)-base, s.lifeOwner, local); k == len(blk) {
					break
				}
			}
			i := int32(base + k)
			if i == nextRef {
				next = next[1:]
				nextRef = -1
				if len(next) > 0 {
					nextRef = next[0]
				}
			}
			sel = append(sel, i)
			selPos = append(selPos, uint32(cur.of(int(i))))
		}
	}
	n, m := len(t.Events), len(sel)
	if m == 0 {
		return 0, func(j int) int { return j }
	}
	b.Grow(m)
	t.Events = t.Events[:n+m]
	// From the back: record k goes after the table's event j if its pos
	// is past j.
	newAt := make(map[int32]int32, len(refs)) // referenced record -> its index
	w, j := n+m-1, n-1
	for k := m - 1; k >= 0; k-- {
		r := l.at(int(sel[k]))
		for ; j >= int(selPos[k]); j-- {
			t.Events[w] = t.Events[j]
			w--
		}
		t.Events[w] = r.event()
		for len(order) > 0 && order[len(order)-1] > sel[k] {
			order = order[:len(order)-1]
		}
		if len(order) > 0 && order[len(order)-1] == sel[k] {
			newAt[sel[k]] = int32(w)
		}
		w--
	}
	// The table's event j is now at j + the records with pos <= j.
	moved := func(j int) int {
		return j + sort.Search(m, func(k int) bool { return int(selPos[k]) > j })
	}
	for i := range t.Events {
		if e := &t.Events[i]; e.Op == OpRecv && e.Peer >= 0 && int(e.Peer) < n {
			e.Peer = int32(moved(int(e.Peer)))
		}
	}
	for k := range t.Values {
		t.Values[k].Event = moved(t.Values[k].Event)
	}
	for k, v := range s.last {
		switch {
		case v >= 0:
			s.last[k] = int32(moved(int(v)))
		case v <= -2:
			s.last[k] = newAt[-2-v]
		}
	}
	return m, moved
}

// leaveOut is mergeSide's walk over the records of blk from k on that stay
// out of the table: it counts them in local, by goroutine, up to the first
// record whose life is not one goroutine's (owner, the scan's lifeOwner:
// localScan.ownedLife) or that is blk's record stop (a last event's), and
// returns that record's index, or len(blk). It is a function of its own so
// that the loop keeps its few values in registers, which inside
// mergeSide's it did not (bench/RESULTS.md, branch sync9).
func leaveOut(blk []sideRec, k, stop int, owner []uint32, local []int) int {
	for ; k < len(blk); k++ {
		r := &blk[k]
		life := uint64(r.life &^ sideWrite)
		if k == stop || life >= uint64(len(owner)) || owner[life] == multiOwner {
			return k
		}
		local[r.g]++
	}
	return k
}

// lastKey orders the scan's last events (table indices and records of
// the log) as the trace does.
func (c *converter) lastKey(v int32) uint64 {
	if v <= -2 {
		return uint64(c.side.posOf(int(-2-v)))<<32 | uint64(-2-v)
	}
	return uint64(v)<<32 | (1<<32 - 1) // after the records of pos v (| and - bind alike)
}
