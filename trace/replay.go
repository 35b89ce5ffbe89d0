// This file implements what replaying a witness needs from recording: the
// positions the recorder's replay mode counts (Trace.ReplayPos), the
// schedule file it reads (SEER_REPLAY) and what it writes back.
//
// # Positions
//
// A replay cannot name an event by its index in the trace, nor by how many
// synchronisation records its goroutine made before it: how often a mutex
// spins or whether a channel operation parks depends on timing, and so
// does the number of records they leave. Plain accesses and function
// entries made by code outside the runtime and the sync packages do not
// (given the same values read, which the witness keeps): these are the
// countable records, and an event's position is the number of countable
// records its goroutine made before it. The recorder (record/runtime/recorder.c)
// and the converter count the same records, by the same pc ranges
// (countableRanges, from the test binary's symbol table).

package trace

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"
)

// ReplayPos returns the replay position of event i: the number of
// countable records its goroutine made before it, and whether the event
// comes from a record in its goroutine's own stream (events the converter
// makes up, such as a finalizer batch's orderings, do not). ok is false
// when the trace was not recorded to be replayed (record.RecordOptions.Replayable).
func (t *Trace) ReplayPos(i int) (pos uint32, own, ok bool) {
	if i < 0 || i >= len(t.replayPos) {
		return 0, false, false
	}
	v := t.replayPos[i]
	pos = v >> 2
	if v&posCountable != 0 {
		pos-- // the event is itself a countable record: the position before it
	}
	return pos, v&posOwn != 0, true
}

const (
	posOwn       = 1
	posCountable = 2
)

// enterSynth marks the pc of a function entry that the recorder makes for
// an access the runtime reports on a caller's behalf (racereadpc): a
// select makes a random number of them, so they do not count.
const enterSynth = 1 << 55

// Countable reports whether the records of function fn count for replay,
// and whether a goroutine it starts is counted among its parent's children
// (the runtime's, such as GC workers, are not).
func Countable(fn string) bool {
	for _, p := range uncountable {
		if strings.HasPrefix(fn, p) {
			return false
		}
	}
	return true
}

// uncountable are the packages whose records do not count: their number
// depends on timing (spinning, parking), or they run the scheduler.
var uncountable = []string{"runtime.", "sync.", "sync/atomic.", "internal/", "runtime/"}

// countableRanges returns the [lo, hi) pc ranges, sorted, of the functions
// of bin whose records count.
func countableRanges(bin string) ([]uint64, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	syms, err := f.Symbols()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", bin, err)
	}
	type fn struct {
		lo, hi uint64
		count  bool
	}
	var fns []fn
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) != elf.STT_FUNC || s.Size == 0 {
			continue
		}
		fns = append(fns, fn{s.Value, s.Value + s.Size, Countable(s.Name)})
	}
	sort.Slice(fns, func(i, j int) bool { return fns[i].lo < fns[j].lo })
	var out []uint64
	for _, f := range fns {
		if !f.count {
			continue
		}
		if n := len(out); n > 0 && out[n-1] >= f.lo {
			out[n-1] = max(out[n-1], f.hi)
			continue
		}
		// Merge across a gap with no uncountable function in it.
		if n := len(out); n > 0 {
			k := sort.Search(len(fns), func(k int) bool { return fns[k].lo >= out[n-1] })
			if k < len(fns) && fns[k].lo >= f.lo {
				out[n-1] = f.hi
				continue
			}
		}
		out = append(out, f.lo, f.hi)
	}
	return out, nil
}

func inRanges(r []uint64, pc uint64) bool {
	k := sort.Search(len(r)/2, func(k int) bool { return r[2*k+1] > pc })
	return k < len(r)/2 && r[2*k] <= pc
}

// convReplay keeps the replay positions during conversion.
type convReplay struct {
	ranges []uint64
	pos    []uint32
	cur    *convGoroutine // the goroutine whose record is being visited
	access bool           // that record is a countable access
}

func (c *converter) replayable(bin string) error {
	r, err := countableRanges(bin)
	if err != nil {
		return fmt.Errorf("replay positions: %v", err)
	}
	c.rp = &convReplay{ranges: r}
	return nil
}

// countable reports whether a record at pc counts.
func (rp *convReplay) countable(pc uint64) bool { return inRanges(rp.ranges, pc) }

// record notes the record about to be visited, in g's stream.
func (rp *convReplay) record(g *convGoroutine, r *rawEvent) {
	rp.cur, rp.access = g, false
	if r.behalf {
		rp.cur = nil // made by the goroutine's partner: not its own record
	}
	switch r.kind {
	case rRead, rWrite, rReadRange, rWriteRange:
		if !g.ended && rp.countable(r.pc) {
			g.ord++
			rp.access = true
		}
	}
}

// event notes event i, made by g.
func (rp *convReplay) event(i int, g *convGoroutine) {
	for len(rp.pos) < i {
		rp.pos = append(rp.pos, 0)
	}
	v := g.ord << 2
	if g == rp.cur {
		v |= posOwn
		if rp.access {
			v |= posCountable
			rp.access = false // one event per record
		}
	}
	rp.pos = append(rp.pos, v)
}

