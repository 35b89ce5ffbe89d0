// This file tests local_objects.go: Builder.compactObjects (objNames)
// numbers the objects the events name anew in order of first appearance,
// makes a heap object per heap life named, keeps the names of the objects
// kept, and drops the objects no event names, against tables written out
// by hand.

package trace

import (
	"maps"
	"slices"
	"testing"
)

func TestCompactObjectsByHand(t *testing.T) {
	objs := []Object{{}, {ID: 1, Kind: ObjChan, Addr: 0x100, Size: 8}, {ID: 2, Kind: ObjMutex, Addr: 0x200, Size: 8}, {ID: 3, Kind: ObjVar, Addr: 0x300, Size: 16}}
	var lives lifeTable
	lives.add(heapLife{addr: 0x1000, size: 32})
	lives.add(heapLife{addr: 0x2000, size: 64})
	for _, c := range []struct {
		name    string
		obj     []ObjID // the events' objects
		want    []ObjID // their new ids
		objects []Object
		names   map[ObjID]string
	}{
		{"none", []ObjID{0, 0}, []ObjID{0, 0}, []Object{{}}, nil},
		{"objects in order of first naming", []ObjID{3, 0, 1, 3, 1}, []ObjID{1, 0, 2, 1, 2},
			[]Object{{}, {ID: 1, Kind: ObjVar, Addr: 0x300, Size: 16}, {ID: 2, Kind: ObjChan, Addr: 0x100, Size: 8}},
			map[ObjID]string{1: "g"}},
		{"lives and objects", []ObjID{lifeObj | 1, 2, lifeObj | 1, lifeObj | 0, 2}, []ObjID{1, 2, 1, 3, 2},
			[]Object{{}, {ID: 1, Kind: ObjHeap, Addr: 0x2000, Size: 64}, {ID: 2, Kind: ObjMutex, Addr: 0x200, Size: 8}, {ID: 3, Kind: ObjHeap, Addr: 0x1000, Size: 32}},
			nil},
	} {
		tr := &Trace{Objects: slices.Clone(objs), Names: map[ObjID]string{3: "g"}}
		for _, o := range c.obj {
			tr.Events = append(tr.Events, Event{Obj: o})
		}
		(&Builder{t: tr, lives: lives}).compactObjects()
		var got []ObjID
		for _, e := range tr.Events {
			got = append(got, e.Obj)
		}
		if !slices.Equal(got, c.want) || !slices.Equal(tr.Objects, c.objects) || !maps.Equal(tr.Names, c.names) {
			t.Errorf("%s: events' objects %v, objects %v, names %v; want %v, %v, %v", c.name, got, tr.Objects, tr.Names, c.want, c.objects, c.names)
		}
	}
}
