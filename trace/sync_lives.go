// This file implements syncLives, where the converter keeps what it
// knows of the synchronisation at the first words of heap lives: the
// objects there (syncObj) and the latest release at each word (lastRel),
// by life number and word, in blocks, rather than in maps by trace
// address.
//
// Both are asked once per synchronisation record. The channel stress test
// (3M operations over 1,000 channels at a time, 11.5M events) makes 1.3M
// such objects, a channel and each of its buffer's 16 slots, and probing
// maps that size for every record was half of converting a sync record
// (bench/RESULTS.md, "the conversion after the run on two cores"). A
// life's block is made when one of its first syncBlockWords words is
// first asked for; other addresses (globals, later words, the middle of a
// word) stay in the maps. The answer for an address is the same either
// way.

package trace

// syncBlockWords is how many of a life's first words (8 bytes each) its
// block holds.
const syncBlockWords = 16

// A syncLives holds, per life number, 1 + the index of its block (0:
// none yet), and the blocks, syncBlockWords words each: the object at the
// word (0: none yet) and 1 + the index of the latest release-like event
// there (0: none).
type syncLives struct {
	life []uint32
	obj  []ObjID
	rel  []int
}

// slot returns the index in obj and rel of trace address addr if addr is
// one of the first syncBlockWords words of a heap life numbered up to
// lives, or -1: such an address is the maps'.
func (s *syncLives) slot(addr, lives uint64) int {
	if addr < lifeBase {
		return -1
	}
	off := (addr - lifeBase) & (1<<lifeShift - 1)
	l := (addr - lifeBase) >> lifeShift
	if off >= 8*syncBlockWords || off%8 != 0 || l > lives {
		return -1
	}
	if l >= uint64(len(s.life)) {
		s.life = append(s.life, make([]uint32, int(l)+1-len(s.life)+len(s.life)/2+1024)...)
	}
	b := s.life[l]
	if b == 0 {
		s.obj = append(s.obj, make([]ObjID, syncBlockWords)...)
		s.rel = append(s.rel, make([]int, syncBlockWords)...)
		b = uint32(len(s.obj) / syncBlockWords)
		s.life[l] = b
	}
	return int(b-1)*syncBlockWords + int(off/8)
}

// lastRelease returns the index of the latest release-like event at
// trace address addr, if any.
func (c *converter) lastRelease(addr uint64) (int, bool) {
	if k := c.syncLives.slot(addr, c.lives); k >= 0 {
		return c.syncLives.rel[k] - 1, c.syncLives.rel[k] != 0
	}
	i, ok := c.lastRel[addr]
	return i, ok
}

// setLastRelease notes event i as the latest release-like event at
// trace address addr.
func (c *converter) setLastRelease(addr uint64, i int) {
	if k := c.syncLives.slot(addr, c.lives); k >= 0 {
		c.syncLives.rel[k] = i + 1
		return
	}
	c.lastRel[addr] = i
}

// renumberReleases renumbers the latest releases by idx, each event's new
// index (settle): a release is never left out.
func (c *converter) renumberReleases(idx []int32) {
	for addr, i := range c.lastRel {
		c.lastRel[addr] = int(idx[i])
	}
	for k, i := range c.syncLives.rel {
		if i != 0 {
			c.syncLives.rel[k] = int(idx[i-1]) + 1
		}
	}
}
