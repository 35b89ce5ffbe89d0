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
// core as renameAll writes them (faultIn), as the prefaulter does for the
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

// makeLife makes the heap object of life k, which no event named before.
func (r *objNames) makeLife(k ObjID) {
	l := r.b.lives.at(int(k))
	r.lifeID[k] = ObjID(len(r.objs))
	r.objs = append(r.objs, Object{ID: r.lifeID[k], Kind: ObjHeap, Addr: l.addr, Size: l.size})
}

// makeObject makes the new object of the trace's object o, which no event
// named before, with o's name.
func (r *objNames) makeObject(o ObjID) {
	t := r.b.t
	obj := t.Objects[o]
	obj.ID = ObjID(len(r.objs))
	r.newID[o] = obj.ID
	r.objs = append(r.objs, obj)
	if name, ok := t.Names[o]; ok {
		if r.names == nil {
			r.names = make(map[ObjID]string)
		}
		r.names[obj.ID] = name
	}
}

// renameAll gives the object of every event of the trace, in order, its
// new id, making the object where an event first names it (makeLife,
// makeObject), and gives the trace its new objects and names; the lives
// are made. An event whose object is already named is renamed in the
// loop itself, without a call.
func (r *objNames) renameAll() {
	t := r.b.t
	done := r.faultIn()
	newID, lifeID := r.newID, r.lifeID
	for i := range t.Events {
		e := &t.Events[i]
		switch o := e.Obj; {
		case o == 0:
		case o&lifeObj != 0:
			k := o &^ lifeObj
			if lifeID[k] == 0 {
				r.makeLife(k)
			}
			e.Obj = lifeID[k]
		default:
			if newID[o] == 0 {
				r.makeObject(o)
			}
			e.Obj = newID[o]
		}
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
// of the lives' new ids, which renameAll writes for the first time, on a
// goroutine of its own, ahead of renameAll (populate, prefault.go), for a
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
