// This file implements reading the recorder's spool (see
// runtime/recorder.c for its layout): symbols, allocations and the
// per-goroutine record streams, merged back into one sequence.

package trace

import (
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"syscall"
)

// Spool record kinds; keep in step with runtime/recorder.c.
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
	spoolVersion = 2
	chunkHdr     = 8

	spoolChunkBytes = 8192 // recorder.c's CHUNK_BYTES
)

// rawEvent is one sequenced spool record, decoded.
type rawEvent struct {
	seq    uint64
	gid    uint32
	kind   uint8
	addr   uint64
	size   uint64
	pc     uint64   // access pc, go statement pc, atomic caller pc
	pcs    []uint64 // synchronisation and atomics: return addresses of the Go frame chain
	behalf bool     // synchronisation made by another goroutine for this one
	parked []uint64 // behalf: where this goroutine is parked (its chain), if known
	aop    uint8
	aflags uint8
	value  uint64
	old    uint64
	peer   uint32 // rGo: child gid; rStart: parent gid
	step   bool   // merge: the first record visited after a stop check
	// The allocation the record's address is in (allocs.go): its number
	// (0: none) and bounds.
	aid          uint32
	astart, aend uint64
}

// spool is an open spool file.
type spool struct {
	data       []byte // the mapping
	chunkBytes uint64
	chunksOff  uint64
	nchunks    uint64
	nmalloc    uint64
	overflow   uint64
	cut        uint64 // if not 0, records numbered after it are not used (recorder.c's cut_here)
	fini       uint64
	syms       map[uint64][]Frame // pc -> frames, innermost first
	fileName   func(string) string
	read, hi   uint64 // chunks read, and one past the highest (release)
}

// releaseChunks is how many chunks release gives back at once: 2 MiB of
// 8 KiB chunks. One madvise per chunk cost a third of the conversion.
const releaseChunks = 256

var errNoSpool = errors.New("the test binary did not start recording (was it built by seer?)")

func openSpool(path string) (*spool, error) {
	f, err := os.Open(path)
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
	var hdr [88]byte
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
		chunkBytes: uint64(le.Uint32(hdr[12:])),
		chunksOff:  le.Uint64(hdr[16:]),
		nchunks:    le.Uint64(hdr[32:]),
		nmalloc:    le.Uint64(hdr[40:]),
		fini:       le.Uint64(hdr[48:]),
		overflow:   le.Uint64(hdr[56:]),
		cut:        le.Uint64(hdr[80:]),
	}
	mallocBytes := le.Uint64(hdr[24:])
	if s.chunkBytes == 0 || s.chunkBytes%8 != 0 || s.chunksOff < 4096 {
		return nil, fmt.Errorf("corrupt recorder spool header")
	}
	if s.nmalloc*24 > mallocBytes {
		s.nmalloc = mallocBytes / 24
	}
	maxChunks := (uint64(st.Size()) - s.chunksOff) / s.chunkBytes
	if s.nchunks > maxChunks {
		s.nchunks = maxChunks
	}
	n := int(s.chunksOff + s.nchunks*s.chunkBytes)
	s.data, err = syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mapping the recorder spool: %v", err)
	}
	return s, nil
}

func (s *spool) close() {
	if s.data != nil {
		syscall.Munmap(s.data)
		s.data = nil
	}
}

// release notes that chunk i has been read. Every sweepChunks chunks read,
// it gives back the pages of every chunk mapped so far: the mapping is of
// a file, read only, so the records stay there, and the few chunks that
// cursors are still reading fault back in from the page cache. (Giving
// back a region once all its chunks were read kept most of a spool of
// many goroutines resident, since their streams interleave; one madvise
// per chunk cost a third of the conversion.)
func (s *spool) release(i uint64) {
	s.hi = max(s.hi, i+1)
	s.read++
	if s.read%sweepChunks != 0 {
		return
	}
	syscall.Madvise(s.data[s.chunksOff:s.chunksOff+s.hi*s.chunkBytes], syscall.MADV_DONTNEED)
}

// sweepChunks is how many chunks release lets be read between sweeps:
// 64 MiB of 8 KiB chunks.
const sweepChunks = 8192

