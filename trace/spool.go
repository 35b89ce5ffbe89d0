// This file implements reading the recorder's spool (see
// record/runtime/recorder.c for its layout): symbols, allocations and the
// per-goroutine record streams, merged back into one sequence.

package trace

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/seer-tools/seer/internal/bigslice"
)

// Spool record kinds; keep in step with record/runtime/recorder.c.
const (
	rEnter          = 1
	rExit           = 2
	rRead           = 3
	rWrite          = 4
	rReadRange      = 5
	rWriteRange     = 6
	rAcquire        = 7
	rRelease        = 8
	rReleaseMerge   = 9
	rReleaseAcquire = 10
	rAtomic         = 11
	rGo             = 12
	rStart          = 13
	rEnd            = 14
	rSym            = 15
	rMalloc         = 16
	rFree           = 17
	rFingo          = 19
	// An access of size 1 in two words (recorder.c's "Plain accesses in
	// two words"): seq<<24 | (pc&0xffff)<<8 | kind, addr | (pc>>16)<<47.
	rRead2  = 21
	rWrite2 = 22
)

// Fields of rRead2 and rWrite2 records.
const (
	seq2Shift = 24
	addr2Bits = 47
)

// Atomic operations and flags of rAtomic records.
const (
	aLoad = 1 + iota
	aStore
	aSwap
	aAdd
	aAnd
	aOr
	aCAS
)

const (
	afNoSync = 1
	afFailed = 2
)

const (
	spoolMagic   = 0x4c4f4f5052454553
	spoolVersion = 6
	chunkHdr     = 8

	spoolChunkBytes = 4096 // recorder.c's CHUNK_BYTES

	symGID     = ^uint32(0) // recorder.c's SYM_GID: a symbol chunk
	symLast    = 1 << 31    // recorder.c's SYM_LAST
	usedBusy   = 1 << 31    // recorder.c's USED_BUSY
	usedPend   = 1 << 30    // recorder.c's USED_PENDING
	maxAtomPCs = 4          // recorder.c's MAX_ATOMIC_PCS
	rAllocBusy = 20         // recorder.c's R_ALLOC_BUSY

	// Offsets of the header's words (recorder.c's struct spool_header)
	// that change while the test runs.
	hdrNextChunk  = 32
	hdrNextMalloc = 40
	hdrOverflow   = 56
	hdrCut        = 80
	hdrMaxChunks  = 88
	hdrTableOff   = 96  // recorder.c's "Recycling": the chunk table,
	hdrRingOff    = 104 // the free ring,
	hdrRingSlots  = 112
	hdrNextSlot   = 120 // fresh slots handed out
	hdrRingHead   = 128 // its entries taken by the recorder,
	hdrRingTail   = 136 // and given by the reader
	hdrSeq        = 256

	mallocOff = 4096 // the allocation region
)

// rawEvent is one sequenced spool record, decoded.
type rawEvent struct {
	// The fields a plain access (and an entry or exit) sets: the first
	// 64 bytes (see decode).
	seq  uint64
	addr uint64
	size uint64
	pc   uint64 // access pc, go statement pc, atomic caller pc
	// The allocation the record's address is in (allocs.go): its number
	// (0: none) and bounds.
	astart, aend uint64
	aid          uint32
	gid          uint32
	kind         uint8
	behalf       bool // synchronisation made by another goroutine for this one
	step         bool // merge: the first record visited after a stop check

	aop    uint8
	aflags uint8
	peer   uint32   // rGo: child gid; rStart: parent gid
	pcs    []uint64 // synchronisation and atomics: return addresses of the Go frame chain
	parked []uint64 // behalf: where this goroutine is parked (its chain), if known
	value  uint64
	old    uint64
}

// rHint is not a spool record: merge passes it on (the converter grows its
// table), with size the number of events the records read so far may make.
const rHint = 0xff

// spool is an open spool file.
//
// A spool is read either after its test process ended, or while the test
// runs (live, see recorder.c's "Reading while recording"): then the
// reader only passes a sequence number once every record numbered below
// it is committed, and a pc's symbol, which the recorder may write after
// the record that names it, is waited for (frames).
type spool struct {
	data        []byte // the mapping
	chunkBytes  uint64
	chunksOff   uint64
	mallocBytes uint64
	maxChunks   uint64 // chunks the mapping holds
	tableOff    uint64 // the chunk table, or 0: chunk i is in slot i
	ringOff     uint64 // the free ring, if tableOff is not 0
	ringSlots   uint64
	ctl, ring   []byte          // live and recycling: the header page and the free ring, writable
	tail        uint64          // free ring entries given
	ringMu      sync.Mutex      // giveBack's: the walk's and the drain's
	drained     atomic.Int64    // bytes copied out by the drain, not yet read by the walk
	ended       <-chan struct{} // live: closed once the test process is gone; nil: it was gone at open
	fileName    func(string) string
	read, hi    uint64      // chunks read, and one past the highest (release)
	win         spoolWindow // walk's: reading many open chunks through copies (spool_window.go)

	// Discovery (discoverLocked) and symbols, shared by the merge's walk
	// and the converter's frames.
	mu        sync.Mutex
	scanned   uint64               // chunks whose headers were read
	uninit    []uint64             // chunks handed out whose headers were not written yet
	found     []foundChunk         // goroutine chunks found, not yet taken by walk
	lastRef   map[uint32]*chunkRef // recycling: each goroutine's last chunk found
	finished  []*chunkRef          // recycling: chunks found finished, not yet taken by drain
	symChunks []uint64             // slots of symbol chunks, in order
	symRead   uint64               // bytes of the last symbol chunk read
	syms      map[uint64][]Frame   // pc -> frames, innermost first
	partial   map[uint64][]Frame   // pc -> its frames read so far, before its last
	final     bool                 // the process is gone and every chunk was discovered
	overflow  uint64               // records the recorder could not keep (walk sets it)
	cut       uint64               // the recorder's cut (recorder.c cut_here), or 0 (walk sets it)
	malformed bool                 // a goroutine's stream held a malformed record (walk sets it)
}

