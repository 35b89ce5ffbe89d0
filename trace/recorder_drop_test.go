// This file tests recorderDrops, the rule by which the recorder leaves out
// atomics the converter ignores (classify.go; recorder.c, "atomics the
// converter drops"): the rule itself, recorder.c's copy of it, and that a
// spool with those atomics converts to the same trace as one without.

package trace

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// recorderDropCases are frames of an atomic's caller pc (innermost first)
// and whether the recorder may leave the atomic out.
var recorderDropCases = []struct {
	frames []string
	drop   bool
}{
	{[]string{"sync/atomic.(*Pointer[go.shape.struct { internal/sync.isEntry bool }]).Load", "internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).Load"}, true},
	{[]string{"internal/sync.(*HashTrieMap[go.shape.interface {},go.shape.interface {}]).iter"}, true},
	{[]string{"sync.(*copyChecker).check", "sync.(*Cond).Signal"}, true},
	{[]string{"sync.(*Cond).Wait"}, true},
	// Kept though atomicClass drops them: Mutex's become reads, WaitGroup's
	// and RWMutex's are followed by race annotations that take their stack.
	{[]string{"internal/sync.(*Mutex).Lock", "sync.(*Mutex).Lock", "sync.(*HashTrieMap).Store"}, false},
	{[]string{"sync/atomic.(*Int32).CompareAndSwap", "internal/sync.(*Mutex).Lock", "internal/sync.(*HashTrieMap[go.shape.int,go.shape.int]).Store"}, false},
	{[]string{"sync.(*WaitGroup).Add"}, false},
	{[]string{"sync/atomic.(*Int32).Add", "sync.(*RWMutex).RLock"}, false},
	{[]string{"sync.(*Once).Do"}, false},
	{[]string{"sync/atomic.(*Int64).Add", "example.com/p.TestX"}, false},
	// A user's function inlined into sync.Map's (Range's callback): the
	// innermost frame decides.
	{[]string{"example.com/p.f", "internal/sync.(*HashTrieMap[go.shape.int,go.shape.int]).Range"}, false},
	// The record's first pc is often sync/atomic's ABI wrapper's, or
	// sync/atomic.StorePointer's: the next pc's frames decide.
	{[]string{"sync/atomic.LoadPointer", "sync/atomic.(*Pointer[go.shape.int]).Load", "internal/sync.(*HashTrieMap[go.shape.int,go.shape.int]).Load"}, true},
	{[]string{"sync/atomic.StorePointer", "sync/atomic.(*Pointer[go.shape.int]).Store", "internal/sync.(*HashTrieMap[go.shape.int,go.shape.int]).expand"}, true},
	{[]string{"sync/atomic.AddInt32", "example.com/p.TestX", "internal/sync.(*HashTrieMap[go.shape.int,go.shape.int]).Load"}, false},
	// Undecided: frames the recorder could not name, or only sync/atomic's.
	{[]string{"0x4f2a10"}, false},
	{[]string{"sync/atomic.LoadInt32"}, false},
	{nil, false},
}

// cRule evaluates recorder.c's atomic_frame_verdict, read from its
// source: the strncmp prefixes of its "look further" and "drop" returns.
// It fails t if a prefix's length argument is not the prefix's length.
func cRule(t *testing.T) func(frames []string) bool {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("record", "runtime", "recorder.c"))
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	i := strings.Index(body, "static int atomic_frame_verdict(const char *fn, uptr line, void *arg) {")
	if i < 0 {
		t.Fatal("recorder.c has no atomic_frame_verdict")
	}
	body = body[i:]
	body = body[:strings.Index(body, "\n}\n")]
	var skip, drop []string
	cmp := regexp.MustCompile(`strncmp\(fn, "([^"]+)", (\d+)\) == 0`)
	// Each if's condition precedes its return.
	for _, part := range regexp.MustCompile(`(?s)if \((.*?)\)\s*return (-?\d);`).FindAllStringSubmatch(body, -1) {
		var prefixes []string
		for _, m := range cmp.FindAllStringSubmatch(part[1], -1) {
			if n, _ := strconv.Atoi(m[2]); n != len(m[1]) {
				t.Errorf("recorder.c compares %d bytes of %q, which has %d", n, m[1], len(m[1]))
			}
			prefixes = append(prefixes, m[1])
		}
		switch part[2] {
		case "-1":
			skip = append(skip, prefixes...)
		case "1":
			drop = append(drop, prefixes...)
		}
	}
	if len(skip) == 0 || len(drop) == 0 {
		t.Fatalf("recorder.c's atomic_frame_verdict: read no prefixes (skip %q, drop %q)", skip, drop)
	}
	has := func(fn string, ps []string) bool {
		for _, p := range ps {
			if strings.HasPrefix(fn, p) {
				return true
			}
		}
		return false
	}
	return func(frames []string) bool {
		for _, fn := range frames {
			if has(fn, skip) {
				continue
			}
			return has(fn, drop)
		}
		return false
	}
}

