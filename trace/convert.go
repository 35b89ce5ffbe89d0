// This file implements Convert: the recorder's spool, read back into a
// Trace — call stacks rebuilt from function entries, heap memory split into
// allocation lives, globals named from the binary's symbols, and
// synchronisation classified in Go terms (classify.go).

package trace

import (
	"bufio"
	"debug/elf"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/seer-tools/seer/internal/bigslice"
)

// Heap allocation lives are given disjoint trace addresses, so that memory
// the allocator reuses never looks shared between its lives: the n-th life
// touched lives at lifeBase + n<<lifeShift.
const (
	lifeBase  = 1 << 62
	lifeShift = 34
)

// tableFloor is the fewest events the event table grows to (tableCap).
const tableFloor = 1 << 16

// tableCap is the capacity the event table grows to (see convert's grow)
// when it has room for have events and holds held, the records found may
// make want events (more than have), and limit is the cap: at first want,
// up to tableFloor; then twice have; past a quarter of the cap, the cap.
// whole says that want is of the whole run's records (the test process is
// gone, so the spool grows no more): then the table takes want at once,
// up to the cap, rather than doubling towards it with a copy each time,
// each copy faulting in a fresh array (bench/RESULTS.md, "seer's kernel
// time").
func tableCap(have, held, want, limit int, whole bool) int {
	switch {
	case held > limit/4:
		return limit
	case whole:
		return min(max(want, 2*have), limit)
	case have == 0:
		return min(want, tableFloor, limit)
	}
	return min(2*have, limit)
}

// growFull returns b's full hook for an event table whose cap is limit.
// merge's hints stop short of the events the records make, and tableCap
// takes at most twice the table at a time: a table the hints left full
// grows as tableCap says, not by append's quarter at a time, which copied
// syncmap's table nine times after the run and kept the copies' memory
// in the heap (bench/RESULTS.md).
func growFull(b *Builder, limit int) func() {
	return func() {
		have := cap(b.t.Events)
		b.Grow(tableCap(have, b.Len(), max(have+1, tableFloor), limit, false) - b.Len())
	}
}

// Convert reads the spool written by a test binary and returns its trace.
// bin is the test binary (for the names of globals); h is the header to
// give the trace.
//
// Files under shadow (the shadow GOROOT the binary was built against) are
// reported under the real GOROOT, h.GOROOT.
//
// atomic, if not nil, says which functions are marked //seer:atomic (by
// their runtime symbol names): each activation of one becomes a
// transaction (atomic.go).
//
// maxEvents, if positive, stops the conversion at that many events: the
// trace's Header.Capped then says so (see record.RecordOptions.MaxEvents).
//
// The plain accesses to memory no other goroutine touched are then left
// out (local.go), but for each goroutine's last ones.
func Convert(spoolPath, bin, shadow string, h Header, atomic func(string) bool, maxEvents int) (*Trace, error) {
	t, _, err := convert(spoolPath, bin, shadow, h, atomic, maxEvents, convertOptions{})
	return t, err
}

// convertOptions are convert's options beyond Convert's.
type convertOptions struct {
	replayable bool // keep each event's replay position (replay.go)
	keepLocal  bool // keep the goroutine-local accesses too (local.go)

	// live, if not nil, is closed when the test process that writes the
	// spool is gone: until then the spool is converted as it is written.
	live <-chan struct{}
	// recycle: live, the slots of chunks read go back to the recorder
	// (LiveOptions.Recycle).
	recycle bool
	// abort, if not nil, ends the conversion early when closed.
	abort <-chan struct{}
	// converted, if not nil, is kept at the number of events converted
	// so far (as RecordResult.Events counts them), chunk by chunk.
	converted *atomic.Int64

	// settleEvery overrides settleEvery (settle.go) if positive; if
	// negative, the conversion does not settle. settled, if not nil, is
	// set to the number of events settling left out. For tests.
	settleEvery int
	settled     *int
	// noPrefault: the writer faults the table's pages in itself, and
	// Grow copies on one core (prefault.go). For tests.
	noPrefault bool
	// noSide: every event goes to the table, none to the side log
	// (local_side.go). For tests.
	noSide bool
	// sideStopAt, if positive: the side log stops (local_side_stop.go)
	// once that many events are converted, whatever it holds; sideStops,
	// if not nil, is set to how many times it stopped. For tests.
	sideStopAt int
	sideStops  *int
	// recDropped, if not nil, is set to the number of atomic records the
	// converter ignored as the recorder may leave them out
	// (recorderDrops). For tests.
	recDropped *int

	// goIDs, if not nil, is set to the map from the recorder's goroutine
	// ids to the trace's (LiveOptions.GoIDs).
	goIDs *map[uint32]GoID
}

