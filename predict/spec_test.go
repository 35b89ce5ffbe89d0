// This file holds the serial specifications that the test oracles of
// this package (the naive replay in checkprop_test.go, the exhaustive
// enumeration in oracle_test.go) replay against: which events read and
// write memory, what an acquire sees, and the lock state machine. They
// restate package witness's on purpose, so that an oracle does not share
// the checker's code.

package predict

import "github.com/seer-tools/seer/trace"

func chkReads(op trace.Op) bool {
	return op == trace.OpRead || op == trace.OpAtomicLoad || op == trace.OpOnceCheck || op == trace.OpAtomicRMW
}

func chkWrites(op trace.Op) bool {
	return op == trace.OpWrite || op == trace.OpAtomicStore || op == trace.OpOnceDone || op == trace.OpAtomicRMW
}

func chkMem(e *trace.Event) bool { return e.Size > 0 && (e.Op.IsAccess() || e.Op.IsAtomic()) }

// chkSync reports whether e is synchronisation kept as observed (not a
// lock, not an atomic, not a goroutine life-cycle event).
func chkSync(e *trace.Event) bool {
	if e.Sync == trace.SyncNone || e.Op.IsLock() || e.Op.IsAtomic() || e.Op.IsAccess() {
		return false
	}
	switch e.Op {
	case trace.OpGo, trace.OpStart, trace.OpEnd, trace.OpJoin, trace.OpTxBegin, trace.OpTxEnd:
		return false
	}
	return true
}

// syncState is what an acquire sees: the latest release and the merges
// since.
type syncState struct {
	rel    int
	merges []int
}

func (s syncState) equal(o syncState) bool {
	if s.rel != o.rel || len(s.merges) != len(o.merges) {
		return false
	}
	seen := make(map[int]bool, len(s.merges))
	for _, m := range s.merges {
		seen[m] = true
	}
	for _, m := range o.merges {
		if !seen[m] {
			return false
		}
	}
	return true
}

func (s *syncState) apply(e *trace.Event, i int) {
	switch e.Sync {
	case trace.SyncRelease, trace.SyncReleaseAcquire:
		s.rel, s.merges = i, nil
	case trace.SyncReleaseMerge:
		s.merges = append(s.merges, i)
	}
}

// lockState is a lock's serial state: held exclusively, or by readers.
type lockState struct {
	writer  bool
	readers int32
}

// step applies lock operation op; false if the specification forbids it.
func (l *lockState) step(op trace.Op) bool {
	switch op {
	case trace.OpLock:
		if l.writer || l.readers > 0 {
			return false
		}
		l.writer = true
	case trace.OpRLock:
		if l.writer {
			return false
		}
		l.readers++
	case trace.OpUnlock:
		if !l.writer {
			return false
		}
		l.writer = false
	case trace.OpRUnlock:
		if l.readers == 0 {
			return false
		}
		l.readers--
	}
	return true
}

func lockError(op trace.Op) string {
	switch op {
	case trace.OpLock:
		return "acquired while held"
	case trace.OpRLock:
		return "read lock acquired while write-held"
	case trace.OpUnlock:
		return "unlock of a lock not held"
	}
	return "read unlock of a lock not read-held"
}