type foundChunk struct {
	gid   uint32
	index uint64    // the chunk's number
	slot  uint64    // where it is (recorder.c's "Recycling")
	ref   *chunkRef // goroutine chunks: how walk reads it
}

// releaseChunks is how many chunks release gives back at once: 2 MiB of
// chunks. One madvise per chunk cost a large share of the conversion
// (bench/RESULTS.md, "Figures once in comments").
const releaseChunks = (2 << 20) / spoolChunkBytes

var errNoSpool = errors.New("the test binary did not start recording (was it built by seer?)")

// openSpool opens the spool at path. With ended not nil the spool is read
// while its test process runs, until ended is closed: openSpool waits for
// the recorder to write the header, or for ended.
//
// With recycle, a live reader gives the recorder back the slots of the
// chunks it has read (recorder.c's "Recycling"): the spool then no longer
// holds them, so it is for a spool nothing reads again.
func openSpool(path string, ended <-chan struct{}, recycle bool) (*spool, error) {
	for {
		live := ended != nil
		if live {
			select {
			case <-ended:
				live = false
			default:
			}
		}
		s, err := tryOpenSpool(path, live, recycle && live)
		if err == nil && live {
			s.ended = ended
		}
		if err != errNoSpool || !live {
			return s, err
		}
		select {
		case <-ended:
		case <-time.After(time.Millisecond):
		}
	}
}

func tryOpenSpool(path string, live, recycle bool) (*spool, error) {
	flag := os.O_RDONLY
	if recycle {
		flag = os.O_RDWR // startRecycling's mapping
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() < 4096 {
		return nil, errNoSpool
	}
	var hdr [hdrRingTail + 8]byte
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return nil, err
	}
	le := binary.LittleEndian
	if le.Uint64(hdr[0:]) != spoolMagic {
		return nil, errNoSpool
	}
	if v := le.Uint32(hdr[8:]); v != spoolVersion {
		return nil, fmt.Errorf("recorder spool version %d, want %d", v, spoolVersion)
	}
	s := &spool{
		chunkBytes:  uint64(le.Uint32(hdr[12:])),
		chunksOff:   le.Uint64(hdr[16:]),
		mallocBytes: le.Uint64(hdr[24:]),
		syms:        make(map[uint64][]Frame),
		partial:     make(map[uint64][]Frame),
	}
	if s.chunkBytes == 0 || s.chunkBytes%8 != 0 || s.chunksOff < 4096 || s.chunksOff > uint64(st.Size()) || s.chunksOff-mallocOff < s.mallocBytes {
		return nil, fmt.Errorf("corrupt recorder spool header")
	}
	s.maxChunks = (uint64(st.Size()) - s.chunksOff) / s.chunkBytes
	if m := le.Uint64(hdr[hdrMaxChunks:]); m > 0 {
		s.maxChunks = min(s.maxChunks, m)
	}
	if s.tableOff = le.Uint64(hdr[hdrTableOff:]); s.tableOff != 0 {
		s.ringOff, s.ringSlots = le.Uint64(hdr[hdrRingOff:]), le.Uint64(hdr[hdrRingSlots:])
		if s.tableOff < mallocOff+s.mallocBytes || s.ringOff < s.tableOff || s.ringSlots == 0 ||
			s.ringSlots > (s.chunksOff-s.ringOff)/4 || s.tableOff%4096 != 0 || s.ringOff%4096 != 0 {
			return nil, fmt.Errorf("corrupt recorder spool header")
		}
		s.maxChunks = min(s.maxChunks, (s.ringOff-s.tableOff)/4)
	}
	if !live {
		// Only what was handed out is mapped.
		s.maxChunks = min(s.maxChunks, le.Uint64(hdr[hdrNextChunk:]))
	}
	n := int(s.chunksOff + s.maxChunks*s.chunkBytes)
	s.data, err = syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the recorder spool: %v", err)
	}
	memLimit.mapped.Add(1) // until close (spoolRoomShare)
	if recycle && s.tableOff != 0 {
		if err := s.startRecycling(f); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

func (s *spool) close() {
	if s.data != nil {
		syscall.Munmap(s.data)
		s.data = nil
		memLimit.mapped.Add(-1)
	}
	for _, m := range []*[]byte{&s.ctl, &s.ring} {
		if *m != nil {
			syscall.Munmap(*m)
			*m = nil
		}
	}
}

// startRecycling maps the header page and the free ring writable, for
// giveBack.
func (s *spool) startRecycling(f *os.File) error {
	var err error
	if s.ctl, err = syscall.Mmap(int(f.Fd()), 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err != nil {
		return fmt.Errorf("mapping the recorder spool: %v", err)
	}
	if s.ring, err = syscall.Mmap(int(f.Fd()), int64(s.ringOff), int(s.ringSlots*4), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED); err != nil {
		return fmt.Errorf("mapping the recorder spool: %v", err)
	}
	s.tail = atomic.LoadUint64((*uint64)(unsafe.Pointer(&s.ctl[hdrRingTail])))
	s.lastRef = make(map[uint32]*chunkRef)
	return nil
}

// giveBack appends slot to the free ring, for the recorder to write a new
// chunk to, unless the ring is full. Every record of the chunk in it must
// have been read: the spool no longer holds them.
func (s *spool) giveBack(slot uint64) {
	if s.ring == nil {
		return
	}
	s.ringMu.Lock()
	defer s.ringMu.Unlock()
	head := atomic.LoadUint64((*uint64)(unsafe.Pointer(&s.ctl[hdrRingHead])))
	if s.tail-head >= s.ringSlots {
		return
	}
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&s.ring[s.tail%s.ringSlots*4])), uint32(slot+1))
	s.tail++
	atomic.StoreUint64((*uint64)(unsafe.Pointer(&s.ctl[hdrRingTail])), s.tail)
}

