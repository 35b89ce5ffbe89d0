// This file implements objNames: the heap objects made, and the objects
// no event names dropped, as the events are read in order
// (Builder.compactObjects, local.go), apart from the pass that counts
// them first, so that compactLocal can count them as it finds which
// events to keep, on two cores (dropSet, local_compact.go), instead of
// in one more pass over the table after it.
//
// An object is numbered anew where a kept event first names it, in
// order: a heap life (Obj lifeObj|k, Builder.lives) becomes a heap
// object, another keeps its kind, place and name. The table of objects
// is made once at its size, from how many distinct objects the events
// name, counted first (seen, mark): on two cores, each half of the table
// in bits of its own (dropSet). The table's pages, and those of the
// lives' new ids, are fresh; a large table's are faulted in on another
// core as rename writes them (faultIn), as the prefaulter does for the
// event table (prefault.go): writing them was much of making the objects
// of a channel stress test (bench/RESULTS.md, "Compaction after the walk").

package trace

import (
	"math/bits"
	"runtime"
	"unsafe"
)

// objNames renumbers the objects of b's trace (see the file comment).
type objNames struct {
	b      *Builder
	newID  []ObjID // per object of the trace: its new id, 0 not yet named
	lifeID []ObjID // per heap life: its object's id, 0 not yet named
	objs   []Object
	names  map[ObjID]string
}

func newObjNames(b *Builder) *objNames {
	return &objNames{b: b, newID: make([]ObjID, len(b.t.Objects)), lifeID: make([]ObjID, b.lives.len())}
}

// seen returns a bit per object and per heap life, none set.
func (r *objNames) seen() []uint64 {
	return make([]uint64, (len(r.newID)+len(r.lifeID)+63)/64)
}

// mark sets o's bit in seen (if o is not 0).
func (r *objNames) mark(seen []uint64, o ObjID) {
	k := int(o)
	switch {
	case o == 0:
		return
	case o&lifeObj != 0:
		k = len(r.newID) + int(o&^lifeObj)
	}
	seen[k/64] |= 1 << (k % 64)
}

// start makes the table of objects for those marked in seen.
func (r *objNames) start(seen []uint64) {
	n := 1
	for _, w := range seen {
		n += bits.OnesCount64(w)
	}
	r.objs = make([]Object, 1, n)
}

// rename gives e's object its new id, making it where e first names it.
func (r *objNames) rename(e *Event) {
	t := r.b.t
	switch {
	case e.Obj == 0:
	case e.Obj&lifeObj != 0:
		k := e.Obj &^ lifeObj
		if r.lifeID[k] == 0 {
			l := r.b.lives.at(int(k))
			r.lifeID[k] = ObjID(len(r.objs))
			r.objs = append(r.objs, Object{ID: r.lifeID[k], Kind: ObjHeap, Addr: l.addr, Size: l.size})
		}
		e.Obj = r.lifeID[k]
	default:
		if r.newID[e.Obj] == 0 {
			o := t.Objects[e.Obj]
			o.ID = ObjID(len(r.objs))
			r.newID[e.Obj] = o.ID
			r.objs = append(r.objs, o)
			if name, ok := t.Names[e.Obj]; ok {
				if r.names == nil {
					r.names = make(map[ObjID]string)
				}
				r.names[o.ID] = name
			}
		}
		e.Obj = r.newID[e.Obj]
	}
}

// renameAll renames the objects of every event of the trace, in order,
// and gives the trace its new objects and names; the lives are made.
func (r *objNames) renameAll() {
	t := r.b.t
	done := r.faultIn()
	for i := range t.Events {
		r.rename(&t.Events[i])
	}
	if done != nil {
		<-done
	}
	t.Objects, t.Names = r.objs, r.names
	r.b.lives = lifeTable{}
}

// minFaultIn is the fewest objects whose table faultIn faults in (a
// variable for the tests).
var minFaultIn = 1 << 16

// faultIn has the kernel fault in the pages of the table of objects, and
// of the lives' new ids, which rename writes for the first time, on a
// goroutine of its own, ahead of rename (populate, prefault.go), for a
// large table where there are two cores; it returns a channel closed when
// done, or nil.
func (r *objNames) faultIn() chan struct{} {
	if !prefaults || cap(r.objs) < minFaultIn || runtime.GOMAXPROCS(0) < 2 {
		return nil
	}
	objs, lives := r.objs[:cap(r.objs)], r.lifeID
	done := make(chan struct{})
	go func() {
		defer close(done)
		if len(lives) > 0 {
			populate(unsafe.Pointer(unsafe.SliceData(lives)), uintptr(len(lives))*unsafe.Sizeof(lives[0]))
		}
		populate(unsafe.Pointer(unsafe.SliceData(objs)), uintptr(len(objs))*unsafe.Sizeof(objs[0]))
	}()
	return done
}
