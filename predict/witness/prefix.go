// This file implements the witness checker's work per finding (see
// check.go): checking that the prefix P is consistent by walking X, the
// events below Prefix that the schedule leaves out or runs later, and the
// observed events that depend on them; then replaying Witness from the
// state after P, found from the indices of index.go.

package witness

import (
	"fmt"
	"slices"
	"sort"

	"github.com/seer-tools/seer/trace"
)

// checkPrefix checks that P is consistent: no event of P depends on one
// of X, and the locks' operations in P follow their specification.
func (s *fstate) checkPrefix() error {
	k, t := s.k, s.k.t
	for g := 1; g < k.ng; g++ {
		if j := k.goOf[g]; j >= 0 && s.b[g] > 0 && !s.inP(j) {
			return fmt.Errorf("prefix: goroutine %d starts but its go statement (event %d) is not in the prefix", g, j)
		}
	}
	for _, j := range k.joins {
		if j >= s.prefix {
			break
		}
		if s.inP(j) && s.b[t.Events[j].Peer] < k.joinN[j] {
			return fmt.Errorf("prefix: join %d before the joined goroutine's event %d", j, s.b[t.Events[j].Peer])
		}
	}
	s.xlocks = make(map[trace.ObjID][]int32)
	xsync := make(map[int32][]int32) // releases of X per sync address
	for g := 1; g < k.ng; g++ {
		nx := k.countBelow(g, int(s.prefix))
		for p := s.b[g]; p < nx; p++ {
			x := k.gEv[k.gOff[g]+p]
			e := &t.Events[x]
			if l := k.loc[x]; l >= 0 && k.hotID[l] >= 0 && chkMem(e) && chkWrites(e.Op) {
				for _, r := range k.readers(x) {
					if r >= s.prefix {
						break
					}
					if s.inP(r) && !s.exempt(r) {
						return fmt.Errorf("prefix: read %d sees writer %d, which the schedule does not run before it", r, x)
					}
				}
			}
			if chkSync(e) && e.Sync.Releases() {
				id := k.syncID[e.Addr]
				xsync[id] = append(xsync[id], x)
			}
			if e.Op.IsLock() {
				s.xlocks[e.Obj] = append(s.xlocks[e.Obj], x)
			}
		}
	}
	ids := make([]int32, 0, len(xsync))
	for id, xs := range xsync {
		slices.Sort(xs)
		ids = append(ids, id)
	}
	slices.Sort(ids) // deterministic errors
	for _, id := range ids {
		if err := s.syncDependents(id, xsync[id]); err != nil {
			return err
		}
	}
	locks := make([]trace.ObjID, 0, len(s.xlocks)+len(k.lockBad))
	for l, xs := range s.xlocks {
		slices.Sort(xs)
		locks = append(locks, l)
	}
	for l := range k.lockBad {
		if _, ok := s.xlocks[l]; !ok {
			locks = append(locks, l)
		}
	}
	slices.Sort(locks) // deterministic errors
	for _, l := range locks {
		if _, err := s.lockAtPrefix(l); err != nil {
			return err
		}
	}
	return nil
}

// syncDependents checks that no acquire of P saw one of xs, releases of
// X on one address (in order): the acquires after a release up to the
// next release that replaces the state (included: a ReleaseAcquire
// acquires first). Each acquire is looked at once.
func (s *fstate) syncDependents(id int32, xs []int32) error {
	k := s.k
	acqs, reps := k.acqEv[id], k.repEv[id]
	q := 0 // next acquire to look at
	for _, x := range xs {
		r, _ := slices.BinarySearch(reps, x+1)
		end := s.prefix // acquires before end saw x
		if r < len(reps) && reps[r] < end {
			end = reps[r] + 1
		}
		if a, _ := slices.BinarySearch(acqs, x+1); a > q {
			q = a
		}
		for ; q < len(acqs) && acqs[q] < end; q++ {
			if s.inP(acqs[q]) {
				return fmt.Errorf("prefix: acquire %d synchronises with %d, which the schedule does not run before it", acqs[q], x)
			}
		}
	}
	return nil
}

