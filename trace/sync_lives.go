// This file implements syncLives, where the converter keeps what it
// knows of the synchronisation objects at the first words of heap lives:
// the objects there (syncObj) and the latest release at each word
// (lastRel), by life number and word, in blocks, rather than in maps by
// trace address.
//
// Both are asked once per synchronisation record: on a channel-heavy run,
// millions of times for a few thousand addresses (a channel and its
// buffer's slots each), where the two maps' probes were a large part of
// converting a sync record (bench/RESULTS.md, "the conversion after the
// run on two cores").
// A life's block is made when syncObj is first asked for one of its first
// syncBlockWords words, and the latest releases already noted at those
// words move into it; a release at a life with no block (an atomic's:
// syncmap's sync.Map entries are many, one word each) stays in lastRel,
// as do other addresses (globals, later words, the middle of a word). The
// answer for an address is the same either way.

package trace

import "github.com/seer-tools/seer/internal/bigslice"

// syncBlockWords is how many of a life's first words (8 bytes each) its
// block holds.
const syncBlockWords = 16

// syncPageBits is log2 of the lives a page of syncLives's index covers.
const syncPageBits = 8

// A syncLives holds, per life number, 1 + the index of its block (0:
// none), in pages of 1<<syncPageBits lives made as blocks need them (a
// run's lives are many, and its lives with a block few), and the blocks, syncBlockWords words each: the
// object at the word (0: none yet) and 1 + the index of the latest
// release-like event there (0: none).
//
// obj and rel grow a block at a time, in chunks (bigslice.Chunks): as
// slices grown by append, their copies were five times their size in
// allocations (bench/RESULTS.md, branch openwin).
type syncLives struct {
	pages [][]uint32
	obj   bigslice.Chunks[ObjID]
	rel   bigslice.Chunks[int]
}

// block returns 1 + the index of life l's block, or 0.
func (s *syncLives) block(l uint64) uint32 {
	if p := l >> syncPageBits; p < uint64(len(s.pages)) && s.pages[p] != nil {
		return s.pages[p][l&(1<<syncPageBits-1)]
	}
	return 0
}

// newBlock makes life l's block and returns 1 + its index.
func (s *syncLives) newBlock(l uint64) uint32 {
	p := int(l >> syncPageBits)
	if p >= len(s.pages) {
		s.pages = append(s.pages, make([][]uint32, p+1-len(s.pages)+len(s.pages)/2+16)...)
	}
	if s.pages[p] == nil {
		s.pages[p] = make([]uint32, 1<<syncPageBits)
	}
	for range syncBlockWords {
		s.obj.Append(0)
		s.rel.Append(0)
	}
	b := uint32(s.obj.Len() / syncBlockWords)
	s.pages[p][l&(1<<syncPageBits-1)] = b
	return b
}

// word returns the life number and the word of trace address addr if
// addr is one of the first syncBlockWords words of a heap life numbered
// up to lives, or ok false: such an address is the maps'.
func word(addr, lives uint64) (l uint64, w int, ok bool) {
	if addr < lifeBase {
		return 0, 0, false
	}
	l, off := lifeByte(addr)
	if off >= 8*syncBlockWords || off%8 != 0 || l > lives {
		return 0, 0, false
	}
	return l, int(off / 8), true
}

// slot returns the index in obj and rel of trace address addr if its
// life has a block, or -1.
func (s *syncLives) slot(addr, lives uint64) int {
	l, w, ok := word(addr, lives)
	if !ok {
		return -1
	}
	b := s.block(l)
	if b == 0 {
		return -1
	}
	return int(b-1)*syncBlockWords + w
}

// objSlot is slot for syncObj, which makes the life's block if it has
// none, moving into it the latest releases that lastRel holds for its
// words.
func (c *converter) objSlot(addr uint64) int {
	s := &c.syncLives
	l, w, ok := word(addr, c.lives)
	if !ok {
		return -1
	}
	b := s.block(l)
	if b == 0 {
		b = s.newBlock(l)
		k0 := int(b-1) * syncBlockWords
		base := addr - uint64(8*w)
		for j := range syncBlockWords {
			if i, ok := c.lastRel[base+uint64(8*j)]; ok {
				*s.rel.At(k0 + j) = i + 1
				delete(c.lastRel, base+uint64(8*j))
			}
		}
	}
	return int(b-1)*syncBlockWords + w
}

// lastRelease returns the index of the latest release-like event at
// trace address addr, if any.
func (c *converter) lastRelease(addr uint64) (int, bool) {
	if k := c.syncLives.slot(addr, c.lives); k >= 0 {
		r := *c.syncLives.rel.At(k)
		return r - 1, r != 0
	}
	i, ok := c.lastRel[addr]
	return i, ok
}

// setLastRelease notes event i as the latest release-like event at
// trace address addr.
func (c *converter) setLastRelease(addr uint64, i int) {
	if k := c.syncLives.slot(addr, c.lives); k >= 0 {
		*c.syncLives.rel.At(k) = i + 1
		return
	}
	c.lastRel[addr] = i
}

// renumberReleases renumbers the latest releases by idx, which gives each
// event's new index (settle, or the side log put back early): a release
// is never left out.
func (c *converter) renumberReleases(idx func(int) int) {
	for addr, i := range c.lastRel {
		c.lastRel[addr] = idx(i)
	}
	for k := range c.syncLives.rel.Len() {
		if r := c.syncLives.rel.At(k); *r != 0 {
			*r = idx(*r-1) + 1
		}
	}
}