// convert is Convert with options; it also reports whether the
// conversion stopped at maxEvents.
func convert(spoolPath, bin, shadow string, h Header, atomic func(string) bool, maxEvents int, o convertOptions) (t *Trace, capped bool, err error) {
	s, err := openSpool(spoolPath, o.live, o.recycle)
	if err != nil {
		return nil, false, err
	}
	if shadow != "" && h.GOROOT != "" {
		prefix := strings.TrimSuffix(shadow, "/") + "/"
		real := strings.TrimSuffix(h.GOROOT, "/") + "/"
		s.fileName = func(f string) string {
			if strings.HasPrefix(f, prefix) {
				return real + f[len(prefix):]
			}
			return f
		}
	}
	defer s.close()
	c := newConverter(h, s, bin)
	c.atomic = atomic
	if o.replayable {
		if err := c.replayable(bin); err != nil {
			return nil, false, err
		}
	}
	// Spool records average over 24 bytes; growing the event slice by
	// append would copy it about twenty times. merge says how many events
	// the records it found may make: after the run, what the chunks hold;
	// while the test runs, the capacity of the chunks so far (over twice
	// what they hold when a thousand goroutines each have a chunk begun).
	// The slice takes that at first, up to tableFloor, then doubles each
	// time it grows (tableCap): the pages it does not fill cost nothing
	// only when Go does not zero them, and Go zeroes a large allocation
	// unless every page of it is fresh or given back (runtime/mheap.go,
	// initSpan). Taking what merge said, a process that had run before
	// (seer check -explore's steered runs) had the whole table of the cap
	// zeroed for a run of a small part of it, even just after
	// debug.FreeOSMemory (bench/RESULTS.md). Once a run holds a quarter of
	// the cap it takes the whole cap at once, where the old array and the
	// new one side by side, doubling, would cost half a gigabyte more at
	// the cap. Once the test process is gone, what merge says is of the
	// whole run, and the table takes it at once (tableCap's whole): the
	// conversion of a large run happens mostly after it (it runs at a low
	// priority while the test does), and there doubling copied the table
	// again and again.
	limit := math.MaxInt
	if maxEvents > 0 {
		// A record can make a few events (a go statement and the start
		// it implies): the margin keeps the last ones from growing a
		// full-size array.
		limit = maxEvents + 1024
	}
	// After the run, a goroutine faults in the table's pages ahead of
	// the events (prefault.go).
	var pf *prefaulter
	if !o.noPrefault {
		pf = newPrefaulter(s.gone)
	}
	defer pf.stop()
	if pf != nil {
		c.b.copyEvents = pf.copyEvents
	}
	grow := func(n int) {
		if o.converted != nil {
			o.converted.Store(int64(c.b.Len() + c.dropped + c.held))
		}
		n -= c.dropped + c.held
		if have := cap(c.b.t.Events); n > have {
			c.b.Grow(tableCap(have, c.b.Len(), n, limit, s.gone()) - c.b.Len())
			pf.ask(c.b.t.Events, c.b.Len(), true)
		}
	}
	full := growFull(c.b, limit)
	c.b.full = func() {
		full()
		pf.ask(c.b.t.Events, c.b.Len(), true)
	}
	// What compactLocal and finish need of every event is gathered as
	// events are added, while the test runs.
	var scan *localScan
	if !o.keepLocal {
		scan = newLocalScan(c.b.t.Stacks, h.GOROOT)
		c.scan, c.settleStep = scan, settleEvery
		if o.settleEvery != 0 {
			c.settleStep = o.settleEvery
		}
		c.settleAt = c.settleStep
		if !o.noSide && c.rp == nil {
			// The accesses of lives one goroutine owns wait in the side
			// log (local_side.go); settling the table would find none.
			c.startSide()
			if o.sideStopAt > 0 {
				c.sideJudge, c.sideShare = o.sideStopAt, 0
			}
			if pf != nil {
				c.side.fresh = pf.askBlock
			}
		}
	}
	c.pf = pf
	aborted, unwatch := watch(o.abort)
	defer unwatch()
	c.aborted, c.maxEvents, c.grow = aborted, maxEvents, grow
	broken := s.merge(c.consume)
	reach := pf.reach(c.b.t.Events, c.b.Len())
	pf.stop()
	kept := c.b.Len() + c.dropped + c.held // the events the recording kept, if it was cut
	atCap := c.stop()
	if atCap {
		broken, capped = true, true
	}
	for _, g := range c.gs {
		if g.id != 0 && !g.ended {
			c.txSwitch(g, "", 0) // a transaction cut short by the end of the run
		}
	}
	c.finish()
	if o.settled != nil {
		*o.settled = c.dropped
	}
	if o.sideStops != nil {
		*o.sideStops = c.sideStops
	}
	if o.recDropped != nil {
		*o.recDropped = c.recDropped
	}
	if o.goIDs != nil {
		m := make(map[uint32]GoID, len(c.gs))
		for gid, g := range c.gs {
			if g.id != 0 {
				m[gid] = g.id
			}
		}
		*o.goIDs = m
	}
	var rp []uint32
	if c.rp != nil {
		rp = c.rp.pos
	}
	s.close() // the spool's pages, before the compaction's tables
	rp = c.compact(rp, reach)
	t, err = c.b.Trace()
	if err != nil {
		return nil, false, fmt.Errorf("internal error: %v", err)
	}
	t.replayPos = rp
	switch {
	case !atCap && !s.malformed && s.cut != 0 && s.overflow == 0 && c.maxEvents > 0 && !aborted.Load():
		// The recorder cut the run at the event cap (a cut with no
		// record lost to a full spool: recorder.c, "Stopping at the
		// event cap"), yet the records up to the cut made fewer events
		// than the cap: its count was not the lower bound it must be.
		// The file is a whole prefix of the run, but not the run's
		// first maxEvents events that Capped would claim: marked
		// truncated, so that the shortfall is not silent.
		t.Truncated = true
	case !atCap && !s.malformed && (s.overflow > 0 || s.cut != 0) && !aborted.Load():
		// The spool (or its allocation region) filled before the cap:
		// the recorder cut the run where it did (cut_here), and the
		// walk stopped there (merge says broken when a record numbered
		// past the cut made it stop: one written by a goroutine that
		// had room left), so the file holds a whole prefix of the run,
		// as at the cap.
		t.Header.Capped = max(kept, 1)
		capped = true
	case capped && !aborted.Load():
		// A whole file of the run's first events, not a damaged one,
		// even if the spool filled up later (s.overflow): the walk
		// never passes the recorder's cut, and every record numbered up
		// to the cut was kept, so the events up to the cap are whole.
		// (The spool fills after the cap whenever the test goes on: the
		// converter stops giving slots back there.)
		t.Header.Capped = max(kept, 1)
	case broken || s.overflow > 0:
		t.Truncated = true
	}
	return t, capped, nil
}

// consume is merge's consumer of a batch of records (spool.merge):
// it reports whether it stopped, before the record at which stop said so.
func (c *converter) consume(batch []rawEvent) bool {
	for i := range batch {
		r := &batch[i]
		if r.step && c.stop() {
			return true
		}
		switch r.kind {
		case rEnter:
			c.enter(r.gid, r.pc)
		case rExit:
			c.exit(r.gid)
		case rHint:
			c.grow(int(r.size))
		default:
			c.visit(r)
		}
	}
	return false
}