// lockAtPrefix returns the state of lock l after P, checking P's
// operations on it. Where P's state equals the observed one, P's next
// operations do what they did; only the stretches after an operation of
// X, until the states agree again, are replayed (all of them if the run
// itself broke the lock's specification).
func (s *fstate) lockAtPrefix(l trace.ObjID) (lockState, error) {
	k, t := s.k, s.k.t
	ops, after := k.lockOps[l], k.lockAfter[l]
	end := sort.Search(len(ops), func(j int) bool { return ops[j] >= s.prefix })
	observed := func(p int) lockState { // the run's state before ops[p]
		if p == 0 {
			return lockState{}
		}
		return after[p-1]
	}
	var st lockState
	if k.lockBad[l] {
		return st, s.badLockPrefix(l, ops[:end])
	}
	agree := true
	p := 0 // next operation to look at
	// replay runs P's operations in [p, q) until the states agree.
	replay := func(q int) error {
		for ; p < q && !agree; p++ {
			x := ops[p]
			if !s.inP(x) {
				continue
			}
			if !st.step(t.Events[x].Op) {
				return fmt.Errorf("prefix: lock operation %d: %s", x, lockError(t.Events[x].Op))
			}
			agree = st == after[p]
		}
		return nil
	}
	for _, x := range s.xlocks[l] { // X's operations on l, in order
		q, _ := slices.BinarySearch(ops, x)
		if err := replay(q); err != nil {
			return st, err
		}
		if agree {
			st = observed(q)
		}
		agree, p = false, q+1
	}
	if err := replay(end); err != nil {
		return st, err
	}
	if agree {
		st = observed(end)
	}
	return st, nil
}

// badLockPrefix checks P's operations on lock l, whose observed run
// breaks the lock's specification (a damaged or synthetic trace; in a
// real one, the throw of an unlock of an unlocked mutex). What such a lock
// does is known only for its observed order: P must run a prefix of its
// operations below Prefix (ops), in order, and Witness must go on with
// the next ones (s.badNext).
func (s *fstate) badLockPrefix(l trace.ObjID, ops []int32) error {
	q := 0
	for q < len(ops) && s.inP(ops[q]) {
		q++
	}
	for _, x := range ops[q:] {
		if s.inP(x) {
			return fmt.Errorf("prefix: lock operation %d runs before %d, against the observed order of a lock whose run breaks its specification", x, ops[q])
		}
	}
	if s.badNext == nil {
		s.badNext = make(map[trace.ObjID]int)
	}
	s.badNext[l] = q
	return nil
}

// replay runs Witness from the state after P.
func (s *fstate) replay() error {
	k, t := s.k, s.k.t
	next := append([]int32(nil), s.b...)
	done := make(map[int32]bool, len(s.f.Witness))
	mem := make(map[int32][]int32) // hot location -> Witness writes so far
	syn := make(map[uint64]*syncState)
	locks := make(map[trace.ObjID]*lockState)
	for step, ii := range s.f.Witness {
		i := int32(ii)
		e := &t.Events[i]
		g := e.G
		if int(g) <= 0 || int(g) >= k.ng || k.posOf[i] != next[g] {
			return fmt.Errorf("step %d: event %d is not the next event of goroutine %d", step, i, g)
		}
		if j := k.goOf[g]; j >= 0 && next[g] == 0 && !done[j] && !s.inP(j) {
			return fmt.Errorf("step %d: goroutine %d starts before its go statement (event %d)", step, g, j)
		}
		next[g]++
		if l := k.loc[i]; l >= 0 && k.hotID[l] >= 0 && chkMem(e) {
			if chkReads(e.Op) && !s.exempt(i) {
				if err := s.checkRead(i, mem[l]); err != nil {
					return fmt.Errorf("step %d: %v", step, err)
				}
			}
			if chkWrites(e.Op) {
				mem[l] = append(mem[l], i)
			}
		}
		if e.Op.IsLock() {
			l := locks[e.Obj]
			if l == nil {
				st, err := s.lockAtPrefix(e.Obj)
				if err != nil {
					return err
				}
				l = &st
				locks[e.Obj] = l
			}
			if k.lockBad[e.Obj] {
				ops, q := k.lockOps[e.Obj], s.badNext[e.Obj]
				if q >= len(ops) || ops[q] != i {
					return fmt.Errorf("step %d: lock operation %d out of the observed order of a lock whose run breaks its specification", step, i)
				}
				s.badNext[e.Obj]++
			} else if !l.step(e.Op) {
				return fmt.Errorf("step %d: lock operation %d: %s", step, i, lockError(e.Op))
			}
		}
		if chkSync(e) {
			st := syn[e.Addr]
			if st == nil {
				p := k.syncBefore(e.Addr, s.prefix, s.inP) // the state after P
				st = &p
				syn[e.Addr] = st
			}
			if e.Sync.Acquires() {
				if o := k.syncBefore(e.Addr, i, func(int32) bool { return true }); !st.equal(o) && !s.repaired(step) {
					return fmt.Errorf("step %d: acquire %d synchronises with %d%v, observed %d%v", step, i, st.rel, st.merges, o.rel, o.merges)
				}
			}
			st.apply(e, int(i))
		}
		if e.Op == trace.OpJoin && e.Peer > 0 && int(e.Peer) < k.ng && next[e.Peer] < k.joinN[i] {
			return fmt.Errorf("step %d: join %d before the joined goroutine's event %d", step, i, next[e.Peer])
		}
		done[i] = true
	}
	return nil
}