// load64 and load32 read a word the recorder may be writing.
func (s *spool) load64(off uint64) uint64 {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(&s.data[off])))
}

func (s *spool) load32(off uint64) uint32 {
	return atomic.LoadUint32((*uint32)(unsafe.Pointer(&s.data[off])))
}

// gone reports whether the test process is gone: every record it wrote is
// in the spool.
func (s *spool) gone() bool {
	if s.ended == nil {
		return true
	}
	select {
	case <-s.ended:
		return true
	default:
		return false
	}
}

// release notes that the chunk in slot i has been read, every record of
// it, and gives the slot back if the reader recycles. Every sweepChunks chunks read,
// it gives back the pages of every chunk mapped so far: the mapping is of
// a file, read only, so the records stay there, and the few chunks that
// cursors are still reading fault back in from the page cache. (Giving
// back a region once all its chunks were read kept most of a spool of
// many goroutines resident, since their streams interleave; one madvise
// per chunk cost a third of the conversion.)
func (s *spool) release(i uint64) {
	s.giveBack(i)
	s.hi = max(s.hi, i+1)
	s.read++
	if s.read%sweepChunks != 0 {
		return
	}
	syscall.Madvise(s.data[s.chunksOff:s.chunksOff+s.hi*s.chunkBytes], syscall.MADV_DONTNEED)
}

// sweepChunks is how many chunks release lets be read between sweeps:
// 16 MiB of chunks.
const sweepChunks = (16 << 20) / spoolChunkBytes

// slotOf returns the slot of chunk i, or false if the recorder has not
// published it yet.
func (s *spool) slotOf(i uint64) (uint64, bool) {
	if s.tableOff == 0 {
		return i, true
	}
	v := uint64(s.load32(s.tableOff + 4*i))
	if v == 0 || v > s.maxChunks {
		return 0, false
	}
	return v - 1, true
}

// used returns the committed bytes of records of the chunk in slot i, and
// whether a record is being written to it. Once the test process is gone,
// an atomic it left pending (recorder.c's "Reading while recording")
// counts as committed: it took effect, and other goroutines may have seen
// it.
func (s *spool) used(i uint64) (uint64, bool) {
	u := s.load32(s.chunksOff + i*s.chunkBytes + 4)
	n := min(uint64(u&^(usedBusy|usedPend)), s.chunkBytes-chunkHdr)
	if u&usedPend != 0 && s.gone() {
		n += s.pendingBytes(i, n)
	}
	return n, u&usedBusy != 0
}

// pendingBytes returns the length of the pending atomic record at byte at
// of the chunk in slot i, or 0 if it is not one: the recorder wrote its
// words and its frames up to their count (recorder.c's atomic_pending).
func (s *spool) pendingBytes(i, at uint64) uint64 {
	room := s.chunkBytes - chunkHdr
	if at+48 > room {
		return 0
	}
	r := s.records(i, at, at+48)
	le := binary.LittleEndian
	n := le.Uint64(r[40:])
	if uint8(le.Uint64(r)) != rAtomic || n < 1 || n > maxAtomPCs || at+48+8*n > room {
		return 0
	}
	return 48 + 8*n
}

// records returns the records of the chunk in slot i from byte from to
// byte to.
func (s *spool) records(i, from, to uint64) []byte {
	off := s.chunksOff + i*s.chunkBytes + chunkHdr
	return s.data[off+from : off+to]
}

// discoverLocked reads the headers of the chunks handed out since it last
// did, and of those whose headers were not written then: goroutine chunks
// go to found, symbol chunks to symChunks. final says the process is
// gone: a chunk whose header is still not written never will be. It
// returns the chunks handed out.
//
// A goroutine's chunks are handed out in order, and each one's header is
// written before the next is handed out, so headers are read from the
// highest index down: a chunk seen written has every earlier chunk of its
// goroutine seen written too, and found keeps each goroutine's order.
func (s *spool) discoverLocked(final bool) uint64 {
	n := min(s.load64(hdrNextChunk), s.maxChunks)
	var fresh []foundChunk
	var uninit []uint64
	check := func(i uint64) {
		if slot, ok := s.slotOf(i); ok {
			if gid := s.load32(s.chunksOff + slot*s.chunkBytes); gid != 0 {
				s.noteSlot(slot)
				fresh = append(fresh, foundChunk{gid: gid, index: i, slot: slot})
				return
			}
		}
		if !final {
			uninit = append(uninit, i)
		}
	}
	// Reading a header maps its page, and the kernel's fault-around maps
	// the pages near it: a scan of a gigabyte of new chunks would hold
	// them all. The pages of each block of chunks scanned go back at once.
	const block = releaseChunks
	for hi := n; hi > s.scanned; {
		lo := max(s.scanned, hi-min(hi, block))
		for i := hi; i > lo; i-- {
			check(i - 1)
		}
		if hi-lo == block {
			syscall.Madvise(s.data[s.chunksOff+lo*s.chunkBytes:s.chunksOff+hi*s.chunkBytes], syscall.MADV_DONTNEED)
		}
		hi = lo
	}
	for k := len(s.uninit) - 1; k >= 0; k-- {
		check(s.uninit[k])
	}
	slices.Reverse(uninit)
	s.uninit, s.scanned = uninit, max(s.scanned, n)
	slices.SortFunc(fresh, func(a, b foundChunk) int { return cmp.Compare(a.index, b.index) })
	for _, f := range fresh {
		if f.gid == symGID {
			s.symChunks = append(s.symChunks, f.slot)
			continue
		}
		f.ref = &chunkRef{slot: f.slot}
		if s.ring != nil {
			// The goroutine's chunk before this one is finished: the
			// recorder wrote it before it took this one.
			if prev := s.lastRef[f.gid]; prev != nil {
				s.finished = append(s.finished, prev)
			}
			s.lastRef[f.gid] = f.ref
		}
		s.found = append(s.found, f)
	}
	return n
}