// stop reports whether the conversion stops before the next sequenced
// record: it was aborted, or the events reached maxEvents.
func (c *converter) stop() bool {
	return c.aborted.Load() || c.maxEvents > 0 && c.b.Len()+c.dropped+c.held >= c.maxEvents
}

// compact ends the conversion's table: the side log's accesses put back
// where the trace keeps them (local_side.go), the local accesses left out
// (local.go), unless the scan is nil, and the heap objects made. rp is
// compacted alike; reach is how far the table's pages were touched.
func (c *converter) compact(rp []uint32, reach int) []uint32 {
	if scan := c.scan; scan != nil {
		if c.side != nil {
			m, _ := mergeSide(c.b, c.side, scan, false)
			c.putBack += m
			c.side = nil
		}
		n := max(c.b.Len(), reach)
		var objs *objNames
		_, rp, objs = compactLocalObjects(c.b.t, c.b, rp, scan)
		c.scan = nil // before shrinkEvents, which may copy the table
		rp = shrinkEvents(c.b.t, rp, n)
		if objs != nil {
			objs.renameAll() // after shrinkEvents: the objects are made once the table's tail is given back
			return rp
		}
	}
	c.b.compactObjects()
	return rp
}

// watch returns a flag set once abort is closed (stop returns ending the
// watch): stop checks run for every record, too often for a select.
func watch(abort <-chan struct{}) (aborted *atomic.Bool, stop func()) {
	aborted = new(atomic.Bool)
	if abort == nil {
		return aborted, func() {}
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-abort:
			aborted.Store(true)
		case <-done:
		}
	}()
	return aborted, func() { close(done) }
}

type convGoroutine struct {
	id          GoID
	shadow      []uint64  // function-entry pcs (call sites), outermost first
	shadowID    []StackID // stack ids of shadow prefixes
	lastStack   StackID   // stack of its last event, for events made on its behalf
	testChecked StackID   // 1 + the entry stack noteTestAt last looked under
	serials     []uint64  // serial numbers of the entries in shadow (atomic.go)
	outer       []txKey   // outermost atomic activation at or below each entry
	tx          txKey     // the transaction the goroutine is in
	test        string
	rwPending   uint64  // trace address of RWMutex.Lock's readerSem acquire just seen
	lastPrim    StackID // stack of the atomic inside a sync primitive, if that was its last record
	events      int     // events added so far
	adopted     string  // runtime goroutine: the test its next go statements belong to (runtimegs.go)
	adoptedAt   StackID // and the stack of the release that made it so (time.AfterFunc's call)
	batch       bool    // continues a finalizer goroutine for one batch (runtimegs.go)
	system      bool    // a timer context, started from a g0
	ended       bool
	ord         uint32 // countable records so far (replay.go)
}

type converter struct {
	b        *Builder
	s        *spool
	goroot   string
	gs       map[uint32]*convGoroutine
	pcStacks map[[2]uint64]StackID // (shadow stack id, pc) -> stack
	syms     map[uint64][]Frame    // the spool's symbols, as looked up (spool.frames)
	mapPC    uint64                // mapUpdate's last pc, and its answer
	mapIs    bool
	// firstStack is each goroutine's first event's stack (finish).
	firstStack []StackID
	// heap lives: by allocation (rawEvent.aid), 0 until first touched
	lifeOf   []uint32
	lives    uint64
	globals  []elf.Symbol
	objs     map[objKey]ObjID
	syncObjs map[uint64]ObjID // syncObj's objects, by trace address: a map of its own, not objs's hashed names; but syncLives's
	lastRel  map[uint64]int   // trace address -> index of the latest release-like event, but syncLives's (lastRelease)
	selLines map[Frame]Op
	atomic   func(string) bool // //seer:atomic functions; nil = none
	serial   uint64
	conv     []*convGoroutine        // by trace goroutine id
	covered  map[uint32]map[GoID]int // acquire-all points: per spool goroutine, events of each goroutine already acquired
	fingos   uint64                  // acquire-all points so far
	chains   map[chainKey]chainStack // see chainStack
	chainMem chainMemo               // in front of chains (chain_memo.go)
	rp       *convReplay             // replay positions, if kept (replay.go)
	pf       *prefaulter             // the event table's, after the run (prefault.go); nil: none
	// merge's (consume): the abort's flag, the cap (0: none), and grow,
	// which makes room for the events a hint's records may make.
	aborted   *atomic.Bool
	maxEvents int
	grow      func(n int)
	// atomicClasses is atomicClassOf's memo, by stack id (0: not known).
	atomicClasses []uint8
	// recDrops is recorderDrops's memo, by an atomic's caller pc;
	// recDropped counts the records it ignored.
	recDrops   [1 << recDropsBits]uint64
	recDropped int
	// Memos in front of maps the conversion consults for every event (see
	// g, push, findAlloc and locate).
	lastGid    uint32
	lastG      *convGoroutine // gs[lastGid], or nil
	pushMemo   *[pushMemoSize]pushEnt
	globalObjs []ObjID // objects of globals[i], 0 until made
	// What settle needs: the running scan of compactLocal (nil: local
	// accesses are kept), the lives whose allocation has ended, and the
	// events left out so far.
	scan       *localScan
	settled    []bool // by life number
	nSettled   int    // lives one goroutine owned settled since the last settle
	settleAt   int    // table length at which settle runs next
	dropped    int
	settleStep int     // settleEvery, or less for tests; negative: never
	settleIdx  []int32 // settle's scratch
	// side, if not nil, holds back the accesses of lives one goroutine
	// owns (local_side.go); held counts the events it took.
	side *sideLog
	held int
	// The side log's stop (local_side_stop.go): the events converted at
	// which it is judged next, the least share of them it must hold (one
	// in sideShare), and how many times it stopped (for tests).
	sideJudge, sideShare, sideStops int
	putBack                         int // the events of the side log put in the table (for tests)

	// syncLives holds syncObj's objects and the latest releases in the
	// first words of heap lives, in place of syncObjs and lastRel
	// (sync_lives.go).
	syncLives syncLives
}

