// This file implements the classification of the race runtime's
// synchronisation annotations in Go terms: which Go operation made an
// acquire or release, decided from the call stack at which it was made
// (with inlined frames, since sync.(*Mutex).Lock is inlined into callers).
// See ../../shared/design/recorder-notes.md for what each primitive tells
// the race runtime.

package trace

import "strings"

// syncClass is what classification decided for one annotation.
type syncClass struct {
	op   Op
	kind ObjKind
	off  int64 // subtract from the annotated address to get the object's
	drop bool  // internal to a primitive already represented by another event
}

// classifySync classifies an acquire/release annotation made with the given
// frames (innermost first: the Go frames above the annotation). behalf is
// set when the runtime made it for a parked goroutine (the partner of a
// channel operation), so the frames are the partner's.
func classifySync(frames []Frame, sync SyncKind, behalf bool, selectDir func(Frame) Op) syncClass {
	for _, f := range frames {
		switch f.Func {
		case "internal/sync.(*Mutex).Lock", "internal/sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock",
			"internal/sync.(*Mutex).TryLock", "sync.(*Mutex).TryLock":
			return syncClass{op: OpLock, kind: ObjMutex}
		case "internal/sync.(*Mutex).Unlock", "sync.(*Mutex).Unlock", "internal/sync.(*Mutex).unlockSlow":
			return syncClass{op: OpUnlock, kind: ObjMutex}
		case "sync.(*RWMutex).RLock", "sync.(*RWMutex).TryRLock":
			return syncClass{op: OpRLock, kind: ObjRWMutex, off: rwReaderSem}
		case "sync.(*RWMutex).RUnlock", "sync.(*RWMutex).rUnlockSlow":
			return syncClass{op: OpRUnlock, kind: ObjRWMutex, off: rwWriterSem}
		case "sync.(*RWMutex).Lock", "sync.(*RWMutex).TryLock":
			// Lock acquires &readerSem, then &writerSem; the second adds
			// nothing to the lock semantics (see convert.go).
			return syncClass{op: OpLock, kind: ObjRWMutex, off: rwReaderSem}
		case "sync.(*RWMutex).Unlock":
			return syncClass{op: OpUnlock, kind: ObjRWMutex, off: rwReaderSem}
		case "sync.(*Cond).Wait":
			return syncClass{op: OpCondWait, kind: ObjCond}
		case "sync.(*Cond).Signal":
			return syncClass{op: OpCondSignal, kind: ObjCond}
		case "sync.(*Cond).Broadcast":
			return syncClass{op: OpCondBroadcast, kind: ObjCond}
		case "sync.(*WaitGroup).Wait":
			return syncClass{op: OpWGWait, kind: ObjWaitGroup}
		case "sync.(*WaitGroup).Done":
			return syncClass{op: OpWGDone, kind: ObjWaitGroup}
		case "sync.(*WaitGroup).Add":
			// Only Add with a negative delta releases.
			return syncClass{op: OpWGDone, kind: ObjWaitGroup}
		case "runtime.closechan":
			if behalf {
				return syncClass{op: OpRecv, kind: ObjChan}
			}
			return syncClass{op: OpClose, kind: ObjChan}
		case "runtime.chansend", "runtime.chansend1", "runtime.selectnbsend", "runtime.send":
			if behalf {
				return syncClass{op: OpRecv, kind: ObjChan}
			}
			return syncClass{op: OpSend, kind: ObjChan}
		case "runtime.chanrecv", "runtime.chanrecv1", "runtime.chanrecv2", "runtime.selectnbrecv", "runtime.recv":
			if behalf {
				return syncClass{op: OpSend, kind: ObjChan}
			}
			return syncClass{op: OpRecv, kind: ObjChan}
		case "runtime.selectgo":
			op := selectDir(f)
			if op == OpInvalid {
				if sync.Acquires() {
					op = OpRecv
				} else {
					op = OpSend
				}
			}
			if behalf {
				if op == OpSend {
					op = OpRecv
				} else {
					op = OpSend
				}
			}
			return syncClass{op: op, kind: ObjChan}
		}
	}
	return syncClass{op: genericOp(sync), kind: ObjSync}
}