// chunk returns the gid and the used records of chunk i.
func (s *spool) chunk(i uint64) (gid uint32, words []byte) {
	off := s.chunksOff + i*s.chunkBytes
	c := s.data[off : off+s.chunkBytes]
	gid = binary.LittleEndian.Uint32(c)
	used := uint64(binary.LittleEndian.Uint32(c[4:]))
	if used > s.chunkBytes-chunkHdr {
		used = s.chunkBytes - chunkHdr
	}
	return gid, c[chunkHdr : chunkHdr+used]
}

// streams reads the symbol chunks and returns each goroutine's chunk list
// and the bytes of records those chunks hold.
func (s *spool) streams() (map[uint32][]uint64, uint64) {
	s.syms = make(map[uint64][]Frame)
	out := make(map[uint32][]uint64)
	var used uint64
	for i := uint64(0); i < s.nchunks; i++ {
		gid, words := s.chunk(i)
		if gid == 0 {
			s.readSyms(words)
			continue
		}
		out[gid] = append(out[gid], i)
		used += uint64(len(words))
	}
	// Reading a header per chunk mapped (and the kernel's fault-around,
	// more than) every page of the spool: give them back before merge.
	syscall.Madvise(s.data, syscall.MADV_DONTNEED)
	return out, used
}

func (s *spool) readSyms(b []byte) {
	le := binary.LittleEndian
	for len(b) >= 24 {
		w0 := le.Uint64(b)
		if w0&0xff != rSym {
			return
		}
		pc := w0 >> 8
		depth := int(le.Uint64(b[8:]) >> 32)
		line := int(uint32(le.Uint64(b[8:])))
		lens := le.Uint64(b[16:])
		fl, il := int(lens>>16)&0xffff, int(lens&0xffff)
		n := 24 + (fl+il+7)/8*8
		if n > len(b) {
			return
		}
		str := b[24 : 24+fl+il]
		frames := s.syms[pc]
		if depth == len(frames) {
			fn, file := string(str[:fl]), string(str[fl:])
			if s.fileName != nil {
				file = s.fileName(file)
			}
			if fn == "??" || line == 0 {
				fn, file = fmt.Sprintf("0x%x", pc), ""
			}
			s.syms[pc] = append(frames, Frame{Func: fn, File: file, Line: line})
		}
		b = b[n:]
	}
}

// allocRec is an allocation record (rMalloc or rFree): a test may make
// millions, so it is kept in a quarter of a rawEvent's room until merge
// visits it.
type allocRec struct {
	seq, addr, size uint64
	kind            uint8
}

// allocs returns the allocation records in sequence order.
func (s *spool) allocs() []allocRec {
	le := binary.LittleEndian
	out := make([]allocRec, 0, s.nmalloc)
	for i := uint64(0); i < s.nmalloc; i++ {
		r := s.data[4096+i*24 : 4096+i*24+24]
		w0 := le.Uint64(r)
		kind := uint8(w0)
		if kind != rMalloc && kind != rFree {
			continue // reserved but never written: the process died here
		}
		out = append(out, allocRec{seq: w0 >> 8, kind: kind, addr: le.Uint64(r[8:]), size: le.Uint64(r[16:])})
	}
	sortAllocs(out)
	if n := s.nmalloc * 24; n > 0 {
		// Copied: the mapping's pages are not needed again.
		syscall.Madvise(s.data[4096:4096+n], syscall.MADV_DONTNEED)
	}
	return out
}

func sortAllocs(rs []allocRec) {
	// Allocation records are nearly sorted already (index and sequence
	// number are taken a few instructions apart): insertion sort is linear.
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].seq < rs[j-1].seq; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// A cursor walks one goroutine's records.
type cursor struct {
	s      *spool
	gid    uint32
	chunks []uint64
	cur    int64 // the chunk buf is in, or -1
	buf    []byte
	next   rawEvent // the next sequenced record, valid if ok
	ok     bool
	enter  func(gid uint32, pc uint64)
	exit   func(gid uint32)
	broken bool // a record was malformed: the rest of the stream is ignored
}