// pushMemoSize is the size of push's direct-mapped memo.
const pushMemoSize = 1 << 12

type pushEnt struct {
	parent StackID
	id     StackID
	pc     uint64
}

func newConverter(h Header, s *spool, bin string) *converter {
	c := &converter{
		b:        NewBuilder(h),
		s:        s,
		goroot:   h.GOROOT,
		gs:       make(map[uint32]*convGoroutine),
		pcStacks: make(map[[2]uint64]StackID),
		syms:     make(map[uint64][]Frame),
		objs:     make(map[objKey]ObjID),
		syncObjs: make(map[uint64]ObjID),
		lastRel:  make(map[uint64]int),
		selLines: make(map[Frame]Op),
		covered:  make(map[uint32]map[GoID]int),
	}
	c.globals = readGlobals(bin)
	return c
}

// readGlobals returns the binary's data symbols sorted by address.
func readGlobals(bin string) []elf.Symbol {
	f, err := elf.Open(bin)
	if err != nil {
		return nil
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil
	}
	var out []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_OBJECT || s.Size == 0 || int(s.Section) >= len(f.Sections) {
			continue
		}
		switch f.Sections[s.Section].Name {
		case ".data", ".bss", ".noptrdata", ".noptrbss":
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}

func (c *converter) g(gid uint32) *convGoroutine {
	if c.lastG != nil && gid == c.lastGid {
		return c.lastG // a goroutine's records come in runs
	}
	g := c.gs[gid]
	if g == nil {
		g = &convGoroutine{}
		c.gs[gid] = g
	}
	c.lastGid, c.lastG = gid, g
	return g
}

// goID returns the trace id of gid, creating the goroutine (as a root) if
// it was never started by a recorded go statement.
func (c *converter) goID(gid uint32) *convGoroutine {
	g := c.g(gid)
	if g.id == 0 {
		c.newID(g, 0, 0)
	}
	return g
}

func (c *converter) enter(gid uint32, pc uint64) {
	synth := pc&enterSynth != 0 // see replay.go
	pc &^= enterSynth
	g := c.g(gid)
	parent := StackID(0)
	if n := len(g.shadowID); n > 0 {
		parent = g.shadowID[n-1]
	}
	g.shadow = append(g.shadow, pc)
	g.shadowID = append(g.shadowID, c.push(parent, pc))
	if c.rp != nil && !synth && c.rp.countable(pc) {
		g.ord++
	}
	if c.atomic != nil {
		c.txEnter(g, pc)
	}
}

func (c *converter) exit(gid uint32) {
	g := c.g(gid)
	if n := len(g.shadow); n > 0 {
		g.shadow = g.shadow[:n-1]
		g.shadowID = g.shadowID[:n-1]
	}
	if c.atomic != nil {
		c.txExit(g)
	}
}

// push returns the stack made of the frames of pc on top of parent.
func (c *converter) push(parent StackID, pc uint64) StackID {
	// A direct-mapped memo in front of the map: an access loop repeats a
	// few (parent, pc) pairs millions of times.
	if c.pushMemo == nil {
		c.pushMemo = new([pushMemoSize]pushEnt)
	}
	m := &c.pushMemo[((pc^uint64(parent)<<20)*0x9E3779B97F4A7C15)>>(64-12)]
	if m.pc == pc && m.parent == parent && m.id != 0 {
		return m.id
	}
	key := [2]uint64{uint64(parent), pc}
	if id, ok := c.pcStacks[key]; ok {
		*m = pushEnt{parent, id, pc}
		return id
	}
	frames := c.frames(pc)
	id := parent
	for i := len(frames) - 1; i >= 0; i-- {
		id = c.b.Stacks().Push(id, frames[i])
	}
	c.pcStacks[key] = id
	*m = pushEnt{parent, id, pc}
	return id
}

// mapUpdate reports whether a write at pc is a map's update (an
// assignment, a delete or a clear; mapUpdateFunc), through a one-entry
// cache of the last pc asked about, as a site's writes come in runs.
func (c *converter) mapUpdate(pc uint64) bool {
	if pc != c.mapPC {
		fs := c.frames(pc)
		c.mapPC, c.mapIs = pc, len(fs) > 0 && mapUpdateFunc(fs[0].Func)
	}
	return c.mapIs
}

func (c *converter) frames(pc uint64) []Frame {
	if f, ok := c.syms[pc]; ok {
		return f
	}
	f, ok := c.s.frames(pc)
	if !ok {
		f = []Frame{{Func: fmt.Sprintf("0x%x", pc)}}
	}
	c.syms[pc] = f
	return f
}

func (c *converter) top(g *convGoroutine) StackID {
	if n := len(g.shadowID); n > 0 {
		return g.shadowID[n-1]
	}
	return 0
}

// chainStack returns the stack of an event whose innermost frames come from
// a chain of return addresses (innermost first) rather than from function
// entries: the chain is followed until it reaches the call site recorded by
// the goroutine's innermost function entry, whose frames the entry stack
// already holds. (Functions without instrumented accesses have no entry
// record, so the chain is the only trace of them.) It also returns the
// frames of the chain itself, for classification.
func (c *converter) chainStack(g *convGoroutine, pcs []uint64) (StackID, []Frame) {
	var top uint64
	if n := len(g.shadow); n > 0 {
		top = g.shadow[n-1]
	}
	// The result depends on the goroutine's shadow stack (its id and top
	// pc) and the chain alone, and a run repeats a few of those millions
	// of times (a channel loop): remember them.
	if v, ok := c.chainMem.find(c.top(g), top, pcs); ok {
		return v.id, v.frames // the memo's, asked without the key (chain_memo.go)
	}
	return c.chainStackKeyed(g, top, pcs)
}

// chainStackKeyed is chainStack past its memo: the map, then the chain
// built. It is a function of its own so that chainStack does not zero the
// key for the lookups the memo answers.
func (c *converter) chainStackKeyed(g *convGoroutine, top uint64, pcs []uint64) (StackID, []Frame) {
	var key chainKey
	cacheable := len(pcs) <= len(key.pcs)
	if cacheable {
		key.id, key.top, key.n = c.top(g), top, uint8(len(pcs))
		copy(key.pcs[:], pcs)
		if v, ok := c.chains[key]; ok {
			c.chainMem.put(&key, v)
			return v.id, v.frames
		}
	}
	id, frames := c.buildChainStack(g, top, pcs)
	if cacheable {
		if c.chains == nil {
			c.chains = make(map[chainKey]chainStack)
		}
		c.chains[key] = chainStack{id, frames}
		c.chainMem.put(&key, chainStack{id, frames})
	}
	return id, frames
}

// chainKey and chainStack are chainStack's memo (see there); frames are
// shared, and read only.
type chainKey struct {
	id  StackID
	top uint64
	n   uint8
	pcs [12]uint64 // recorder.c's MAX_SYNC_PCS
}

type chainStack struct {
	id     StackID
	frames []Frame
}

func (c *converter) buildChainStack(g *convGoroutine, top uint64, pcs []uint64) (StackID, []Frame) {
	var frames []Frame
	cut := len(pcs)
	for i, pc := range pcs {
		if pc == top {
			cut = i
			break
		}
	}
	for _, pc := range pcs[:cut] {
		for _, f := range c.frames(pc) {
			if len(frames) == 0 && plumbing(f) {
				continue
			}
			frames = append(frames, f)
		}
	}
	id := c.top(g)
	if cut == len(pcs) && top != 0 {
		// The chain did not reach the entry: keep what it holds up to the
		// first user frame, which is the best guess at the join.
		for i, f := range frames {
			if IsUserFrame(f, c.goroot) {
				frames = frames[:i+1]
				break
			}
		}
	}
	for i := len(frames) - 1; i >= 0; i-- {
		id = c.b.Stacks().Push(id, frames[i])
	}
	return id, frames
}

func (c *converter) visit(r *rawEvent) {
	switch r.kind {
	case rMalloc, rFree:
		// Applied by the allocation stage (allocs.go), which left the
		// allocations the record ended.
		if c.scan != nil {
			if r.aid != 0 {
				c.retire(r.aid)
			}
			for _, id := range r.pcs {
				c.retire(uint32(id))
			}
			c.settleDue()
		}
		return
	case rAtomic:
		if c.atomic == nil && c.recorderDrops(r.pcs) {
			// One the recorder may leave out (classify.go,
			// recorderDrops): as if it had, before it touches
			// anything (its goroutine's lastPrim, the replay
			// positions' current record, the life it would number
			// first, its stack, its goroutine's test), so that the
			// trace is the same whether the recorder wrote it or not.
			c.recDropped++
			return
		}
	}
	g := c.lastG // goID's, inlined: the goroutine of the run of records
	if r.gid != c.lastGid || g == nil || g.id == 0 {
		g = c.goID(r.gid)
	}
	if g.ended {
		return
	}
	prim := g.lastPrim
	g.lastPrim = 0
	if c.rp != nil {
		c.rp.record(g, r)
	}
	switch r.kind {
	case rRead, rWrite, rReadRange, rWriteRange:
		c.access(g, r, prim)
	case rAcquire, rRelease, rReleaseMerge, rReleaseAcquire:
		c.sync(g, r)
	case rAtomic:
		c.atomicOp(g, r)
	case rGo:
		child := c.g(r.peer)
		stack := c.push(c.top(g), r.pc)
		c.noteTestAt(g, stack)
		c.newID(child, g.id, stack)
		child.test = g.test
		if child.test == "" && g.adopted != "" {
			// Started by a timer the test set: created where it was set.
			child.test = g.adopted
			c.b.SetGoroutine(child.id, child.test, "")
			c.b.t.Goroutines[child.id].Create = g.adoptedAt
		}
		c.add(g, Event{Op: OpGo, Peer: int32(child.id), Stack: stack})
	case rStart:
		parent := int32(0)
		if p, ok := c.gs[r.peer]; ok {
			parent = int32(p.id)
		} else {
			// Started from a g0: a context in which the runtime runs
			// timers. Its stacks can run on into the frames of whichever
			// goroutine the timers interrupted.
			g.system = true
		}
		c.add(g, Event{Op: OpStart, Peer: parent})
	case rEnd:
		c.txSwitch(g, "", 0)
		c.add(g, Event{Op: OpEnd, Stack: c.top(g)})
		g.ended = true
	case rFingo:
		c.acquireAll(r.gid, g)
	}
}

func (c *converter) add(g *convGoroutine, e Event) int { return c.addValue(g, e, 0, 0) }

// addValue adds e, made by g, with the values it carries (see EventValue).
func (c *converter) addValue(g *convGoroutine, e Event, value, old uint64) int {
	e.G = g.id
	if c.rp != nil {
		c.noteReplay(g) // noteAdded's first, out of it so that it is inlined
	}
	c.noteAdded(g, &e)
	if c.side != nil && value == 0 && old == 0 && c.take(&e) {
		return -1
	}
	// addEvent's, inlined: a call to it here cost more per event
	// (bench/RESULTS.md, branch conv8); Builder.addValue's common case
	// (put) inlined too.
	var i int
	if value|old == 0 && c.b.roomFor() {
		i = c.b.put(&e)
	} else {
		i = c.b.addValue(&e, value, old)
	}
	if c.pf.due(i + 1) {
		c.pf.ask(c.b.t.Events, i+1, false)
	}
	c.noteEvent(i, &c.b.t.Events[i])
	return i
}

// addEvent appends e, which carries no values, to the table, and tells the
// prefaulter and noteEvent of it: every event the converter puts in the
// table comes this way (txSwitch's) or addValue's copy of it (a closure
// Builder.Add called cost the conversion a call per event through it,
// bench/RESULTS.md, branch conv8).
func (c *converter) addEvent(e Event) int {
	i := c.b.addValue(&e, 0, 0)
	if c.pf.due(i + 1) {
		c.pf.ask(c.b.t.Events, i+1, false)
	}
	c.noteEvent(i, &c.b.t.Events[i])
	return i
}

// noteAdded notes in g that it adds e, to the table or the side log; the
// replay positions are noteReplay's, which the caller calls first (the
// side log, the other caller, is made only without them: convert).
func (c *converter) noteAdded(g *convGoroutine, e *Event) {
	g.events++
	if e.Stack != 0 {
		g.lastStack = e.Stack
	}
	if e.Op != OpRLock && e.Op != OpLock {
		g.rwPending = 0
	}
}

// noteReplay notes in the replay positions that g adds the table's next
// event.
func (c *converter) noteReplay(g *convGoroutine) { c.rp.event(c.b.Len(), g) }

// noteEvent notes event e, at index i of the table, or held back by the
// side log (i is -2-its index there), for the scan and finish.
func (c *converter) noteEvent(i int, e *Event) {
	// The side log is told of a life once, when e makes it shared: it
	// holds no record of a shared life (take asks ownedAfter), so telling
	// it at the life's later events did nothing; and e is in the table
	// then, since take held it only if its life stayed one goroutine's.
	if c.scan != nil && c.scan.observe(i, e) && c.side != nil {
		c.side.shared((e.Addr - lifeBase) >> lifeShift)
	}
	c.noteFirstStack(e)
}

// noteFirstStack notes e's stack as its goroutine's first, if it is.
func (c *converter) noteFirstStack(e *Event) {
	if e.Stack != 0 {
		if int(e.G) >= len(c.firstStack) {
			c.growFirstStack(e.G)
		}
		if c.firstStack[e.G] == 0 {
			c.firstStack[e.G] = e.Stack
		}
	}
}

// growFirstStack makes room in firstStack for goroutine g.
func (c *converter) growFirstStack(g GoID) {
	for int(g) >= len(c.firstStack) {
		c.firstStack = bigslice.Extend(c.firstStack, len(c.firstStack)+64)
	}
}

func (c *converter) access(g *convGoroutine, r *rawEvent, prim StackID) {
	var stack StackID
	if prim != 0 && raceAnnotation(c.frames(r.pc)) {
		// race.Read or race.Write called by a sync primitive right after
		// one of its atomics (WaitGroup models its misuse this way): the
		// pc is the annotation's, the atomic has the stack of the call.
		stack = prim
	} else {
		stack = c.push(c.top(g), r.pc)
	}
	c.noteTestAt(g, stack)
	if c.atomic != nil {
		c.txEvent(g, c.frames(r.pc), stack)
	}
	op := OpRead
	if r.kind == rWrite || r.kind == rWriteRange {
		op = OpWrite
		if c.mapUpdate(r.pc) {
			// A map's update reads the map it changes (mapUpdate):
			// its read comes first, as the runtime's does.
			c.accessAs(g, r, OpRead, stack)
		}
	}
	c.accessAs(g, r, op, stack)
}

// accessAs adds access r of g as op, with stack: to the side log if it
// takes it, else to the table at the address r locates.
func (c *converter) accessAs(g *convGoroutine, r *rawEvent, op Op, stack StackID) {
	if r.aid != 0 && c.side != nil && c.takeAccess(g, r, op, stack) {
		return
	}
	var addr uint64
	var obj ObjID
	if life := c.numbered(r); life != 0 {
		addr, obj = lifeAddr(life, r.addr-r.astart) // locate's common case, without its call
	} else {
		addr, obj = c.locate(r, r.addr, r.size)
	}
	size := r.size
	if size > 1<<32-1 {
		size = 1<<32 - 1
	}
	c.add(g, Event{Op: op, Addr: addr, Size: uint32(size), Obj: obj, Stack: stack})
}

// noteTestAt attributes g to a test when the stack shows testing.tRunner
// calling a test function. It walks the interned stack without building
// its frames, since it runs for every event of a goroutine not yet
// attributed (harness goroutines never are).
func (c *converter) noteTestAt(g *convGoroutine, stack StackID) {
	if g.test == "" && !g.system {
		c.findTest(g, stack) // inlined: most events' goroutines are attributed, or never will be
	}
}

// findTest is noteTestAt for a goroutine not attributed yet.
func (c *converter) findTest(g *convGoroutine, stack StackID) {
	st := c.b.Stacks()
	var inner Frame
	for id := stack; id != 0; id = st.Parent(id) {
		f, _ := st.Top(id)
		if f.Func == "testing.tRunner" {
			if name := TestName(inner.Func); name != "" {
				g.test = name
				c.b.SetGoroutine(g.id, name, "")
			}
			return
		}
		inner = f
	}
}

// TestName returns the name of the test, benchmark, example or fuzz test
// that function fn is, or is a function literal in: "TestX" for
// "example.com/p.TestX" or "example.com/p.TestX.func1". It returns "" for
// any other function.
func TestName(fn string) string {
	if i := strings.LastIndex(fn, "/"); i >= 0 {
		fn = fn[i+1:]
	}
	i := strings.Index(fn, ".")
	if i < 0 {
		return ""
	}
	fn = fn[i+1:]
	if j := strings.Index(fn, "."); j >= 0 {
		fn = fn[:j]
	}
	for _, p := range []string{"Test", "Benchmark", "Example", "Fuzz"} {
		if strings.HasPrefix(fn, p) {
			return fn
		}
	}
	return ""
}

func (c *converter) sync(g *convGoroutine, r *rawEvent) {
	var kind SyncKind
	switch r.kind {
	case rAcquire:
		kind = SyncAcquire
	case rRelease:
		kind = SyncRelease
	case rReleaseMerge:
		kind = SyncReleaseMerge
	case rReleaseAcquire:
		kind = SyncReleaseAcquire
	}
	stack, frames := c.chainStack(g, r.pcs)
	cl := classifySync(frames, kind, r.behalf, c.selectDir)
	if !r.behalf {
		c.noteTestAt(g, stack)
		if c.atomic != nil {
			c.txEvent(g, frames, stack)
		}
	}
	if r.behalf {
		// The chain is the partner's; this goroutine is parked where the
		// recorder found it, or, if it could not, where it last did
		// something.
		stack = g.lastStack
		if len(r.parked) > 0 {
			stack, _ = c.chainStack(g, r.parked)
		}
	}
	addr, _ := c.locate(r, r.addr, 1)
	objAddr := addr - uint64(cl.off)
	if cl.kind == ObjRWMutex && cl.op == OpLock && g.rwPending != 0 && g.rwPending == addr+4 {
		// RWMutex.Lock's second acquire (&writerSem): the lock is one event.
		g.rwPending = 0
		return
	}
	e := Event{Op: cl.op, Sync: kind, Addr: addr, Obj: c.syncObj(cl.kind, objAddr), Stack: stack}
	if e.Op == OpRecv && kind.Acquires() {
		e.Peer = -1
		if i, ok := c.lastRelease(addr); ok && c.b.Event(i).Op == OpSend {
			e.Peer = int32(i)
		}
	}
	i := c.add(g, e)
	if cl.kind == ObjRWMutex && cl.op == OpLock {
		g.rwPending = addr
	}
	if kind == SyncRelease || kind == SyncReleaseAcquire {
		c.setLastRelease(addr, i)
	}
	if kind == SyncAcquire {
		c.adopt(g, addr)
	}
}

// selectDir tells a send from a receive inside runtime.selectgo by the
// source line that made the annotation.
func (c *converter) selectDir(f Frame) Op {
	if op, ok := c.selLines[f]; ok {
		return op
	}
	op := OpInvalid
	if file, err := os.Open(f.File); err == nil {
		sc := bufio.NewScanner(file)
		for n := 1; sc.Scan(); n++ {
			if n == f.Line {
				line := sc.Text()
				switch {
				case strings.Contains(line, "recv"):
					op = OpRecv
				case strings.Contains(line, "send"):
					op = OpSend
				}
				break
			}
		}
		file.Close()
	}
	c.selLines[f] = op
	return op
}

func (c *converter) atomicOp(g *convGoroutine, r *rawEvent) {
	stack, chain := c.chainStack(g, r.pcs)
	if c.atomic != nil {
		c.txEvent(g, chain, stack)
	}
	c.noteTestAt(g, stack)
	class := c.atomicClassOf(stack)
	special, drop := OpInvalid, class&acDrop != 0
	if class&acOnce != 0 {
		special = OpOnceCheck
	}
	addr, obj := c.locate(r, r.addr, r.size)
	e := Event{Addr: addr, Size: uint32(r.size), Obj: obj, Stack: stack}
	if r.aflags&afNoSync != 0 || drop {
		if drop {
			g.lastPrim = stack
		}
		if drop && class&acMutex != 0 {
			// The race detector sees Mutex's own atomics; overwriting a
			// mutex that is in use races with them. They become reads,
			// which conflict only with writes (see mutexInternal).
			c.add(g, Event{Op: OpRead, Addr: addr, Size: uint32(r.size), Obj: obj, Stack: stack})
			return
		}
		if r.aop == aAdd && class&acWGAdd != 0 && int64(r.value-r.old)>>32 > 0 {
			// The value is the delta; old is the state word before the
			// add, as recorded.
			e.Op, e.Obj = OpWGAdd, c.syncObj(ObjWaitGroup, addr)
			c.addValue(g, e, uint64(int64(r.value-r.old)>>32), r.old)
		}
		return
	}
	switch {
	case r.aop == aLoad || r.aflags&afFailed != 0:
		e.Op, e.Sync = OpAtomicLoad, SyncAcquire
	case r.aop == aStore:
		e.Op, e.Sync = OpAtomicStore, SyncRelease
	default:
		e.Op, e.Sync = OpAtomicRMW, SyncReleaseAcquire
	}
	if special == OpOnceCheck {
		if e.Op == OpAtomicLoad {
			e.Op = OpOnceCheck
		} else {
			e.Op = OpOnceDone
		}
	}
	i := c.addValue(g, e, r.value, r.old)
	if e.Sync.Releases() {
		c.setLastRelease(addr, i)
	}
}

// An atomic's class, from the frames of its stack (see atomicClassOf).
const (
	acKnown = 1 << iota // computed
	acDrop              // atomicClass: drop
	acOnce              // atomicClass: OpOnceCheck
	acMutex             // mutexInternal
	acWGAdd             // isWaitGroupAdd
)

// atomicClassOf returns what atomicClass, mutexInternal and isWaitGroupAdd
// say of the frames of stack, remembered by stack: a test makes millions
// of atomics from a few stacks, and building their frames cost a fifth of
// the conversion.
func (c *converter) atomicClassOf(stack StackID) uint8 {
	if int(stack) < len(c.atomicClasses) {
		if k := c.atomicClasses[stack]; k != 0 {
			return k
		}
	}
	frames := c.b.Stacks().Frames(stack)
	k := uint8(acKnown)
	special, drop := atomicClass(frames)
	if drop {
		k |= acDrop
	}
	if special == OpOnceCheck {
		k |= acOnce
	}
	if mutexInternal(frames) {
		k |= acMutex
	}
	if isWaitGroupAdd(frames) {
		k |= acWGAdd
	}
	if n := c.b.Stacks().Len(); len(c.atomicClasses) < n {
		c.atomicClasses = append(c.atomicClasses, make([]uint8, n-len(c.atomicClasses))...)
	}
	c.atomicClasses[stack] = k
	return k
}

// recorderDrops is classify.go's recorderDrops of the frames of an
// atomic record's pcs, each pc's verdict remembered (recDrops: pc<<2 |
// 1 + the verdict's distance from verdictUndecided, direct-mapped by pc,
// as recorder.c's atomic_pcs).
func (c *converter) recorderDrops(pcs []uint64) bool {
	for _, pc := range pcs {
		slot := &c.recDrops[(pc*0x9E3779B97F4A7C15)>>(64-recDropsBits)]
		var v dropVerdict
		if *slot>>2 == pc && *slot&3 != 0 {
			v = dropVerdict(*slot&3) + verdictUndecided - 1
		} else {
			v = recorderVerdict(c.frames(pc))
			*slot = pc<<2 | uint64(v-verdictUndecided+1)
		}
		if v != verdictUndecided {
			return v == verdictDrop
		}
	}
	return false
}

// recDropsBits sizes the converter's memo of recorderVerdict by pc.
const recDropsBits = 10

func isWaitGroupAdd(frames []Frame) bool {
	for _, f := range frames {
		if f.Func == "sync.(*WaitGroup).Add" {
			return true
		}
	}
	return false
}

// syncObj returns the object for synchronisation at trace address addr.
// It is looked up at every synchronisation event, so by address alone:
// with objs's keys (an address and a name) its hashing of the name was a
// measurable part of a channel-heavy conversion (bench/RESULTS.md).
func (c *converter) syncObj(kind ObjKind, addr uint64) ObjID {
	var id ObjID
	var ok bool
	k := c.objSlot(addr)
	if k >= 0 {
		id = *c.syncLives.obj.At(k)
		ok = id != 0
	} else {
		id, ok = c.syncObjs[addr]
	}
	if ok {
		o := c.b.t.Objects[id]
		if o.Kind == ObjSync && kind != ObjSync {
			c.b.t.Objects[id].Kind = kind
		}
		return id
	}
	id = c.b.AddObject(Object{Kind: kind, Addr: addr}, "")
	if k >= 0 {
		*c.syncLives.obj.At(k) = id
	} else {
		c.syncObjs[addr] = id
	}
	return id
}

// ---- memory: heap lives and globals ----

// locate returns the trace address and the object of real address addr,
// which record r made (the allocation stage found its allocation, if
// any: rawEvent.aid).
func (c *converter) locate(r *rawEvent, addr, size uint64) (uint64, ObjID) {
	if r.aid != 0 {
		life := c.numbered(r) // life's, inlined: a life numbered already
		if life == 0 {
			life = c.life(r)
		}
		return lifeAddr(life, addr-r.astart)
	}
	i := sort.Search(len(c.globals), func(i int) bool { return c.globals[i].Value+c.globals[i].Size > addr })
	if i < len(c.globals) && c.globals[i].Value <= addr {
		if c.globalObjs == nil {
			c.globalObjs = make([]ObjID, len(c.globals))
		}
		if id := c.globalObjs[i]; id != 0 {
			return addr, id // what objs holds for it, without hashing its name
		}
		s := c.globals[i]
		k := objKey{addr: s.Value, name: s.Name}
		id, ok := c.objs[k]
		if !ok {
			id = c.b.AddObject(Object{Kind: ObjVar, Addr: s.Value, Size: s.Size}, s.Name)
			c.objs[k] = id
		}
		c.globalObjs[i] = id
		return addr, id
	}
	k := objKey{addr: addr}
	id, ok := c.objs[k]
	if !ok {
		id = c.b.AddObject(Object{Kind: ObjVar, Addr: addr, Size: size}, "")
		c.objs[k] = id
	}
	return addr, id
}

// numbered returns the number of the life of the allocation record r is
// in, if it has one already, or 0 (also when r is in none).
func (c *converter) numbered(r *rawEvent) uint64 {
	if r.aid < uint32(len(c.lifeOf)) {
		return uint64(c.lifeOf[r.aid]) // lifeOf[0] is never set: aid 0 is no allocation
	}
	return 0
}

// lifeAddr returns the trace address and the object of the byte at off
// in heap life life.
func lifeAddr(life, off uint64) (uint64, ObjID) {
	return lifeBase + life<<lifeShift + off, lifeObj | ObjID(life-1)
}

// life returns the number of the life of the allocation record r is in
// (r.aid, not 0), numbering it if it is the allocation's first record.
func (c *converter) life(r *rawEvent) uint64 {
	if uint32(len(c.lifeOf)) <= r.aid {
		c.growLifeOf(r.aid)
	}
	life := uint64(c.lifeOf[r.aid])
	if life == 0 {
		// The object is made when the trace keeps an event of the life
		// (compactObjects): most lives are local.
		c.lives++
		life = c.lives
		c.lifeOf[r.aid] = uint32(life)
		c.b.lives.add(heapLife{r.astart, r.aend - r.astart})
	}
	return life
}

// growLifeOf makes room in lifeOf for allocation aid (life).
func (c *converter) growLifeOf(aid uint32) {
	for uint32(len(c.lifeOf)) <= aid {
		c.lifeOf = append(c.lifeOf, make([]uint32, len(c.lifeOf)+1024)...)
	}
}

// finish propagates test attribution down the goroutine tree and names
// goroutines by the function they started in.
func (c *converter) finish() {
	t := c.b.t
	for i := 1; i < len(t.Goroutines); i++ {
		gr := &t.Goroutines[i]
		if gr.Test == "" && gr.Parent > 0 {
			gr.Test = t.Goroutines[gr.Parent].Test
		}
	}
	// The function a goroutine started in: the outermost frame of its
	// first event's stack that is not the runtime's.
	for g, stack := range c.firstStack {
		if stack == 0 {
			continue
		}
		frames := t.Stacks.Frames(stack)
		for j := len(frames) - 1; j >= 0; j-- {
			if !strings.HasPrefix(frames[j].Func, "runtime.") {
				t.Goroutines[g].Func = frames[j].Func
				break
			}
		}
	}
}
