// This file implements syncLives, where the converter keeps the
// synchronisation objects (syncObj) at the first words of heap lives: by
// life number and word, in blocks, rather than in syncObjs, a map by
// trace address.
//
// syncObj is asked once per synchronisation record. The channel stress
// test (3M operations over 1,000 channels at a time, 11.5M events) makes
// 1.3M such objects, a channel and each of its buffer's 16 slots, and
// probing a map that size for every record was a third of converting a
// sync record (bench/RESULTS.md, "the conversion after the run on two
// cores"). A life's block is made when a sync object is first asked for in
// its first syncBlockWords words; objects elsewhere (globals, later words)
// stay in the map. The object asked for at an address is the same either
// way.

package trace

// syncBlockWords is how many of a life's first words (8 bytes each) its
// block holds.
const syncBlockWords = 16

// A syncLives holds, per life number, 1 + the index of its block in
// blocks (0: none yet), and the blocks, syncBlockWords objects each (0:
// none yet).
type syncLives struct {
	life   []uint32
	blocks []ObjID
}

// at returns the place of the object at trace address addr if addr is in
// the first syncBlockWords words of a heap life numbered up to lives,
// on a word's boundary, or nil: such an object is syncObjs's.
func (s *syncLives) at(addr, lives uint64) *ObjID {
	if addr < lifeBase {
		return nil
	}
	off := (addr - lifeBase) & (1<<lifeShift - 1)
	l := (addr - lifeBase) >> lifeShift
	if off >= 8*syncBlockWords || off%8 != 0 || l > lives {
		return nil
	}
	if l >= uint64(len(s.life)) {
		s.life = append(s.life, make([]uint32, int(l)+1-len(s.life)+len(s.life)/2+1024)...)
	}
	b := s.life[l]
	if b == 0 {
		s.blocks = append(s.blocks, make([]ObjID, syncBlockWords)...)
		b = uint32(len(s.blocks) / syncBlockWords)
		s.life[l] = b
	}
	return &s.blocks[int(b-1)*syncBlockWords+int(off/8)]
}
