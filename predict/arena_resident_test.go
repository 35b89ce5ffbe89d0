// This file tests riseArena.dropNear (arena_resident.go): an arena's
// pages read back are given back once the process's resident memory is
// past the Go memory limit by a sixteenth of it, and not otherwise.

package predict

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestDropNear(t *testing.T) {
	if resident() < 0 {
		t.Skip("the system does not say how much memory is resident")
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const touch = 16 << 20 // bytes of the arena read back
	for _, tc := range []struct {
		name    string
		limit   func(before int64) int64 // the Go memory limit, given the resident bytes before
		dropped bool
	}{
		{"no limit", func(int64) int64 { return math.MaxInt64 }, false},
		{"far below", func(before int64) int64 { return 4 * (before + touch) }, false},
		{"past it", func(before int64) int64 { return before }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := new(riseArena)
			defer ar.free()
			b := ar.alloc(2 * touch) // a mapping of its own
			if b == nil {
				t.Skip("the arena maps nothing here")
			}
			ar.drop()
			before := resident()
			debug.SetMemoryLimit(tc.limit(before))
			defer debug.SetMemoryLimit(math.MaxInt64)
			for i := 0; i < touch; i += 4096 {
				b[i] = 1
			}
			if grown := resident() - before; grown < touch/2 {
				t.Skipf("reading back %d bytes of the arena made %d resident: the count does not follow", touch, grown)
			}
			ar.dropNear()
			left := resident() - before
			if tc.dropped && left >= touch/2 {
				t.Errorf("%d bytes read back, %d still resident after dropNear: not given back", touch, left)
			}
			if !tc.dropped && left < touch/2 {
				t.Errorf("%d bytes read back, %d resident after dropNear: given back", touch, left)
			}
			for i := 0; i < touch; i += 4096 {
				if b[i] != 1 {
					t.Fatalf("byte %d of the arena lost", i)
				}
			}
		})
	}
}