// readSymsLocked reads the symbol records committed since it last did.
func (s *spool) readSymsLocked() {
	for len(s.symChunks) > 0 {
		i := s.symChunks[0]
		used, _ := s.used(i)
		s.symRead += s.readSyms(s.records(i, s.symRead, used))
		if len(s.symChunks) == 1 {
			return // the recorder may add to it
		}
		s.symChunks, s.symRead = s.symChunks[1:], 0
	}
}

// finishLocked notes that every record is read: a pc whose last frame
// was never written (the process died symbolising it) keeps the frames
// it has.
func (s *spool) finishLocked() {
	for pc, f := range s.partial {
		s.syms[pc] = f
	}
	clear(s.partial)
	s.final = true
}

// frames returns the frames of pc, waiting, while the test runs, for the
// recorder to write them: it symbolises the pcs of synchronisation only
// after their records. ok is false if the recorder never did.
func (s *spool) frames(pc uint64) (f []Frame, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for wait := 50 * time.Microsecond; ; wait = min(2*wait, 5*time.Millisecond) {
		if f, ok := s.syms[pc]; ok || s.final {
			return f, ok
		}
		gone := s.gone()
		s.discoverLocked(gone)
		s.readSymsLocked()
		if gone {
			s.finishLocked()
			continue
		}
		if f, ok := s.syms[pc]; ok {
			return f, ok
		}
		s.mu.Unlock()
		select {
		case <-s.ended:
		case <-time.After(wait):
		}
		s.mu.Lock()
	}
}

// readSyms reads the symbol records at the start of b and returns the
// bytes they take.
func (s *spool) readSyms(b []byte) uint64 {
	le := binary.LittleEndian
	read := uint64(0)
	for len(b) >= 24 {
		w0 := le.Uint64(b)
		if w0&0xff != rSym {
			return read
		}
		pc := w0 >> 8
		w1 := le.Uint64(b[8:])
		depth, last := int(w1>>32&^symLast), w1>>32&symLast != 0
		line := int(uint32(w1))
		lens := le.Uint64(b[16:])
		fl, il := int(lens>>16)&0xffff, int(lens&0xffff)
		n := 24 + (fl+il+7)/8*8
		if n > len(b) {
			return read
		}
		str := b[24 : 24+fl+il]
		frames := s.partial[pc]
		if _, done := s.syms[pc]; !done && depth == len(frames) {
			fn, file := string(str[:fl]), string(str[fl:])
			if s.fileName != nil {
				file = s.fileName(file)
			}
			if fn == "??" || line == 0 {
				fn, file = fmt.Sprintf("0x%x", pc), ""
			}
			frames = append(frames, Frame{Func: fn, File: file, Line: line})
			if last {
				s.syms[pc] = frames
				delete(s.partial, pc)
			} else {
				s.partial[pc] = frames
			}
		}
		b = b[n:]
		read += uint64(n)
	}
	return read
}

// allocRec is an allocation record (rMalloc or rFree): a test may make
// millions, so it is kept in a quarter of a rawEvent's room until merge
// visits it.
type allocRec struct {
	seq, addr, size uint64
	kind            uint8
}

// A cursor walks one goroutine's records.
type cursor struct {
	s      *spool
	gid    uint32
	chunks []*chunkRef // the chunks to read after cur
	cur    *chunkRef   // the chunk being read, or nil
	curBuf []byte      // its records, if copied out of the spool
	recs   []byte      // its records: curBuf, win, or its room in the spool (chunkRecs)
	win    []byte      // with many chunks open, its records up to end, copied (spool_window.go)
	off    uint64      // bytes of cur read
	end    uint64      // bytes of cur known committed
	at     uint64      // where in cur the next sequenced record is, if ok
	seq    uint64      // its number
	ok     bool
	last   uint64   // the highest sequence number decoded
	done   bool     // its end record was decoded: it writes no more
	out    *batcher // where function entries and exits go
	broken bool     // a record was malformed: the rest of the stream is ignored
}

// lastChunk returns the chunk the cursor's goroutine may still write to,
// or nil.
func (c *cursor) lastChunk() *chunkRef {
	if n := len(c.chunks); n > 0 {
		return c.chunks[n-1]
	}
	return c.cur
}

// records returns the records of the chunk being read from byte from to
// byte to.
func (c *cursor) records(from, to uint64) []byte {
	return c.recs[from:to]
}

// chunkRecs returns the room for records of the chunk in slot i, all of
// it: a cursor slices its records from it (cursor.records) rather than
// computing the chunk's place for every record.
func (s *spool) chunkRecs(i uint64) []byte {
	off := s.chunksOff + i*s.chunkBytes + chunkHdr
	return s.data[off : off+s.chunkBytes-chunkHdr : off+s.chunkBytes-chunkHdr]
}

