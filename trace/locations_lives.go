// This file implements GroupAccesses's bytes of small heap lives
// (groupLives): instead of one entry of the hash table of addresses
// (locations.go's addrTable) per address an access starts at, each small
// life keeps the bytes its accesses touch side by side in one dense
// array, lives in life order, which is about the order events name them.
//
// On a channel stress test every message is a small life of its own
// (millions of them), and every address of every message was a random
// probe of a table far larger than the caches, three times over (noting
// the access's size, making the locations, looking its location up),
// plus a sort of all the addresses: most of GroupAccesses's second on
// stress-chan-3m (bench/RESULTS.md, "stress-chan-3m: GroupAccesses by
// life"). Here a life's bytes are read in address order as they lie.
//
// The locations are the same as the hash table's (TestGroupLivesSame):
// a life is 1<<lifeShift bytes of trace addresses of its own, so a
// location of a life's bytes holds no other memory's, and the locations
// come out in address order because the dense lives are walked between
// the hash table's sorted addresses by life number. A life is dense only
// where nothing could make it matter: every access of it lies within
// groupLifeBytes bytes of its first byte touched, and no access of the
// input runs from memory below the lives into them, or from one life
// into another (then no life is dense). The others stay in the hash
// table, as before.

package trace

// groupLifeBytes bounds the bytes between a dense life's first byte
// touched and one past its last: what its bytes cost at most. A byte
// holds an access's size, then the location's number within the life,
// so both fit a byte.
const groupLifeBytes = 255

// groupBudgetPerAccess bounds the dense bytes of all lives by the
// accesses grouped: the hash table costs 16 to 24 bytes an address.
const groupBudgetPerAccess = 16

// groupLivesSlack is how many more lives than accesses the lives' table
// may number, so that a trace of a few accesses to lives of high numbers
// (a damaged or crafted one) makes no table of billions of lives: those
// stay in the hash table.
const groupLivesSlack = 1 << 16

// denseGroups is false to group every access in the hash table, for the
// tests that compare the two.
var denseGroups = true

// groupLives holds the dense lives' bytes: life l's byte b (from the
// life's start) is bytes[at[l].base-1 + b - at[l].lo], where at[l].base
// is not 0: the largest size of an access that starts there (0: none),
// then, once the locations are made, its location's number less at[l].loc.
type groupLives struct {
	at    []groupLife // by life number; base 0: not dense
	bytes []uint8
	n     int // accesses' start bytes that bytes holds
}

// groupLife is where a dense life's n bytes sit in bytes (its first byte
// touched, lo, at bytes[base-1]), and the number of its first location.
type groupLife struct {
	lo, base, n uint32
	loc         int32
}

// lifeByte returns the life of a (at least lifeBase) and a's byte within
// it: HeapLife without its check, for the callers that made it (HeapLife,
// groupLives, syncLives's word, sideLife).
func lifeByte(a uint64) (life, b uint64) {
	return (a - lifeBase) >> lifeShift, (a - lifeBase) & (1<<lifeShift - 1)
}

