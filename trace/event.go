// This file defines the event model shared by every analysis: Op, SyncKind,
// Event and EventValue.

package trace

import "fmt"

// Op is what an event does, in Go terms. Ops are classified from the race
// runtime's annotations and the call stack at which they were made (see
// classify.go); an annotation that matches no Go construct keeps a generic op
// (OpAcquire, OpRelease, ...) so that no happens-before edge is ever lost.
type Op uint8

const (
	OpInvalid Op = iota

	// Memory accesses. Addr and Size give the bytes touched.
	OpRead
	OpWrite

	// Goroutine life cycle. OpGo is in the parent, at the go statement, with
	// Peer = the child goroutine id. OpStart is the first event of every
	// goroutine but the first, with Peer = the parent. OpEnd is its exit.
	// OpJoin (STD traces only) waits for goroutine Peer to end.
	OpGo
	OpStart
	OpEnd
	OpJoin

	// Locks. Obj is the sync.Mutex or sync.RWMutex. OpLock is Mutex.Lock, a
	// successful TryLock, or RWMutex.Lock; OpRLock/OpRUnlock are RWMutex's
	// shared mode. Analyses treat these as locks, not as fixed orderings.
	OpLock
	OpUnlock
	OpRLock
	OpRUnlock

	// Channels. Obj is the channel. A send and the receive that took its
	// value are linked: the receive's Peer is the index of the send event
	// when the runtime's annotations make the match exact, else -1.
	OpSend
	OpRecv
	OpClose

	// sync.WaitGroup. OpWGAdd's value (see Trace.Value) is the delta.
	OpWGAdd
	OpWGDone
	OpWGWait

	// sync.Cond (derived from the function-entry stream: Cond has no race
	// annotations of its own; its mutex operations appear as lock events).
	OpCondWait
	OpCondSignal
	OpCondBroadcast

	// sync.Once: the atomic load that saw Do already done, and the store
	// that marks it done.
	OpOnceCheck
	OpOnceDone

	// sync/atomic. The event's value (see Trace.Value) is the value loaded
	// (load), stored (store) or the new value (read-modify-write); its old
	// value is the previous value for RMW ops. A failed compare-and-swap is
	// an OpAtomicLoad.
	OpAtomicLoad
	OpAtomicStore
	OpAtomicRMW

	// Generic synchronisation on Addr, with the meaning ThreadSanitizer gives
	// it (see SyncKind).
	OpAcquire
	OpRelease
	OpReleaseMerge
	OpReleaseAcquire

	// Transaction boundaries for atomicity checking: STD begin/end, or the
	// entry and exit of a //seer:atomic function.
	OpTxBegin
	OpTxEnd

	numOps
)

var opNames = [...]string{
	OpInvalid:        "invalid",
	OpRead:           "read",
	OpWrite:          "write",
	OpGo:             "go",
	OpStart:          "start",
	OpEnd:            "end",
	OpJoin:           "join",
	OpLock:           "lock",
	OpUnlock:         "unlock",
	OpRLock:          "rlock",
	OpRUnlock:        "runlock",
	OpSend:           "send",
	OpRecv:           "recv",
	OpClose:          "close",
	OpWGAdd:          "add",
	OpWGDone:         "done",
	OpWGWait:         "wait",
	OpCondWait:       "cond-wait",
	OpCondSignal:     "signal",
	OpCondBroadcast:  "broadcast",
	OpOnceCheck:      "once-check",
	OpOnceDone:       "once-done",
	OpAtomicLoad:     "atomic-load",
	OpAtomicStore:    "atomic-store",
	OpAtomicRMW:      "atomic-rmw",
	OpAcquire:        "acquire",
	OpRelease:        "release",
	OpReleaseMerge:   "release-merge",
	OpReleaseAcquire: "release-acquire",
	OpTxBegin:        "begin",
	OpTxEnd:          "commit",
}

func (op Op) String() string {
	if int(op) < len(opNames) && opNames[op] != "" {
		return opNames[op]
	}
	return fmt.Sprintf("op(%d)", uint8(op))
}

