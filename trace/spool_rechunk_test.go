// This file implements rewriting a finished spool with chunks of another
// size (rechunkSpool), for the tests that check that the conversion does
// not depend on where the recorder's chunks begin and end: the recorder's
// chunk size (recorder.c's CHUNK_BYTES) is a trade of the pages a test of
// many goroutines faults in against the chunk switches of a test of few
// (bench/RESULTS.md, branch chunk), and a trace must not change with it.

package trace

import (
	"encoding/binary"
	"fmt"
	"os"
	"syscall"
)

// recordBytes returns the bytes of the record at the start of b, a chunk's
// records from there on (sym: a symbol chunk's), or an error if b does not
// hold a whole record of a kind the recorder writes.
func recordBytes(b []byte, sym bool) (int, error) {
	le := binary.LittleEndian
	if len(b) < 8 {
		return 0, fmt.Errorf("%d bytes left, not a record", len(b))
	}
	kind := uint8(le.Uint64(b))
	var n int
	// lenAt is the record's fixed bytes plus the words that the count at
	// b[at:] names, if the fixed bytes are there.
	lenAt := func(fixed, at int, unit int) int {
		if len(b) < fixed {
			return fixed
		}
		return fixed + unit*int(uint32(le.Uint64(b[at:])))
	}
	switch {
	case sym && kind == rSym:
		if len(b) < 24 {
			return 0, fmt.Errorf("a symbol record of %d bytes", len(b))
		}
		lens := le.Uint64(b[16:])
		n = 24 + (int(lens>>16&0xffff)+int(lens&0xffff)+7)/8*8
	case sym:
		return 0, fmt.Errorf("a record of kind %d in a symbol chunk", kind)
	case kind == rEnter || kind == rExit || kind == rEnd || kind == rFingo:
		n = 8
	case kind == rRead2 || kind == rWrite2 || kind == rStart:
		n = 16
	case kind == rRead || kind == rWrite || kind == rGo:
		n = 24
	case kind == rReadRange || kind == rWriteRange:
		n = 32
	case kind == rAcquire || kind == rRelease || kind == rReleaseMerge || kind == rReleaseAcquire:
		n = lenAt(24, 16, 8)
	case kind == rAtomic:
		n = lenAt(48, 40, 8)
	default:
		return 0, fmt.Errorf("a record of kind %d", kind)
	}
	if n > len(b) {
		return 0, fmt.Errorf("a record of kind %d and %d bytes, %d left", kind, n, len(b))
	}
	return n, nil
}

// rechunkSpool writes to dst the finished spool at src with chunks of
// chunkBytes: each goroutine's records (and the symbol records) in the
// order written, packed into as few chunks as hold them, handed out in the
// order src's chunks were, the rest of the spool (header, allocation
// records, free ring) as it is. A record is never split: chunkBytes must
// hold the largest (a symbol record of two 2,000-byte names).
func rechunkSpool(src, dst string, chunkBytes uint64) error {
	le := binary.LittleEndian
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	data, err := syscall.Mmap(int(in.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return err
	}
	defer syscall.Munmap(data)
	if len(data) < 4096 || le.Uint64(data) != spoolMagic || le.Uint32(data[8:]) != spoolVersion {
		return fmt.Errorf("%s: not a spool of version %d", src, spoolVersion)
	}
	oldBytes, chunksOff := uint64(le.Uint32(data[12:])), le.Uint64(data[16:])
	tableOff, ringOff, ringSlots := le.Uint64(data[hdrTableOff:]), le.Uint64(data[hdrRingOff:]), le.Uint64(data[hdrRingSlots:])
	n := le.Uint64(data[hdrNextChunk:])
	if chunkBytes%8 != 0 || chunkBytes < chunkHdr+24+4000 || tableOff == 0 || chunksOff+n*oldBytes > uint64(len(data)) {
		return fmt.Errorf("%s: cannot rechunk to %d bytes", src, chunkBytes)
	}

	// The new chunks, in the order handed out, and each goroutine's open one.
	type chunk struct {
		gid  uint32
		recs []byte
	}
	var out []*chunk
	open := map[uint32]*chunk{}
	room := int(chunkBytes - chunkHdr)
	for i := range n {
		slot := uint64(le.Uint32(data[tableOff+4*i:]))
		if slot == 0 {
			return fmt.Errorf("%s: chunk %d was never published", src, i)
		}
		c := data[chunksOff+(slot-1)*oldBytes:]
		gid, used := le.Uint32(c), le.Uint32(c[4:])
		if used&(usedBusy|usedPend) != 0 || uint64(used) > oldBytes-chunkHdr {
			return fmt.Errorf("%s: chunk %d has used word %#x", src, i, used)
		}
		recs := c[chunkHdr : chunkHdr+uint64(used)]
		for len(recs) > 0 {
			k, err := recordBytes(recs, gid == symGID)
			if err != nil {
				return fmt.Errorf("%s: chunk %d: %v", src, i, err)
			}
			o := open[gid]
			if o == nil || len(o.recs)+k > room {
				o = &chunk{gid: gid}
				open[gid] = o
				out = append(out, o)
			}
			o.recs = append(o.recs, recs[:k]...)
			recs = recs[k:]
		}
	}
	if uint64(len(out)) > (ringOff-tableOff)/4 {
		return fmt.Errorf("%s: %d chunks of %d bytes overflow the chunk table", src, len(out), chunkBytes)
	}

	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Truncate(int64(chunksOff + uint64(len(out))*chunkBytes)); err != nil {
		return err
	}
	hdr := append([]byte(nil), data[:4096]...)
	le.PutUint32(hdr[12:], uint32(chunkBytes))
	for _, off := range []int{hdrNextChunk, hdrMaxChunks, hdrNextSlot} {
		le.PutUint64(hdr[off:], uint64(len(out)))
	}
	allocs := mallocOff + le.Uint64(data[hdrNextMalloc:])*24
	table := make([]byte, 4*len(out))
	for i := range out {
		le.PutUint32(table[4*i:], uint32(i+1))
	}
	type part struct {
		off uint64
		b   []byte
	}
	parts := []part{
		{0, hdr},
		{mallocOff, data[mallocOff:allocs]},
		{tableOff, table},
		{ringOff, data[ringOff : ringOff+4*ringSlots]},
	}
	for i, c := range out {
		b := make([]byte, chunkHdr, chunkHdr+len(c.recs))
		le.PutUint32(b, c.gid)
		le.PutUint32(b[4:], uint32(len(c.recs)))
		parts = append(parts, part{chunksOff + uint64(i)*chunkBytes, append(b, c.recs...)})
	}
	for _, p := range parts {
		if _, err := f.WriteAt(p.b, int64(p.off)); err != nil {
			return err
		}
	}
	return f.Close()
}