// TestRecorderDropsRule checks recorderDrops on its table, and that
// recorder.c's rule agrees with it there, and that what it drops
// atomicClass drops, and mutexInternal and isWaitGroupAdd do not hold of.
func TestRecorderDropsRule(t *testing.T) {
	c := cRule(t)
	for _, tc := range recorderDropCases {
		frames := make([]Frame, len(tc.frames))
		for i, fn := range tc.frames {
			frames[i] = Frame{Func: fn, File: "/usr/local/go/src/sync/x.go", Line: 1}
			if strings.HasPrefix(fn, "example.com/") {
				frames[i].File = "/home/u/p/p.go"
			}
		}
		if got := recorderDrops(frames); got != tc.drop {
			t.Errorf("recorderDrops(%q) = %v, want %v", tc.frames, got, tc.drop)
		}
		if got := c(tc.frames); got != tc.drop {
			t.Errorf("recorder.c's atomic_frame_verdict on %q: drop %v, want %v (keep it in step with recorderDrops)", tc.frames, got, tc.drop)
		}
		if tc.drop {
			if _, drop := atomicClass(frames); !drop || mutexInternal(frames) || isWaitGroupAdd(frames) {
				t.Errorf("%q: the recorder drops it, but the converter would not ignore it", tc.frames)
			}
		}
	}
}

// symRecs encodes the symbol records of pc: its frames, innermost first.
func symRecs(pc uint64, frames ...Frame) []byte {
	var b []byte
	le := binary.LittleEndian
	for i, f := range frames {
		depth := uint64(i)
		if i == len(frames)-1 {
			depth |= symLast
		}
		b = le.AppendUint64(b, pc<<8|rSym)
		b = le.AppendUint64(b, depth<<32|uint64(f.Line))
		b = le.AppendUint64(b, uint64(len(f.Func))<<16|uint64(len(f.File)))
		s := []byte(f.Func + f.File)
		for len(s)%8 != 0 {
			s = append(s, 0)
		}
		b = append(b, s...)
	}
	return b
}

