// This file implements interned call stacks and the user-code frame rule.

package trace

import (
	"iter"
	"slices"
	"strings"
)

// A StackTable interns frames and stacks. A stack is a frame plus the stack
// of its caller, so a run's stacks form a tree and each event stores one id.
type StackTable struct {
	frames   []Frame
	frameIDs map[Frame]uint32
	nodes    []stackNode // index = StackID; 0 is the empty stack
	nodeIDs  map[stackNode]StackID
}

type stackNode struct {
	frame  uint32
	parent StackID
}

// NewStackTable returns an empty table.
func NewStackTable() *StackTable {
	return &StackTable{
		frameIDs: make(map[Frame]uint32),
		nodes:    []stackNode{{}},
		nodeIDs:  make(map[stackNode]StackID),
	}
}

// Intern returns the id of the stack with the given frames, innermost first.
func (s *StackTable) Intern(frames []Frame) StackID {
	id := StackID(0)
	for i := len(frames) - 1; i >= 0; i-- {
		id = s.Push(id, frames[i])
	}
	return id
}

// Push returns the id of the stack whose innermost frame is f, called from
// stack parent.
func (s *StackTable) Push(parent StackID, f Frame) StackID {
	fid, ok := s.frameIDs[f]
	if !ok {
		fid = uint32(len(s.frames))
		s.frames = append(s.frames, f)
		s.frameIDs[f] = fid
	}
	n := stackNode{fid, parent}
	if id, ok := s.nodeIDs[n]; ok {
		return id
	}
	id := StackID(len(s.nodes))
	s.nodes = append(s.nodes, n)
	s.nodeIDs[n] = id
	return id
}

// Frames returns the frames of stack id, innermost first.
func (s *StackTable) Frames(id StackID) []Frame {
	var out []Frame
	for f := range s.All(id) {
		out = append(out, f)
	}
	return out
}

// All yields the frames of stack id, innermost first, walking the table:
// a caller that only looks at them makes no slice, as Frames does.
func (s *StackTable) All(id StackID) iter.Seq[Frame] {
	return func(yield func(Frame) bool) {
		if s == nil {
			return
		}
		for id != 0 && int(id) < len(s.nodes) {
			n := s.nodes[id]
			if !yield(s.frames[n.frame]) {
				return
			}
			id = n.parent
		}
	}
}

// Top returns the innermost frame of stack id.
func (s *StackTable) Top(id StackID) (Frame, bool) {
	if s == nil || id == 0 || int(id) >= len(s.nodes) {
		return Frame{}, false
	}
	return s.frames[s.nodes[id].frame], true
}

// Parent returns the caller's stack of stack id.
func (s *StackTable) Parent(id StackID) StackID {
	if s == nil || id == 0 || int(id) >= len(s.nodes) {
		return 0
	}
	return s.nodes[id].parent
}

// Len returns the number of stacks in the table, including the empty one.
func (s *StackTable) Len() int { return len(s.nodes) }

// UserFrame returns the innermost frame of frames that is user code: not in
// the standard library (files under goroot), not generated, and not the
// testing harness. STD traces (no files) count as user code.
func UserFrame(frames []Frame, goroot string) (Frame, bool) {
	return userFrame(slices.Values(frames), goroot)
}

// UserFrameOf is UserFrame of stack id of the table, walked in place.
func (s *StackTable) UserFrameOf(id StackID, goroot string) (Frame, bool) {
	return userFrame(s.All(id), goroot)
}

func userFrame(frames iter.Seq[Frame], goroot string) (Frame, bool) {
	for f := range frames {
		if IsUserFrame(f, goroot) {
			return f, true
		}
	}
	return Frame{}, false
}

// IsUserFrame reports whether f is user code (see UserFrame).
func IsUserFrame(f Frame, goroot string) bool {
	if f.File == "" {
		return f.Func == "" || !strings.HasPrefix(f.Func, "runtime.")
	}
	if strings.HasPrefix(f.File, "<") || f.File == "-" {
		return false
	}
	if goroot != "" && strings.HasPrefix(f.File, strings.TrimSuffix(goroot, "/")+"/") {
		return false
	}
	if strings.HasSuffix(f.File, "_testmain.go") {
		return false
	}
	return true
}