// advance finds the next sequenced record (its number, c.seq, and its
// place, c.at), applying function entries and exits on the way. Without
// one (c.ok false), the stream is read to what is known committed of it.
// The record itself is decoded by decode, in the place it is passed on
// in: records are large, and copying each twice cost more than merging.
func (c *cursor) advance() {
	le := binary.LittleEndian
	c.ok = false
	for {
		if c.broken {
			return
		}
		if c.done {
			// Its end record was decoded: the goroutine wrote its
			// last chunk's last record.
			if c.cur != nil {
				c.s.doneWith(c.cur)
				c.closeWindow()
				c.cur, c.curBuf, c.recs = nil, nil, nil
			}
			return
		}
		if c.cur == nil || c.end-c.off < 8 {
			if len(c.chunks) == 0 {
				return // more may come: refresh sets end
			}
			if c.cur != nil {
				// The goroutine went on to a later chunk after its
				// last commits to this one, which end may predate.
				if c.curBuf == nil {
					if end := c.usedNow(); end > c.end {
						c.extend(end)
						continue
					}
				}
				c.s.doneWith(c.cur)
				c.closeWindow()
			}
			c.cur, c.off = c.chunks[0], 0
			c.chunks = c.chunks[1:]
			if c.cur.state.CompareAndSwap(refInSpool, refReading) {
				// A chunk's goroutine moved on from every chunk but its
				// last, whose extent walk's refresh reads too.
				c.curBuf, c.recs = nil, c.s.chunkRecs(c.cur.slot)
				c.end, _ = c.s.used(c.cur.slot)
				if c.s.win.many {
					c.openWindow()
				}
			} else {
				c.curBuf = c.cur.buf // copied out (spool_drain.go)
				c.recs = c.curBuf
				c.end = uint64(len(c.curBuf))
			}
			continue
		}
		buf := c.records(c.off, c.end)
		w0 := le.Uint64(buf)
		kind := uint8(w0)
		need := 8
		switch kind {
		case rEnter:
			c.out.enter(c.gid, w0>>8)
			c.off += 8
			continue
		case rExit:
			c.out.exit(c.gid)
			c.off += 8
			continue
		case rRead, rWrite:
			need = 24
		case rRead2, rWrite2:
			need = 16
		case rReadRange, rWriteRange:
			need = 32
		case rAcquire, rRelease, rReleaseMerge, rReleaseAcquire:
			need = 24
			if len(buf) >= 24 {
				need += 8 * int(uint32(le.Uint64(buf[16:])))
			}
		case rAtomic:
			need = 48
			if len(buf) >= 48 {
				need += 8 * int(uint32(le.Uint64(buf[40:])))
			}
		case rGo:
			need = 24
		case rStart:
			need = 16
		case rEnd, rFingo:
			need = 8
		default:
			c.broken = true
			return
		}
		if need > len(buf) || need > 8*(3+2*12) { // a partner's chain and a parked goroutine's (recorder.c's MAX_SYNC_PCS)
			c.broken = true
			return
		}
		c.at, c.seq = c.off, w0>>8
		if kind == rRead2 || kind == rWrite2 {
			c.seq = w0 >> seq2Shift
		}
		c.off += uint64(need)
		if kind == rEnd {
			c.done = true
		}
		c.last = max(c.last, c.seq)
		c.ok = true
		return
	}
}

// pcArena hands out the pcs slices of decoded records (rawEvent.pcs)
// from chunks shared by many records, rather than an allocation each: a
// spinning test makes millions of atomics, and their slices were a fifth
// of the decoding stage's time (bench/RESULTS.md, "syncmap: lives handed
// over by a go statement"). A chunk is never written again once handed
// out, and each slice's capacity is its length, so an append to one never
// reaches the next; the conversion keeps no slice past its record's visit,
// so a chunk lives as long as the batches that name it.
//
// With out set, a full chunk is used again once every batch that names
// one of its slices has been consumed (batcher.consumed), rather than left
// to the collector: made anew, the chunks of a conversion were hundreds of
// megabytes of garbage on fresh pages while the heap grew, each page a
// fault (bench/RESULTS.md, "seer's fresh-page touches").
type pcArena struct {
	cur   []uint64
	spare []pcChunk // full chunks, oldest first
	out   *batcher  // the batches the slices go to; nil: chunks are not used again
}

// A pcChunk is a full chunk of a pcArena, and the number of the last
// batch that may name it (batcher.sent when it filled).
type pcChunk struct {
	pcs  []uint64
	last uint64
}

// pcArenaChunk is the pcs a chunk holds.
const pcArenaChunk = 4096

// take returns a slice of n pcs of its own.
func (a *pcArena) take(n int) []uint64 {
	if n > cap(a.cur)-len(a.cur) {
		a.next(n)
	}
	k := len(a.cur)
	a.cur = a.cur[:k+n]
	return a.cur[k : k+n : k+n]
}

// next makes cur a chunk with room for n pcs: the oldest spare chunk no
// batch still being filled or consumed names, or a new one. It is kept
// out of take, which is inlined where records are decoded.
//
//go:noinline
func (a *pcArena) next(n int) {
	if a.out == nil {
		a.cur = make([]uint64, 0, max(pcArenaChunk, n))
		return
	}
	if cap(a.cur) == pcArenaChunk {
		// Records in the batch being filled may name it.
		a.spare = append(a.spare, pcChunk{a.cur[:0], a.out.sent})
	}
	if n <= pcArenaChunk && len(a.spare) > 0 && a.spare[0].last < a.out.consumed.Load() {
		a.cur = a.spare[0].pcs
		a.spare[0] = pcChunk{}
		a.spare = a.spare[1:]
		return
	}
	a.cur = make([]uint64, 0, max(pcArenaChunk, n))
}