// newGroupLives lays out the dense lives of ev's accesses (see IsMem), or
// returns nil where none can be (an access runs into the lives or from
// one life into another, or no life is small).
func newGroupLives(ev []Event) *groupLives {
	if !denseGroups {
		return nil
	}
	// First the bytes each life's accesses touch: lo, and one past the
	// last in base's place for now (0: none yet), or lo spread for a life
	// that cannot be dense.
	const spread = ^uint32(0)
	// The table is sized once, by the highest life accessed: grown by
	// append it was allocated five times over.
	lives := 0
	for i := range ev {
		if e := &ev[i]; e.Addr >= lifeBase && e.IsMem() {
			if l, _ := lifeByte(e.Addr); l < uint64(len(ev))+groupLivesSlack {
				lives = max(lives, int(l)+1)
			}
		}
	}
	at := make([]groupLife, lives)
	accesses := 0
	for i := range ev {
		e := &ev[i]
		if !e.IsMem() {
			continue
		}
		accesses++
		last := e.Addr + uint64(e.Size) - 1 // IsMem: no wrap
		if e.Addr < lifeBase {
			if last >= lifeBase {
				return nil // runs into the lives
			}
			continue
		}
		l, b := lifeByte(e.Addr)
		if l1, _ := lifeByte(last); l1 != l {
			return nil
		}
		if l >= uint64(len(at)) {
			continue // past the slack: the hash table takes it
		}
		s := &at[l]
		if s.lo == spread {
			continue
		}
		end := b + uint64(e.Size)
		if end > uint64(spread) {
			s.lo = spread
			continue
		}
		if s.base == 0 {
			s.lo, s.base = uint32(b), uint32(end)
		} else {
			s.lo, s.base = min(s.lo, uint32(b)), max(s.base, uint32(end))
		}
		if s.base-s.lo > groupLifeBytes {
			s.lo = spread
		}
	}
	// Then each dense life's place in bytes, in life order.
	budget := min(groupBudgetPerAccess*accesses, 1<<31)
	n := 0
	for l := range at {
		s := &at[l]
		if s.lo == spread || s.base == 0 || n+int(s.base-s.lo) > budget {
			*s = groupLife{}
			continue
		}
		lo, end := s.lo, s.base
		*s = groupLife{lo: lo, base: uint32(n + 1), n: end - lo}
		n += int(end - lo)
	}
	if n == 0 {
		return nil
	}
	return &groupLives{at: at, bytes: make([]uint8, n)}
}

// byteOf returns the index in bytes of a's byte, or false if a is not in
// a dense life.
func (gl *groupLives) byteOf(a uint64) (int, bool) {
	if gl == nil || a < lifeBase {
		return 0, false
	}
	l, b := lifeByte(a)
	if l >= uint64(len(gl.at)) {
		return 0, false
	}
	s := gl.at[l]
	if s.base == 0 {
		return 0, false
	}
	return int(s.base-1) + int(uint32(b)-s.lo), true
}

// note notes an access of size bytes at a, and reports whether a is in a
// dense life (if not, the caller notes it in the hash table).
func (gl *groupLives) note(a uint64, size uint32) bool {
	i, ok := gl.byteOf(a)
	if !ok {
		return false
	}
	switch v := gl.bytes[i]; {
	case v == 0:
		gl.n++
		gl.bytes[i] = uint8(size)
	case uint32(v) < size:
		gl.bytes[i] = uint8(size)
	}
	return true
}

// starts returns how many access start bytes the dense lives hold.
func (gl *groupLives) starts() int {
	if gl == nil {
		return 0
	}
	return gl.n
}

// spansTo appends to spans the locations of the dense lives numbered
// below life (from *next on), as GroupAccesses makes them of sorted
// addresses, and numbers each start byte by its location within its life.
func (gl *groupLives) spansTo(spans []Span, next *int, life int) []Span {
	if gl == nil {
		return spans
	}
	life = min(life, len(gl.at))
	for ; *next < life; *next++ {
		s := &gl.at[*next]
		if s.base == 0 {
			continue
		}
		s.loc = int32(len(spans))
		start := lifeBase + uint64(*next)<<lifeShift + uint64(s.lo)
		bs := gl.bytes[s.base-1 : s.base-1+s.n]
		for b, size := range bs {
			if size == 0 {
				continue
			}
			a := start + uint64(b)
			end := a + uint64(size)
			if k := len(spans); k > int(s.loc) && a < spans[k-1].Hi {
				spans[k-1].Hi = max(spans[k-1].Hi, end)
			} else {
				spans = append(spans, Span{a, end})
			}
			bs[b] = uint8(len(spans) - 1 - int(s.loc))
		}
	}
	return spans
}

// loc returns the location of an access at a, or false if a is not in a
// dense life.
func (gl *groupLives) loc(a uint64) (int32, bool) {
	i, ok := gl.byteOf(a)
	if !ok {
		return 0, false
	}
	l, _ := lifeByte(a)
	return gl.at[l].loc + int32(gl.bytes[i]), true
}