// checkRead checks that hot read i, run after P and the Witness writes ws
// to its location (in schedule order), sees its observed writer at every
// byte.
func (s *fstate) checkRead(i int32, ws []int32) error {
	k, t := s.k, s.k.t
	e := &t.Events[i]
	// The schedule's writer of each byte: the latest Witness write that
	// covers it, else P's (-2), as pieces of [Addr, End).
	type piece struct {
		lo, hi uint64
		w      int32
	}
	ps := []piece{{e.Addr, e.End(), -2}}
	for _, x := range ws {
		xe := &t.Events[x]
		xlo, xhi := max(xe.Addr, e.Addr), min(xe.End(), e.End())
		if xlo >= xhi {
			continue
		}
		var out []piece
		for _, p := range ps {
			if p.lo < xlo {
				out = append(out, piece{p.lo, min(p.hi, xlo), p.w})
			}
		}
		out = append(out, piece{xlo, xhi, x})
		for _, p := range ps {
			if p.hi > xhi {
				out = append(out, piece{max(p.lo, xhi), p.hi, p.w})
			}
		}
		ps = out
	}
	runs := k.readRuns(i)
	for ri, run := range runs {
		lo, hi := e.Addr+uint64(run.off), e.End()
		if ri+1 < len(runs) {
			hi = e.Addr + uint64(runs[ri+1].off)
		}
		for _, p := range ps {
			a, b := max(lo, p.lo), min(hi, p.hi)
			if a >= b {
				continue
			}
			if p.w == -2 {
				if err := s.prefixWriter(i, a, b, run.w); err != nil {
					return err
				}
			} else if p.w != run.w {
				return fmt.Errorf("read %d sees writer %d at %#x, observed %d", i, p.w, a, run.w)
			}
		}
	}
	return nil
}

// prefixWriter checks that P's last writer of every byte of [lo, hi) of
// read i's location is ow, the read's observed writer there.
func (s *fstate) prefixWriter(i int32, lo, hi uint64, ow int32) error {
	k, t := s.k, s.k.t
	ws := k.hotW[k.hotID[k.loc[i]]]
	if ow >= 0 && !s.inP(ow) {
		return fmt.Errorf("read %d sees writer %d at %#x, observed %d", i, s.prefixWriterAt(ws, lo), lo, ow)
	}
	// P's writes are the run's, less X: the observed writer is P's unless
	// P has a write to these bytes that the run made after the read.
	if i >= s.prefix {
		return nil
	}
	j, _ := slices.BinarySearch(ws, i)
	for ; j < len(ws) && ws[j] < s.prefix; j++ {
		x := &t.Events[ws[j]]
		if x.Addr < hi && lo < x.End() && s.inP(ws[j]) {
			a := max(lo, x.Addr)
			return fmt.Errorf("read %d sees writer %d at %#x, observed %d", i, s.prefixWriterAt(ws, a), a, ow)
		}
	}
	return nil
}

// prefixWriterAt returns P's last writer of byte a, one of the writes ws
// to its location (for error messages).
func (s *fstate) prefixWriterAt(ws []int32, a uint64) int32 {
	j := sort.Search(len(ws), func(j int) bool { return ws[j] >= s.prefix })
	for j--; j >= 0; j-- {
		if x := &s.k.t.Events[ws[j]]; x.Addr <= a && a < x.End() && s.inP(ws[j]) {
			return ws[j]
		}
	}
	return -1
}