// decode decodes the record advance found into e, its pcs from arena.
// A plain access, most of the records of a spinning test, sets only the
// fields it has and those read of every record (behalf; aid, which the
// allocation stage sets with astart and aend): the others keep what the
// batch's slot held before, and nothing reads them of an access.
func (c *cursor) decode(e *rawEvent, arena *pcArena) {
	le := binary.LittleEndian
	r := c.records(c.at, c.off)
	w0 := le.Uint64(r)
	kind := uint8(w0)
	switch kind {
	case rRead2, rWrite2:
		// The same event as the three-word record's.
		w1 := le.Uint64(r[8:])
		e.seq, e.addr, e.pc, e.size = w0>>seq2Shift, w1&(1<<addr2Bits-1), w0>>8&0xffff|w1>>addr2Bits<<16, 1
		e.gid, e.kind, e.behalf, e.aid = c.gid, rRead, false, 0
		if kind == rWrite2 {
			e.kind = rWrite
		}
		return
	case rRead, rWrite:
		w2 := le.Uint64(r[16:])
		e.seq, e.addr, e.pc, e.size = w0>>8, le.Uint64(r[8:]), w2>>8, w2&0xff
		e.gid, e.kind, e.behalf, e.aid = c.gid, kind, false, 0
		return
	}
	*e = rawEvent{seq: w0 >> 8, gid: c.gid, kind: kind}
	switch kind {
	case rReadRange, rWriteRange:
		e.addr, e.size, e.pc = le.Uint64(r[8:]), le.Uint64(r[16:]), le.Uint64(r[24:])
	case rAcquire, rRelease, rReleaseMerge, rReleaseAcquire:
		e.addr = le.Uint64(r[8:])
		w2 := le.Uint64(r[16:])
		e.behalf = w2>>32 != 0
		n := int(uint32(w2))
		e.pcs = arena.take(n)
		loadWords(e.pcs, r[24:])
		if n2 := int(w2>>32) - 1; e.behalf && n2 > 0 && n2 <= n {
			e.pcs, e.parked = e.pcs[:n-n2], e.pcs[n-n2:]
		}
	case rAtomic:
		e.addr = le.Uint64(r[8:])
		w2 := le.Uint64(r[16:])
		e.aop, e.aflags, e.size = uint8(w2>>16), uint8(w2>>8), w2&0xff
		e.value, e.old = le.Uint64(r[24:]), le.Uint64(r[32:])
		e.pcs = arena.take(int(uint32(le.Uint64(r[40:]))))
		loadWords(e.pcs, r[48:])
		if len(e.pcs) > 0 {
			e.pc = e.pcs[0]
		}
	case rGo:
		e.peer, e.pc = uint32(le.Uint64(r[8:])), le.Uint64(r[16:])
	case rStart:
		e.peer = uint32(le.Uint64(r[8:]))
	}
}

// cursorHeap orders cursors by their next sequence number: a binary
// heap, typed (container/heap's interface calls were a tenth of the
// conversion).
type cursorHeap []*cursor

func (h *cursorHeap) push(c *cursor) {
	*h = append(*h, c)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].seq <= q[i].seq {
			break
		}
		q[p], q[i] = q[i], q[p]
		i = p
	}
}