// Offsets of sync.RWMutex's semaphores (w Mutex is 8 bytes, then writerSem
// and readerSem). The recorder's tests check them against the toolchain.
const (
	rwWriterSem = 8
	rwReaderSem = 12
)

func genericOp(k SyncKind) Op {
	switch k {
	case SyncAcquire:
		return OpAcquire
	case SyncRelease:
		return OpRelease
	case SyncReleaseMerge:
		return OpReleaseMerge
	}
	return OpReleaseAcquire
}

// atomicClass classifies a sync/atomic operation by its frames: atomics
// inside sync.Mutex, RWMutex and WaitGroup implement those primitives (which
// have their own events) and are dropped; those in sync.Once are Once's.
// Some of the dropped the recorder does not record at all (recorderDrops).
func atomicClass(frames []Frame) (op Op, drop bool) {
	for _, f := range frames {
		fn := f.Func
		switch {
		case strings.HasPrefix(fn, "internal/sync.(*Mutex)."), strings.HasPrefix(fn, "sync.(*Mutex)."),
			strings.HasPrefix(fn, "sync.(*RWMutex)."), strings.HasPrefix(fn, "sync.(*WaitGroup)."),
			strings.HasPrefix(fn, "internal/sync.(*HashTrieMap"), strings.HasPrefix(fn, "sync.(*copyChecker)."),
			strings.HasPrefix(fn, "sync.(*Cond)."):
			return OpInvalid, true
		case strings.HasPrefix(fn, "sync.(*Once)."):
			return OpOnceCheck, false
		case strings.HasPrefix(fn, "sync/atomic."):
			continue
		default:
			if IsUserFrame(f, "") || !strings.HasPrefix(fn, "sync.") {
				return OpInvalid, false
			}
		}
	}
	return OpInvalid, false
}

// recorderDrops reports whether an atomic whose record's pcs have these
// frames (the frames of each pc, innermost inlined frame first, in the
// order of the record's pcs: its caller pc, often sync/atomic's ABI
// wrapper, then the frame-pointer chain) is one the converter ignores and
// the recorder need not record: sync/atomic's frames skipped, the first
// other frame is sync.Map's (internal/sync.HashTrieMap), sync.Cond's or
// its copyChecker's. atomicClass drops these, mutexInternal and
// isWaitGroupAdd do not hold of them, and no race annotation follows them
// in their primitive's code (the converter gives one that follows an
// atomic of WaitGroup or RWMutex that atomic's stack, lastPrim). The
// other atomics atomicClass drops are kept: Mutex's become reads, and
// WaitGroup's and RWMutex's annotations need their stack.
//
// recorder.c's atomic_frame_verdict is the same rule, for the recorder,
// which performs such an atomic without recording it (trace/record,
// AtomicDropEnv); keep the two in step (TestRecorderDropsRule reads its
// prefixes and runs both over recorderDropCases). The converter ignores
// these records whether the recorder wrote them or not (visit), so that
// the trace is the same either way.
func recorderDrops(frames []Frame) bool { return recorderVerdict(frames) == verdictDrop }

// dropVerdict is recorderVerdict's answer for some frames of an atomic.
type dropVerdict int8

const (
	// verdictUndecided: sync/atomic's frames only; the frames that come
	// next decide.
	verdictUndecided dropVerdict = iota - 1
	// verdictKeep: the atomic is recorded.
	verdictKeep
	// verdictDrop: the atomic is performed without a record.
	verdictDrop
)

