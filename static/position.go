// This file implements the position types that every other part of seer
// uses to talk about places in source files: Position and Range (the LSP's
// coordinates), Point and Span (all coordinates at once).

package static

import "fmt"

// A Position is a place in a file as the Language Server Protocol counts it:
// a zero-based line and a zero-based character offset in UTF-16 code units
// within that line. It has exactly the fields and meaning of
// go.lsp.dev/protocol's Position, so that lsp/ converts one into the other
// field by field; static does not import the protocol package.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Character) }

// Before reports whether p comes strictly before q.
func (p Position) Before(q Position) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Character < q.Character
}

// A Range is a half-open interval [Start, End) of Positions, with the
// fields and meaning of go.lsp.dev/protocol's Range.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

func (r Range) String() string { return r.Start.String() + "-" + r.End.String() }

// A Point is one place in a file in every coordinate system seer needs:
// the byte offset, go/token's one-based line and byte column (what the
// compiler, trace.Frame and error messages print), and the LSP Position.
// A Point is only ever made by a Mapper, so its coordinates always agree.
type Point struct {
	Offset int      // byte offset from the start of the file
	Line   int      // one-based line number
	Col    int      // one-based column, in bytes
	LSP    Position // zero-based line, UTF-16 character
}

func (p Point) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// A Span is a half-open interval [Start, End) of a file, in every
// coordinate system (see Point). The zero Span is invalid: use IsValid.
type Span struct {
	Start, End Point
}

// IsValid reports whether s was made by a Mapper (the zero Span is not).
func (s Span) IsValid() bool { return s.Start.Line > 0 }

// LSP returns s as an LSP Range.
func (s Span) LSP() Range { return Range{s.Start.LSP, s.End.LSP} }

// Contains reports whether t lies within s.
func (s Span) Contains(t Span) bool {
	return s.Start.Offset <= t.Start.Offset && t.End.Offset <= s.End.Offset
}

// Len returns the number of bytes s covers.
func (s Span) Len() int { return s.End.Offset - s.Start.Offset }

func (s Span) String() string {
	if s.Start.Line == s.End.Line {
		return fmt.Sprintf("%d:%d-%d", s.Start.Line, s.Start.Col, s.End.Col)
	}
	return fmt.Sprintf("%d:%d-%d:%d", s.Start.Line, s.Start.Col, s.End.Line, s.End.Col)
}
