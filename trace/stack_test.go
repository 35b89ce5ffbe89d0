// This file tests the walks of an interned stack in place (StackTable.All
// and UserFrameOf) against the copies Frames makes.

package trace_test

import (
	"slices"
	"testing"

	. "github.com/seer-tools/seer/trace"
)

// All yields a stack's frames as Frames returns them, innermost first, and
// stops where its caller does; UserFrameOf finds UserFrame's frame; and
// neither allocates, where Frames makes a slice a call (the analyses walk
// the stacks of millions of events).
func TestStackAll(t *testing.T) {
	const goroot = "/go"
	s := NewStackTable()
	std := Frame{Func: "sync.(*Mutex).Lock", File: "/go/src/sync/mutex.go", Line: 80}
	user := Frame{Func: "pkg.work", File: "/src/pkg/work.go", Line: 12}
	harness := Frame{Func: "testing.tRunner", File: "/go/src/testing/testing.go", Line: 1900}
	for _, tc := range []struct {
		name   string
		frames []Frame
	}{
		{"empty", nil},
		{"one", []Frame{user}},
		{"user below the standard library", []Frame{std, user, harness}},
		{"no user frame", []Frame{std, harness}},
	} {
		id := s.Intern(tc.frames)
		var got []Frame
		for f := range s.All(id) {
			got = append(got, f)
		}
		if want := s.Frames(id); !slices.Equal(got, want) || len(got) != len(tc.frames) {
			t.Errorf("%s: All yields %v, Frames %v, interned %v", tc.name, got, want, tc.frames)
		}
		n := 0
		for range s.All(id) {
			n++
			break
		}
		if want := min(len(tc.frames), 1); n != want {
			t.Errorf("%s: All yielded %d frames after its caller stopped at the first", tc.name, n)
		}
		f, ok := s.UserFrameOf(id, goroot)
		wf, wok := UserFrame(tc.frames, goroot)
		if f != wf || ok != wok {
			t.Errorf("%s: UserFrameOf = %v, %v, UserFrame %v, %v", tc.name, f, ok, wf, wok)
		}
		if a := testing.AllocsPerRun(10, func() {
			for f := range s.All(id) {
				if f.Line < 0 {
					t.Fatal("negative line")
				}
			}
			s.UserFrameOf(id, goroot)
		}); a != 0 {
			t.Errorf("%s: walking the stack in place made %v allocations", tc.name, a)
		}
	}
	var nilTable *StackTable
	for range nilTable.All(1) {
		t.Error("a nil table yields a frame")
	}
}
