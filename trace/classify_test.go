// This file tests classify.go's judgements of the race runtime's frames.

package trace

import "testing"

func TestMapUpdateFunc(t *testing.T) {
	for fn, want := range map[string]bool{
		"runtime.mapassign":                       true,
		"runtime.mapassign_faststr":               true,
		"runtime.mapassign_fast64ptr":             true,
		"runtime.mapdelete":                       true,
		"runtime.mapdelete_fast32":                true,
		"runtime.mapclear":                        true,
		"internal/runtime/maps.runtime_mapassign": true,
		"runtime.reflect_mapassign":               true,
		"reflect.mapdelete":                       true,
		"runtime.mapaccess1":                      false, // a lookup reads only
		"runtime.mapIterStart":                    false,
		"runtime.racewrite":                       false,
		"example.com/p.mapassign":                 false,
		"":                                        false,
	} {
		if got := mapUpdateFunc(fn); got != want {
			t.Errorf("mapUpdateFunc(%q) = %v, want %v", fn, got, want)
		}
	}
}