// A ReplaySchedule is a witness schedule in the recorder's terms (see
// recorder.c, "Replay"): goroutines by creation, steps by goroutine and
// replay position.
type ReplaySchedule struct {
	Goroutines []ReplayGoroutine // [0] is main
	Steps      []ReplayStep
	Stall      time.Duration // a turn whose holder, at its gate, makes no record for this long passes on
	Absent     time.Duration // and one whose holder has not reached its gate, after this long
	Total      time.Duration // after this, every gate opens
}

// A ReplayGoroutine names a goroutine by creation: the Index-th goroutine
// that goroutine Parent (an index in ReplaySchedule.Goroutines, -1 for
// main) started.
type ReplayGoroutine struct {
	Parent, Index int
	Enforced      bool // it waits at its steps' gates (else it is only a parent)
	// Hold, if at least 0, is a position at which the goroutine waits
	// until every step has run: the schedule leaves out what it does next.
	// HoldAfterStep holds it instead at its first record after its last
	// step's operation (nothing countable comes between them);
	// AfterUnlock is as for ReplayStep.
	Hold          int
	HoldAfterStep bool
	AfterUnlock   bool
}

// A ReplayStep lets goroutine Slot go on from position Gate (after Gate
// countable records) when its turn comes. A step at the same position as
// the goroutine's step before it is taken at the goroutine's first record
// after that step's operation (Same); AfterUnlock says that operation is
// Mutex.Unlock, whose own atomic follows its release.
type ReplayStep struct {
	Slot        int
	Gate        uint32
	Same        bool
	AfterUnlock bool
}

// A ReplayOutcome is what the recorder reports of a replay.
type ReplayOutcome struct {
	Attached bool // the recorder read the schedule
	Matched  int  // goroutines of the schedule matched in the run
	Turn     int  // steps run (or passed on)
	Skipped  int  // steps passed on because their goroutine made no progress
	// Missing is the first step passed on while its goroutine had not
	// reached its gate, or -1.
	Missing int
	Opened  bool // the total time ran out, and every gate opened
}

const (
	rpMagic      = 0x52504c59
	rpVersion    = 1
	rpHeaderSize = 64
)

// WriteSchedule writes s, for the test binary bin, to path, as the
// recorder reads it (SEER_REPLAY).
func WriteSchedule(path, bin string, s *ReplaySchedule) error {
	ranges, err := countableRanges(bin)
	if err != nil {
		return err
	}
	return os.WriteFile(path, encodeSchedule(s, ranges), 0o600)
}

// encodeSchedule lays s out as recorder.c's struct rp_header, rp_gor[],
// rp_step[] and the countable pc ranges.
func encodeSchedule(s *ReplaySchedule, ranges []uint64) []byte {
	le := binary.LittleEndian
	var b []byte
	u32 := func(v uint32) { b = le.AppendUint32(b, v) }
	stall, absent, total := s.Stall, s.Absent, s.Total
	if stall <= 0 {
		stall = 100 * time.Millisecond
	}
	if absent <= 0 {
		absent = 2 * time.Second
	}
	if total <= 0 {
		total = 20 * time.Second
	}
	u32(rpMagic)
	u32(rpVersion)
	u32(uint32(len(s.Goroutines)))
	u32(uint32(len(s.Steps)))
	u32(uint32(len(ranges) / 2))
	u32(uint32(stall / time.Microsecond))
	u32(uint32(total / time.Millisecond))
	u32(uint32(absent / time.Millisecond))
	for len(b) < rpHeaderSize {
		u32(0)
	}
	for _, g := range s.Goroutines {
		flags, hold := uint32(0), uint32(0)
		if g.Enforced {
			flags = 1
		}
		if g.HoldAfterStep {
			flags |= 2
			if g.AfterUnlock {
				flags |= 4
			}
		}
		if g.Hold >= 0 {
			hold = uint32(g.Hold) + 1
		}
		u32(uint32(int32(g.Parent)))
		u32(uint32(g.Index))
		u32(flags)
		u32(hold)
	}
	for _, st := range s.Steps {
		flags := uint32(0)
		if st.Same {
			flags |= 1
		}
		if st.AfterUnlock {
			flags |= 2
		}
		u32(uint32(st.Slot))
		u32(st.Gate)
		u32(flags)
		u32(0)
	}
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	for _, r := range ranges {
		b = le.AppendUint64(b, r)
	}
	return b
}

// ReadOutcome reads what the recorder wrote back into the schedule file.
func ReadOutcome(path string) (*ReplayOutcome, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < rpHeaderSize {
		return nil, fmt.Errorf("replay schedule %s: cut short", path)
	}
	le := binary.LittleEndian
	w := func(k int) int { return int(le.Uint32(b[32+4*k:])) }
	o := &ReplayOutcome{
		Attached: w(0) != 0,
		Turn:     w(1),
		Skipped:  w(2),
		Missing:  w(3) - 1,
		Opened:   w(4) != 0,
		Matched:  w(5),
	}
	return o, nil
}