// advance decodes up to the next sequenced record, applying function
// entries and exits on the way.
func (c *cursor) advance() {
	le := binary.LittleEndian
	c.ok = false
	for {
		if len(c.buf) < 8 {
			if len(c.chunks) == 0 || c.broken {
				if c.cur >= 0 && !c.broken {
					c.s.release(uint64(c.cur)) // the stream is read
					c.cur = -1
				}
				return
			}
			if c.cur >= 0 {
				c.s.release(uint64(c.cur))
			}
			c.cur = int64(c.chunks[0])
			_, c.buf = c.s.chunk(c.chunks[0])
			c.chunks = c.chunks[1:]
			continue
		}
		w0 := le.Uint64(c.buf)
		kind := uint8(w0)
		need := 8
		switch kind {
		case rEnter:
			c.enter(c.gid, w0>>8)
			c.buf = c.buf[8:]
			continue
		case rExit:
			c.exit(c.gid)
			c.buf = c.buf[8:]
			continue
		case rRead, rWrite:
			need = 24
		case rReadRange, rWriteRange:
			need = 32
		case rAcquire, rRelease, rReleaseMerge, rReleaseAcquire:
			need = 24
			if len(c.buf) >= 24 {
				need += 8 * int(uint32(le.Uint64(c.buf[16:])))
			}
		case rAtomic:
			need = 48
			if len(c.buf) >= 48 {
				need += 8 * int(uint32(le.Uint64(c.buf[40:])))
			}
		case rGo:
			need = 24
		case rStart:
			need = 16
		case rEnd, rFingo:
			need = 8
		default:
			c.broken = true
			c.buf = nil
			return
		}
		if need > len(c.buf) || need > 8*(3+2*12) { // a partner's chain and a parked goroutine's (recorder.c's MAX_SYNC_PCS)
			c.broken = true
			c.buf = nil
			return
		}
		r := c.buf[:need]
		c.buf = c.buf[need:]
		e := rawEvent{seq: w0 >> 8, gid: c.gid, kind: kind}
		switch kind {
		case rRead, rWrite:
			e.addr = le.Uint64(r[8:])
			w2 := le.Uint64(r[16:])
			e.pc, e.size = w2>>8, w2&0xff
		case rReadRange, rWriteRange:
			e.addr, e.size, e.pc = le.Uint64(r[8:]), le.Uint64(r[16:]), le.Uint64(r[24:])
		case rAcquire, rRelease, rReleaseMerge, rReleaseAcquire:
			e.addr = le.Uint64(r[8:])
			w2 := le.Uint64(r[16:])
			e.behalf = w2>>32 != 0
			n := int(uint32(w2))
			e.pcs = make([]uint64, n)
			for i := range e.pcs {
				e.pcs[i] = le.Uint64(r[24+8*i:])
			}
			if n2 := int(w2>>32) - 1; e.behalf && n2 > 0 && n2 <= n {
				e.pcs, e.parked = e.pcs[:n-n2], e.pcs[n-n2:]
			}
		case rAtomic:
			e.addr = le.Uint64(r[8:])
			w2 := le.Uint64(r[16:])
			e.aop, e.aflags, e.size = uint8(w2>>16), uint8(w2>>8), w2&0xff
			e.value, e.old = le.Uint64(r[24:]), le.Uint64(r[32:])
			e.pcs = make([]uint64, uint32(le.Uint64(r[40:])))
			for i := range e.pcs {
				e.pcs[i] = le.Uint64(r[48+8*i:])
			}
			if len(e.pcs) > 0 {
				e.pc = e.pcs[0]
			}
		case rGo:
			e.peer, e.pc = uint32(le.Uint64(r[8:])), le.Uint64(r[16:])
		case rStart:
			e.peer = uint32(le.Uint64(r[8:]))
		}
		c.next, c.ok = e, true
		return
	}
}

// cursorHeap orders cursors by their next sequence number.
type cursorHeap []*cursor