// fix restores the heap after the top's seq grew.
func (h cursorHeap) fix() {
	for i, n := 0, len(h); ; {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && h[r].seq < h[j].seq {
			j = r
		}
		if h[i].seq <= h[j].seq {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// pop removes the top.
func (h *cursorHeap) pop() {
	q := *h
	n := len(q) - 1
	q[0] = q[n]
	q[n] = nil
	*h = q[:n]
	h.fix()
}

// merge hands consumeBatch every sequenced record of every goroutine and
// every allocation record, in sequence order, a batch at a time, with a
// goroutine's function entries (rEnter) and exits (rExit) before its next
// sequenced record, and rHint records telling, before the records, how
// many events the records found so far may make. Before each record
// whose step is set (rawEvent.step), consumeBatch asks whether to stop,
// and it returns true if it stopped, which ends the walk; it must not keep
// the batch. merge reports whether any goroutine's
// stream was malformed, or consumeBatch stopped the walk. The converter's
// consumeBatch is converter.consume, whose loop calls its methods
// directly: four callbacks through func values cost it a call each per
// record (bench/RESULTS.md, branch conv8).
//
// Decoding the records and ordering them (walk) runs on a goroutine of
// its own, and the allocation map on another, a few batches ahead of
// consumeBatch, which gets the same records in the same order as walk
// would make them: the three stages share the conversion's CPU time, in
// comparable parts on Go's race suite (bench/RESULTS.md).
// Live, walk goes on until the test process is gone.
func (s *spool) merge(consumeBatch func(batch []rawEvent) (stopped bool)) (broken bool) {
	// Batches in flight (spool_batch.go's batchSize): twice the records
	// 8 and 32 batches of 1024 held, which branch conv6 measured
	// (bench/RESULTS.md).
	items := make(chan []rawEvent, 4)
	free := make(chan []rawEvent, 16)
	quit := make(chan struct{})
	var walkBroken bool
	out := newBatcher(items, free, quit)
	go func() {
		defer close(items)
		walkBroken = s.walk(out)
		out.flush()
	}()
	// The allocation stage (allocs.go), between decoding and the callbacks.
	marked := make(chan []rawEvent, 4)
	go func() {
		defer close(marked)
		m := newAllocMap()
		stage := func(live <-chan struct{}) bool {
			for {
				select {
				case batch, ok := <-items:
					if !ok {
						return true
					}
					for i := range batch {
						m.mark(&batch[i])
					}
					marked <- batch
				case <-live:
					return false
				}
			}
		}
		s.phased(stage)
	}()
	stopped := false
	defer func() {
		// Stopped, or a callback panicked: let walk end, and wait for it
		// (the spool's mapping is unmapped after merge returns).
		close(quit)
		for range marked {
		}
	}()
	consume := func(live <-chan struct{}) bool {
		for {
			var batch []rawEvent
			select {
			case b, ok := <-marked:
				if !ok {
					return true
				}
				batch = b
			case <-live:
				return false
			}
			if consumeBatch(batch) {
				stopped = true
				return true
			}
			out.consumed.Add(1) // its pcs too (pcArena)
			select {
			case free <- batch:
			default:
			}
		}
	}
	s.phased(consume)
	if stopped {
		return true
	}
	return walkBroken
}

// phased runs a stage of merge, stage(live), which returns true when it is
// done, or false soon after live is closed. While the test runs, it runs
// at a low CPU priority, on a thread of its own (background): the stage
// uses the cores the test leaves idle, and does not take one from the test
// when the test wants them, which would slow the test and change its
// schedules. After the test, stage(nil) goes on at the caller's priority.
func (s *spool) phased(stage func(live <-chan struct{}) bool) {
	if s.ended != nil && !s.gone() {
		if background(func() bool { return stage(s.ended) }) {
			return
		}
	}
	stage(nil)
}

// background runs f on a new thread at a low priority (lowPriority),
// which ends with it: Linux does not let a thread take back the priority
// it gave up. A panic of f is background's caller's.
func background(f func() bool) bool {
	type result struct {
		done  bool
		panic any
	}
	c := make(chan result)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread goes with the goroutine
		var r result
		defer func() {
			r.panic = recover()
			c <- r
		}()
		lowPriority()
		r.done = f()
	}()
	r := <-c
	if r.panic != nil {
		panic(r.panic)
	}
	return r.done
}

// A walker is walk's state.
type walker struct {
	s       *spool
	out     *batcher
	cursors map[uint32]*cursor
	active  []*cursor // not done: their last chunks are looked at by refresh
	waiting []*cursor // without a next record
	h       cursorHeap
	wm      uint64 // every record numbered below it is known
	cut     uint64 // if not 0, records numbered after it are not used (recorder.c's cut_here)
	chunks  uint64 // goroutine chunks found (hint)
	visited int    // sequenced records passed on
	hinted  int
	pcs     pcArena // the decoded records' pcs

	allocs []allocRec // allocation records not yet visited, in sequence order
	mnext  uint64     // allocation records looked at
	mwait  []uint64   // allocation records not written when looked at
	mgiven uint64     // the allocation region's bytes given back
}

// walk is merge, on the calling goroutine, but that it writes each record
// (and the entries, exits and hints) into out's batches, and marks the
// first record after each look at whether merge stopped
// (rawEvent.step). Live, it reads what the recorder has committed,
// visits the records below the watermark (refresh), and waits for more,
// handing on what it decoded before it does, until the test process is
// gone.
func (s *spool) walk(out *batcher) (broken bool) {
	w := &walker{s: s, out: out, cursors: make(map[uint32]*cursor), pcs: pcArena{out: out}}
	if s.ring != nil && !s.gone() {
		stopDrain, drained := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(drained)
			s.drain(stopDrain)
		}()
		defer func() {
			close(stopDrain)
			<-drained
		}()
	}
	s.phased(func(live <-chan struct{}) bool {
		var stopped bool
		stopped, broken = w.loop(live)
		return stopped
	})
	s.cut = w.cut
	for _, c := range w.cursors {
		s.malformed = s.malformed || c.broken
		broken = broken || c.broken
	}
	return broken
}

// loop is walk's loop; live not nil, it returns (false) once live is
// closed, before reading what the test process wrote last.
func (w *walker) loop(live <-chan struct{}) (done, broken bool) {
	s, out := w.s, w.out
	yield := func() bool { return false }
	if live != nil {
		yield = s.gone
	}
	const minWait, maxWait = time.Millisecond, 10 * time.Millisecond
	for wait := minWait; ; {
		final := s.gone()
		if final && live != nil {
			return false, false
		}
		w.refresh(final)
		if n := w.hint(final); n > 0 {
			*out.slot() = rawEvent{kind: rHint, size: uint64(n)}
		}
		before := w.visited
		if w.emit(yield) {
			return true, true
		}
		if final || out.quitting {
			return true, false
		}
		// Refreshing costs a look at every running goroutine's chunk:
		// without a batch's worth of records to show for it, wait.
		switch n := w.visited - before; {
		case n >= 4096:
			wait = minWait
			continue
		case n > 0:
			wait = minWait
		default:
			wait = min(2*wait, maxWait)
		}
		out.flush() // what is decoded goes on
		select {
		case <-s.ended:
		case <-time.After(wait):
		}
	}
}

// refresh reads what the recorder committed and moves the watermark: new
// chunks, the extents of each goroutine's last chunk, allocation records,
// symbols. final says the test process is gone.
func (w *walker) refresh(final bool) {
	s := w.s
	wm := uint64(math.MaxUint64)
	if !final {
		wm = s.load64(hdrSeq) + 1 // first: see recorder.c
	}
	s.mu.Lock()
	n := s.discoverLocked(final)
	found := s.found
	s.found = nil
	s.readSymsLocked()
	if final {
		s.finishLocked()
	}
	s.mu.Unlock()
	nmalloc := s.load64(hdrNextMalloc)
	w.cut = s.load64(hdrCut)
	s.overflow = s.load64(hdrOverflow)
	if !final && (n >= s.maxChunks || (nmalloc+1)*24 > s.mallocBytes) {
		wm = w.wm // a cut may be under the counter, not yet in the header
	}
	if w.cut != 0 {
		wm = min(wm, w.cut+1)
	}
	for _, f := range found {
		c := w.cursors[f.gid]
		if c == nil {
			c = &cursor{s: s, gid: f.gid, out: w.out}
			w.cursors[f.gid] = c
			w.active = append(w.active, c)
			w.waiting = append(w.waiting, c)
		}
		c.chunks = append(c.chunks, f.ref)
		w.chunks++
	}
	s.win.count(len(w.active), s.chunkBytes)
	w.readAllocs(min(nmalloc, s.mallocBytes/24), final, &wm)
	active := w.active[:0]
	for _, c := range w.active {
		if c.done || c.broken {
			continue
		}
		active = append(active, c)
		last := c.lastChunk()
		if last == nil || last.state.Load() == refCopied {
			// A copied chunk is finished: the chunk after it is not
			// found yet, and the goroutine took no number in it before
			// the counter was read.
			continue
		}
		// Unless the walk reads it (cur), the drain may copy the chunk
		// and the recorder reuse its slot meanwhile: then busy is
		// another chunk's, and holds the watermark for nothing.
		used, busy := s.used(last.slot)
		if busy && !final {
			wm = min(wm, max(w.wm, c.last+1))
		}
		if s.win.many {
			s.touched()
			if c.cur != nil && c.curBuf == nil && c.win == nil {
				c.openWindow() // it was read in place before
			}
		}
		if last == c.cur && c.curBuf == nil && used > c.end {
			c.extend(used)
		}
	}
	clear(w.active[len(active):])
	w.active = active
	w.wm = max(w.wm, wm)
	waiting := w.waiting[:0]
	for _, c := range w.waiting {
		c.advance()
		if c.ok {
			w.h.push(c)
		} else if !c.done && !c.broken {
			waiting = append(waiting, c)
		}
	}
	clear(w.waiting[len(waiting):])
	w.waiting = waiting
}

// hint returns how many events the records found so far may make, when
// that grew enough to tell (a quarter; after the run, at all): the
// capacity of their chunks (records average over 24 bytes). What the
// chunks hold would be closer (on Go's race suite, bench/RESULTS.md), but
// reading it maps a page of every chunk.
func (w *walker) hint(final bool) int {
	n := int(w.chunks * (w.s.chunkBytes - chunkHdr) / 24)
	if !final && n < w.hinted+w.hinted/4 || n <= w.hinted {
		return 0
	}
	w.hinted = n
	return n
}

// lowPriority makes the calling thread run only on a core nothing else
// wants (SCHED_IDLE: it never preempts another thread, even on waking,
// so the test's schedules are left as they were), or, failing that, at
// nice 19. On a machine loaded by other work such a thread barely runs,
// so the stages hand over to normal priority soon after the test ends
// (phased; walk checks every 4096 records).
func lowPriority() {
	const schedIdle = 5
	var param struct{ priority int32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(syscall.Gettid()), schedIdle, uintptr(unsafe.Pointer(&param))); e != 0 {
		syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 19)
	}
}