// IsAccess reports whether op is a plain memory access.
func (op Op) IsAccess() bool { return op == OpRead || op == OpWrite }

// IsAtomic reports whether op is a sync/atomic operation (including the
// atomics inside sync.Once).
func (op Op) IsAtomic() bool {
	switch op {
	case OpAtomicLoad, OpAtomicStore, OpAtomicRMW, OpOnceCheck, OpOnceDone:
		return true
	}
	return false
}

// IsLock reports whether op acquires or releases a lock (exclusive or shared).
func (op Op) IsLock() bool { return op >= OpLock && op <= OpRUnlock }

// IsMarker reports whether op marks a transaction's boundary (OpTxBegin,
// OpTxEnd) rather than something its goroutine did: conversion adds an
// OpTxEnd for every goroutine still in a transaction when the run ended.
func (op Op) IsMarker() bool { return op == OpTxBegin || op == OpTxEnd }

// SyncKind is the happens-before meaning of a synchronisation event, exactly
// as ThreadSanitizer defines it for Go (LLVM tsan_go.cpp):
//
//   - Acquire: ordered after the latest Release or ReleaseAcquire on the same
//     address and after every ReleaseMerge on it since then.
//   - Release: replaces the address's clock with the goroutine's.
//   - ReleaseMerge: joins the goroutine's clock into the address's clock.
//   - ReleaseAcquire: both at once (the acquire sees the old clock).
//
// Atomics are modelled by read-from over their exact per-address order:
// loads acquire, stores release, read-modify-writes release-acquire.
// Lock events carry their tsan meaning too, but analyses that treat locks
// as locks ignore it.
type SyncKind uint8

const (
	SyncNone SyncKind = iota
	SyncAcquire
	SyncRelease
	SyncReleaseMerge
	SyncReleaseAcquire
)

func (k SyncKind) String() string {
	return [...]string{"none", "acquire", "release", "release-merge", "release-acquire"}[k]
}

// Acquires reports whether k has an acquire half.
func (k SyncKind) Acquires() bool { return k == SyncAcquire || k == SyncReleaseAcquire }

// Releases reports whether k has a release half.
func (k SyncKind) Releases() bool { return k >= SyncRelease }

// GoID identifies a goroutine within one trace. Ids are small, dense and
// start at 1 (the goroutine that ran the first event).
type GoID int32

// ObjID identifies an object within one trace: a variable or heap object for
// accesses, a mutex, channel, WaitGroup, ... for synchronisation. Ids are
// dense, start at 1, and are assigned in order of first appearance, so the
// same run always gives the same ids.
type ObjID uint32

// StackID identifies an interned call stack (see Trace.Stack). 0 is the
// empty stack.
type StackID uint32

// Event is one thing a goroutine did. Events of a Trace are in the order
// they happened (for synchronisation on one object and for atomics on one
// address that order is exact; see the recorder's notes on plain accesses).
//
// An Event takes 32 bytes, and a trace may hold tens of millions of them:
// the values of atomics and WaitGroup.Add, which few events carry, are kept
// apart in Trace.Values.
type Event struct {
	Addr  uint64  // address accessed or synchronised on
	G     GoID    // the goroutine
	Peer  int32   // OpGo/OpStart/OpJoin: goroutine; OpRecv: send event index or -1
	Obj   ObjID   // the object (see ObjID)
	Stack StackID // call stack, innermost frame first
	Size  uint32  // bytes accessed (accesses and atomics)
	Op    Op
	Sync  SyncKind // happens-before meaning (SyncNone for non-sync events)
}

// EventValue holds the values carried by event Event, an index in
// Trace.Events. For atomics, Value is the value loaded, stored or the new
// value of a read-modify-write, and Old the previous value; for OpWGAdd,
// Value is the delta.
type EventValue struct {
	Event      int // index in Trace.Events
	Value, Old uint64
}

// End returns one past the last byte the event touches.
func (e *Event) End() uint64 { return e.Addr + uint64(e.Size) }

// Overlaps reports whether e and f touch a common byte.
func (e *Event) Overlaps(f *Event) bool {
	return e.Addr < f.End() && f.Addr < e.End()
}