// recorderVerdict is recorderDrops's rule over some frames.
func recorderVerdict(frames []Frame) dropVerdict {
	for _, f := range frames {
		switch fn := f.Func; {
		case strings.HasPrefix(fn, "sync/atomic."):
			continue
		case strings.HasPrefix(fn, "internal/sync.(*HashTrieMap"), strings.HasPrefix(fn, "sync.(*copyChecker)."),
			strings.HasPrefix(fn, "sync.(*Cond)."):
			return verdictDrop
		}
		return verdictKeep
	}
	return verdictUndecided
}

// mutexInternal reports whether an atomic with these frames (innermost
// first) is sync.Mutex's own: the compare-and-swap of Lock, the add of
// Unlock (also for RWMutex's writer mutex). The race detector sees them as
// atomic accesses, so a plain write to a mutex in use races with them; as
// two of them never race, they are kept as reads.
func mutexInternal(frames []Frame) bool {
	for _, f := range frames {
		switch {
		case strings.HasPrefix(f.Func, "sync/atomic."), strings.HasPrefix(f.Func, "internal/runtime/atomic."):
			continue
		case strings.HasPrefix(f.Func, "internal/sync.(*Mutex)."), strings.HasPrefix(f.Func, "sync.(*Mutex)."):
			return true
		}
		return false
	}
	return false
}

// raceAnnotation reports whether the frames of an access's pc are those of
// runtime.RaceRead and its kin, which uninstrumented packages call to
// annotate an access (the pc is then the annotation's, not the caller's).
func raceAnnotation(frames []Frame) bool {
	if len(frames) == 0 {
		return false
	}
	switch frames[0].Func {
	case "runtime.raceread", "runtime.racewrite", "runtime.racereadrange", "runtime.racewriterange":
		return true
	}
	return false
}

// mapUpdateFunc reports whether fn, the function a write of the race
// runtime is made in, is one of the runtime's map updates: an
// assignment, a delete or a clear, the runtime's own (m[k] = v, delete,
// clear) or reflect's. The race runtime sees a map as its header alone:
// an update writes it and a lookup or an iteration reads it, while what
// they change and read, the map's entries, it does not see. So a lookup
// depends on every update before it, not only on the last one, and an
// update on the updates before it; a predicted schedule that moves an
// insert after a delete moves what an iteration finds (pond's futures:
// context's children map, where an iteration after a delete found the
// insert the witness had moved after it). The converter makes each
// update a read of the map and then its write (converter.access), so
// that a sound reordering keeps the updates of a map in their order, as
// it keeps the writer each read reads from.
func mapUpdateFunc(fn string) bool {
	name, ok := strings.CutPrefix(fn, "runtime.")
	if !ok {
		name, ok = strings.CutPrefix(fn, "internal/runtime/maps.")
	}
	if !ok {
		name, ok = strings.CutPrefix(fn, "reflect.")
	}
	if !ok {
		return false
	}
	name = strings.TrimPrefix(name, "reflect_")
	name = strings.TrimPrefix(name, "runtime_")
	for _, p := range []string{"mapassign", "mapdelete", "mapclear"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// noInstrument reports whether a physical function belongs to a package
// the compiler does not instrument under -race (the runtime and its
// dependencies), so that it has no function-entry record.
func noInstrument(fn string) bool {
	for _, p := range []string{"runtime.", "runtime/race.", "internal/runtime/", "internal/abi.", "internal/bytealg.",
		"internal/cpu.", "internal/goarch.", "internal/goos.", "internal/chacha8rand.", "internal/godebugs.",
		"internal/stringslite.", "internal/strconv.", "internal/byteorder.", "internal/race.", "sync/atomic."} {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// plumbing reports whether f is part of how an annotation or an atomic
// reaches the race runtime (race.go's wrappers, internal/race, ABI
// wrappers), which stacks leave out.
func plumbing(f Frame) bool {
	fn := f.Func
	return f.File == "<autogenerated>" || strings.HasPrefix(fn, "runtime.race") || strings.HasPrefix(fn, "runtime.Race") ||
		strings.HasPrefix(fn, "internal/race.") || strings.HasPrefix(fn, "runtime.racecall")
}