// readAllocs reads the allocation records up to n and the ones not
// written when last looked at. A record being written (rAllocBusy) may be
// numbered under the counter: the watermark stays where it was.
func (w *walker) readAllocs(n uint64, final bool, wm *uint64) {
	s := w.s
	from := len(w.allocs)
	var still []uint64
	look := func(i uint64) {
		off := mallocOff + i*24
		w0 := s.load64(off)
		switch kind := uint8(w0); {
		case kind == rMalloc || kind == rFree:
			w.allocs = append(w.allocs, allocRec{seq: w0 >> 8, kind: kind, addr: s.load64(off + 8), size: s.load64(off + 16)})
		case final:
			// reserved but never written: the process died here
		case kind == rAllocBusy:
			*wm = min(*wm, w.wm)
			still = append(still, i)
		default:
			still = append(still, i) // not begun: numbered above the counter read
		}
	}
	// After the run this is every allocation record at once: grown in
	// steps the collector can stop between (bigslice).
	w.allocs = bigslice.Grow(w.allocs, len(w.mwait)+int(max(n, w.mnext)-w.mnext))
	for _, i := range w.mwait {
		look(i)
	}
	for i := w.mnext; i < n; i++ {
		look(i)
	}
	w.mnext, w.mwait = max(w.mnext, n), still
	sortAllocs(w.allocs, from)
	// Copied: the mapping's pages are not needed again.
	done := w.mnext
	if len(still) > 0 {
		done = still[0]
	}
	const page = 4096
	if give := (mallocOff + done*24) / page * page; give >= mallocOff+w.mgiven+64<<20 || final && give > mallocOff+w.mgiven {
		syscall.Madvise(s.data[mallocOff+w.mgiven:give], syscall.MADV_DONTNEED)
		w.mgiven = give - mallocOff
	}
}

func sortAllocs(rs []allocRec, from int) {
	// Allocation records are nearly sorted already (index and sequence
	// number are taken a few instructions apart): insertion sort is linear.
	for i := max(from, 1); i < len(rs); i++ {
		for j := i; j > 0 && rs[j].seq < rs[j-1].seq; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// emit passes on the records below the watermark, in sequence order. It
// reports whether the walk must end: a record after the cut.
//
// A goroutine's records come in runs (most of syncmap's accesses follow
// one of the same goroutine): while the top cursor's next record
// is numbered below the other cursors' (the heap's top's children), it
// stays on top, and the heap is not asked (bench/RESULTS.md, "the spool
// walk's owned accesses").
func (w *walker) emit(yield func() bool) (cut bool) {
	h, out := &w.h, w.out
	allocs, ai := w.allocs, 0
	defer func() {
		// The visited allocation records go.
		w.allocs = w.allocs[:bigslice.Copy(w.allocs, w.allocs[ai:])]
	}()
	cutAt, wm := w.cut, w.wm // refresh moves them, not emit
	nextAlloc := uint64(math.MaxUint64)
	if len(allocs) > 0 {
		nextAlloc = allocs[0].seq
	}
	for len(*h) > 0 && !out.quitting {
		c := (*h)[0]
		bound := uint64(math.MaxUint64)
		for _, o := range (*h)[1:min(3, len(*h))] {
			bound = min(bound, o.seq)
		}
		for {
			if cutAt != 0 && c.seq > cutAt {
				return true
			}
			if c.seq >= wm {
				return false
			}
			step := true
			if nextAlloc < c.seq {
				for ai < len(allocs) && allocs[ai].seq < c.seq {
					a := &allocs[ai]
					*out.slot() = rawEvent{seq: a.seq, kind: a.kind, addr: a.addr, size: a.size, step: step}
					step = false
					ai++
				}
				nextAlloc = math.MaxUint64
				if ai < len(allocs) {
					nextAlloc = allocs[ai].seq
				}
			}
			ev := out.slot()
			c.decode(ev, &w.pcs)
			ev.step = step
			w.visited++
			c.advance()
			if !c.ok || c.seq >= bound || out.quitting || w.visited%4096 == 0 {
				break
			}
		}
		w.requeue(c)
		if w.visited%4096 == 0 && yield() {
			return false // the test ended: go on at normal priority
		}
	}
	return false
}

// requeue puts the heap's top cursor, advanced, back in its place.
func (w *walker) requeue(c *cursor) {
	if c.ok {
		w.h.fix()
	} else {
		w.h.pop()
		if !c.done && !c.broken {
			w.waiting = append(w.waiting, c)
		}
	}
}