// TestRecorderDropSameTrace converts a spool with atomics that
// recorderDrops selects, and the same spool without them (as the recorder
// leaves them out: no record, no sequence number), and wants the same
// trace, byte for byte. The atomics dropped are a goroutine's first
// records in a test function (where its test is found), right before a
// race annotation (which takes the stack of an atomic inside a sync
// primitive the converter drops, lastPrim), and at the address of a
// user's atomics; the user's, Once's and Mutex's atomics stay.
func TestRecorderDropSameTrace(t *testing.T) {
	const (
		pcRunner = 0x1000 + iota*0x10
		pcTest
		pcMap
		pcCond
		pcAnn
		pcUser
		pcOnce
		pcMutex
		pcWrite
		pcWrap
	)
	user := "/home/u/p/p_test.go"
	syms := [][]byte{
		symRecs(pcRunner, Frame{Func: "testing.tRunner", File: "/usr/local/go/src/testing/testing.go", Line: 1934}),
		symRecs(pcTest, Frame{Func: "example.com/p.TestX", File: user, Line: 10}),
		symRecs(pcMap, Frame{Func: "sync/atomic.(*Pointer[go.shape.int]).Load", File: "/usr/local/go/src/sync/atomic/type.go", Line: 58},
			Frame{Func: "internal/sync.(*HashTrieMap[go.shape.int,go.shape.int]).Load", File: "/usr/local/go/src/internal/sync/hashtriemap.go", Line: 70}),
		symRecs(pcCond, Frame{Func: "sync.(*copyChecker).check", File: "/usr/local/go/src/sync/cond.go", Line: 105},
			Frame{Func: "sync.(*Cond).Signal", File: "/usr/local/go/src/sync/cond.go", Line: 83}),
		symRecs(pcAnn, Frame{Func: "runtime.raceread", File: "/usr/local/go/src/runtime/race_amd64.s", Line: 1}),
		symRecs(pcUser, Frame{Func: "sync/atomic.(*Int32).Add", File: "/usr/local/go/src/sync/atomic/type.go", Line: 70},
			Frame{Func: "example.com/p.TestX", File: user, Line: 12}),
		symRecs(pcOnce, Frame{Func: "sync.(*Once).Do", File: "/usr/local/go/src/sync/once.go", Line: 69}),
		symRecs(pcMutex, Frame{Func: "internal/sync.(*Mutex).Lock", File: "/usr/local/go/src/internal/sync/mutex.go", Line: 63}),
		symRecs(pcWrite, Frame{Func: "example.com/p.TestX", File: user, Line: 14}),
		symRecs(pcWrap, Frame{Func: "sync/atomic.AddInt32", File: "<autogenerated>", Line: 1}),
	}
	le := binary.LittleEndian
	enter := func(pc uint64) []byte { return le.AppendUint64(nil, pc<<8|rEnter) }
	const x, y, mu = 0xc000010000, 0xc000020000, 0xc000030000
	atomicRec := func(seq uint64, addr uint64, op uint8, value, old uint64, pcs ...uint64) []byte {
		words := []uint64{addr, uint64(op)<<16 | 4, value, old, uint64(len(pcs))}
		return spoolRec(seq, rAtomic, append(words, pcs...)...)
	}
	type rec struct {
		b       []byte
		dropped bool
	}
	g1 := []rec{
		{enter(pcRunner), false},
		{enter(pcTest), false},
		{atomicRec(1, x, aLoad, 0, 0, pcMap, pcTest), true},
		{atomicRec(2, x, aCAS, 1, 0, pcMap, pcTest), true},
		{spoolRec(3, rRead, y, pcAnn<<8|8), false},
		{atomicRec(4, x, aAdd, 2, 1, pcWrap, pcUser), false},
		{atomicRec(5, x, aLoad, 2, 0, pcWrap, pcMap, pcTest), true},
		{atomicRec(6, y, aLoad, 0, 0, pcOnce, pcTest), false},
		{atomicRec(7, mu, aCAS, 1, 0, pcMutex, pcTest), false},
		{atomicRec(8, mu, aCAS, 0, 0, pcCond, pcTest), true},
		{spoolRec(9, rRead, y, pcAnn<<8|8), false},
		{spoolRec(10, rWrite, y, pcWrite<<8|8), false},
		{spoolRec(11, rEnd), false},
	}
	convert := func(withDropped bool) []byte {
		var g, s []byte
		for _, r := range g1 {
			if withDropped || !r.dropped {
				g = append(g, r.b...)
			}
		}
		for _, b := range syms {
			s = append(s, b...)
		}
		path := filepath.Join(t.TempDir(), "spool")
		writeSpool(t, path, map[uint32][]byte{0: s, 1: g})
		tr, err := Convert(path, "", "", Header{}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ops []Op
		for _, e := range tr.Events {
			ops = append(ops, e.Op)
		}
		if got := strings.Join(opStrings(ops), " "); !strings.Contains(got, "atomic-rmw once-check read") {
			t.Errorf("with the dropped records %v: events %v: want the user's add, Once's load and Mutex's read kept", withDropped, opStrings(ops))
		}
		var buf bytes.Buffer
		if err := WriteTrace(&buf, tr); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	with, without := convert(true), convert(false)
	if !bytes.Equal(with, without) {
		t.Errorf("the trace with the atomics the recorder drops (%d bytes) differs from the one without them (%d bytes)", len(with), len(without))
	}
}

func opStrings(ops []Op) []string {
	var s []string
	for _, op := range ops {
		s = append(s, op.String())
	}
	return s
}