func (h cursorHeap) Len() int           { return len(h) }
func (h cursorHeap) Less(i, j int) bool { return h[i].next.seq < h[j].next.seq }
func (h cursorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *cursorHeap) Push(x any)        { *h = append(*h, x.(*cursor)) }
func (h *cursorHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// merge calls visit for every sequenced record of every goroutine (streams,
// from spool.streams) and every allocation record, in sequence order,
// calling enter and exit for function entries and exits of a goroutine
// before its next sequenced record; stop is asked before each record
// (with the allocation records before it), and true ends the walk. visit
// must not keep the record it is given. It reports whether any
// goroutine's stream was malformed, or stop ended the walk.
//
// Decoding the records and ordering them (walk) runs on a goroutine of
// its own, a few batches ahead of the callbacks, which get the same calls
// in the same order as walk would make them: on a second core, reading a
// spool of tens of millions of records costs the conversion nothing.
func (s *spool) merge(streams map[uint32][]uint64, enter func(gid uint32, pc uint64), exit func(gid uint32), visit func(*rawEvent), stop func() bool) (broken bool) {
	const batchSize = 1024
	items := make(chan []rawEvent, 8)
	free := make(chan []rawEvent, 10)
	quit := make(chan struct{})
	var walkBroken bool
	go func() {
		defer close(items)
		batch := make([]rawEvent, 0, batchSize)
		quitting := false
		flush := func() {
			select {
			case items <- batch:
			case <-quit:
				quitting = true
			}
			select {
			case batch = <-free:
				batch = batch[:0]
			default:
				batch = make([]rawEvent, 0, batchSize)
			}
		}
		put := func(r rawEvent) {
			batch = append(batch, r)
			if len(batch) == batchSize {
				flush()
			}
		}
		walkBroken = s.walk(streams,
			func(gid uint32, pc uint64) { put(rawEvent{kind: rEnter, gid: gid, pc: pc}) },
			func(gid uint32) { put(rawEvent{kind: rExit, gid: gid}) },
			func(r *rawEvent) { put(*r) },
			func() bool { return quitting })
		if len(batch) > 0 && !quitting {
			flush()
		}
	}()
	// The allocation stage (allocs.go), between decoding and the callbacks.
	marked := make(chan []rawEvent, 8)
	go func() {
		defer close(marked)
		m := newAllocMap()
		for batch := range items {
			for i := range batch {
				m.mark(&batch[i])
			}
			marked <- batch
		}
	}()
	stopped := false
	defer func() {
		// Stopped, or a callback panicked: let walk end, and wait for it
		// (the spool's mapping is unmapped after merge returns).
		close(quit)
		for range marked {
		}
	}()
	for batch := range marked {
		for i := range batch {
			r := &batch[i]
			if r.step && stop() {
				stopped = true
				break
			}
			switch r.kind {
			case rEnter:
				enter(r.gid, r.pc)
			case rExit:
				exit(r.gid)
			default:
				visit(r)
			}
		}
		if stopped {
			return true
		}
		select {
		case free <- batch:
		default:
		}
	}
	return walkBroken
}

// walk is merge, on the calling goroutine; it marks the first record
// visited after each call of stop (rawEvent.step).
func (s *spool) walk(streams map[uint32][]uint64, enter func(gid uint32, pc uint64), exit func(gid uint32), visit func(*rawEvent), stop func() bool) (broken bool) {
	allocs := s.allocs()
	h := make(cursorHeap, 0, len(streams))
	var cursors []*cursor
	for gid, chunks := range streams {
		c := &cursor{s: s, gid: gid, chunks: chunks, cur: -1, enter: enter, exit: exit}
		cursors = append(cursors, c)
		c.advance()
		if c.ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	ai := 0
	// One record visited at a time, in one place: visit does not keep it
	// (a variable per record would be a heap allocation per record).
	var ev rawEvent
	for h.Len() > 0 && !stop() {
		c := h[0]
		if s.cut != 0 && c.next.seq > s.cut {
			broken = true
			break
		}
		step := true
		for ai < len(allocs) && allocs[ai].seq < c.next.seq {
			a := &allocs[ai]
			ev = rawEvent{seq: a.seq, kind: a.kind, addr: a.addr, size: a.size, step: step}
			step = false
			visit(&ev)
			ai++
		}
		ev = c.next
		ev.step = step
		visit(&ev)
		c.advance()
		if c.ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	for _, c := range cursors {
		broken = broken || c.broken
	}
	return broken
}
