// This file implements Mapper, the one place where seer converts between
// byte offsets, go/token positions, line and column numbers, and the LSP's
// UTF-16 positions.

package static

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"unicode/utf16"
	"unicode/utf8"
)

// A Mapper converts positions within one version of one file's content.
// All conversions are exact or fail with an error; none guesses.
//
// Lines are separated by "\n" only, as go/token and gopls count them: a
// "\r" before the "\n" belongs to the line's text (LineSpan leaves it
// out, and an LSP character past the end of the line stops before it),
// and a lone "\r" does not end a line. A file that ends with "\n" has one more, empty, last line: the LSP
// position just past the final newline is valid.
//
// UTF-16 is counted rune by rune: a rune outside the Basic Multilingual
// Plane (most emoji) is two code units, and each byte of an invalid UTF-8
// sequence is one (it reads as U+FFFD), as in gopls and VS Code.
//
// A Mapper is immutable and safe for concurrent use.
type Mapper struct {
	Filename string
	Content  []byte

	lines []int // byte offset of the start of each line; lines[0] == 0
}

// NewMapper returns a Mapper for content, the text of the named file.
// The Mapper keeps content: the caller must not change it afterwards.
func NewMapper(filename string, content []byte) *Mapper {
	m := &Mapper{Filename: filename, Content: content, lines: []int{0}}
	for i, b := range content {
		if b == '\n' {
			m.lines = append(m.lines, i+1)
		}
	}
	return m
}

// LineCount returns the number of lines, counting the empty line after a
// final newline.
func (m *Mapper) LineCount() int { return len(m.lines) }

// lineBounds returns the offsets of the start of line (zero-based) and of
// its end: the "\n" that ends it, or the end of the file.
func (m *Mapper) lineBounds(line int) (start, end int) {
	start = m.lines[line]
	if line+1 < len(m.lines) {
		return start, m.lines[line+1] - 1
	}
	return start, len(m.Content)
}

// lineOf returns the zero-based line containing offset off.
func (m *Mapper) lineOf(off int) int {
	lo, hi := 0, len(m.lines) // invariant: lines[lo] <= off < lines[hi]
	for hi-lo > 1 {
		mid := int(uint(lo+hi) >> 1)
		if m.lines[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// OffsetPoint returns the Point at byte offset off (0 <= off <= len(Content)).
// It fails if off is outside the file or inside a multi-byte UTF-8 sequence.
func (m *Mapper) OffsetPoint(off int) (Point, error) {
	if off < 0 || off > len(m.Content) {
		return Point{}, fmt.Errorf("%s: offset %d is outside the file (size %d)", m.Filename, off, len(m.Content))
	}
	line := m.lineOf(off)
	start := m.lines[line]
	chars, err := m.utf16Len(start, off)
	if err != nil {
		return Point{}, err
	}
	return Point{
		Offset: off,
		Line:   line + 1,
		Col:    off - start + 1,
		LSP:    Position{Line: uint32(line), Character: uint32(chars)},
	}, nil
}

// utf16Len returns the number of UTF-16 code units in Content[start:end],
// failing if end is inside a multi-byte UTF-8 sequence.
func (m *Mapper) utf16Len(start, end int) (int, error) {
	n := 0
	for off := start; off < end; {
		if m.Content[off] < utf8.RuneSelf {
			n++
			off++
			continue
		}
		// Decode against the whole content, so that a rune split by end
		// is seen whole.
		r, size := utf8.DecodeRune(m.Content[off:])
		if off+size > end {
			return 0, fmt.Errorf("%s: offset %d is inside the UTF-8 sequence of %q", m.Filename, end, r)
		}
		n += runeUnits(r, size)
		off += size
	}
	return n, nil
}

// runeUnits returns the number of UTF-16 code units of a rune decoded
// from size bytes: one for each byte of an invalid sequence.
func runeUnits(r rune, size int) int {
	if r == utf8.RuneError && size == 1 {
		return 1
	}
	return utf16.RuneLen(r)
}

// LinePoint returns the Point at a one-based line and one-based byte
// column, the coordinates of go/token and trace.Frame. The column may be
// one past the last byte of the line (its end).
func (m *Mapper) LinePoint(line, col int) (Point, error) {
	if line < 1 || line > len(m.lines) {
		return Point{}, fmt.Errorf("%s: line %d is outside the file (%d lines)", m.Filename, line, len(m.lines))
	}
	start, end := m.lineBounds(line - 1)
	if col < 1 || start+col-1 > end {
		return Point{}, fmt.Errorf("%s:%d: column %d is outside the line (%d bytes)", m.Filename, line, col, end-start)
	}
	return m.OffsetPoint(start + col - 1)
}

// PositionOffset returns the byte offset of an LSP position. As the LSP
// specifies, a character past the end of the line means the end of the
// line (before any "\r\n"). A line past the last fails, as does a
// character that splits a surrogate pair.
func (m *Mapper) PositionOffset(p Position) (int, error) {
	if int64(p.Line) >= int64(len(m.lines)) {
		return 0, fmt.Errorf("%s: line %d is outside the file (%d lines)", m.Filename, p.Line+1, len(m.lines))
	}
	start, end := m.lineBounds(int(p.Line))
	if end > start && m.Content[end-1] == '\r' && end < len(m.Content) {
		end-- // "\r\n": the line's text stops before "\r"
	}
	want := int(p.Character)
	n := 0
	for off := start; off < end; {
		if n == want {
			return off, nil
		}
		r, size := utf8.DecodeRune(m.Content[off:end])
		units := runeUnits(r, size)
		if n+units > want {
			return 0, fmt.Errorf("%s: character %d of line %d is inside the UTF-16 surrogate pair of %q", m.Filename, want, p.Line+1, r)
		}
		n += units
		off += size
	}
	return end, nil // at or past the end of the line
}

// PositionPoint returns the Point at an LSP position (see PositionOffset).
func (m *Mapper) PositionPoint(p Position) (Point, error) {
	off, err := m.PositionOffset(p)
	if err != nil {
		return Point{}, err
	}
	return m.OffsetPoint(off)
}

// OffsetPosition returns the LSP position at byte offset off.
func (m *Mapper) OffsetPosition(off int) (Position, error) {
	p, err := m.OffsetPoint(off)
	return p.LSP, err
}

// OffsetSpan returns the Span of bytes [start, end).
func (m *Mapper) OffsetSpan(start, end int) (Span, error) {
	if start > end {
		return Span{}, fmt.Errorf("%s: span start %d is after its end %d", m.Filename, start, end)
	}
	s, err := m.OffsetPoint(start)
	if err != nil {
		return Span{}, err
	}
	e, err := m.OffsetPoint(end)
	if err != nil {
		return Span{}, err
	}
	return Span{s, e}, nil
}

// RangeSpan returns the Span of an LSP range.
func (m *Mapper) RangeSpan(r Range) (Span, error) {
	start, err := m.PositionOffset(r.Start)
	if err != nil {
		return Span{}, err
	}
	end, err := m.PositionOffset(r.End)
	if err != nil {
		return Span{}, err
	}
	return m.OffsetSpan(start, end)
}

// LineSpan returns the Span of the text of a one-based line, without its
// indentation, trailing white space and line terminator: what an editor
// should underline when only the line of a site is known. A blank line
// gives the empty Span at its start. A line past the end of the file fails
// (the file has changed since the trace was recorded).
func (m *Mapper) LineSpan(line int) (Span, error) {
	if line < 1 || line > len(m.lines) {
		return Span{}, fmt.Errorf("%s: line %d is outside the file (%d lines)", m.Filename, line, len(m.lines))
	}
	start, end := m.lineBounds(line - 1)
	text := m.Content[start:end]
	trimmed := bytes.TrimLeft(text, " \t\r\v\f")
	if len(trimmed) == 0 {
		return m.OffsetSpan(start, start)
	}
	s := start + len(text) - len(trimmed)
	e := s + len(bytes.TrimRight(trimmed, " \t\r\v\f"))
	return m.OffsetSpan(s, e)
}

// checkFile reports an error unless tf describes this Mapper's content.
func (m *Mapper) checkFile(tf *token.File) error {
	if tf == nil {
		return fmt.Errorf("%s: no token.File", m.Filename)
	}
	if tf.Size() != len(m.Content) {
		return fmt.Errorf("%s: token.File %s has size %d, content has %d bytes", m.Filename, tf.Name(), tf.Size(), len(m.Content))
	}
	return nil
}

// PosOffset returns the byte offset of pos, which must lie in tf, the
// token.File parsed from this Mapper's content.
func (m *Mapper) PosOffset(tf *token.File, pos token.Pos) (int, error) {
	if err := m.checkFile(tf); err != nil {
		return 0, err
	}
	if !pos.IsValid() || int(pos) < tf.Base() || int(pos) > tf.Base()+tf.Size() {
		return 0, fmt.Errorf("%s: position %d is not in the file", m.Filename, pos)
	}
	return int(pos) - tf.Base(), nil
}

// OffsetPos returns the token.Pos of byte offset off in tf.
func (m *Mapper) OffsetPos(tf *token.File, off int) (token.Pos, error) {
	if err := m.checkFile(tf); err != nil {
		return token.NoPos, err
	}
	if off < 0 || off > tf.Size() {
		return token.NoPos, fmt.Errorf("%s: offset %d is outside the file (size %d)", m.Filename, off, tf.Size())
	}
	return tf.Pos(off), nil
}

// PosPoint returns the Point of pos in tf (see PosOffset).
func (m *Mapper) PosPoint(tf *token.File, pos token.Pos) (Point, error) {
	off, err := m.PosOffset(tf, pos)
	if err != nil {
		return Point{}, err
	}
	return m.OffsetPoint(off)
}

// PosSpan returns the Span [start, end) of two positions in tf.
func (m *Mapper) PosSpan(tf *token.File, start, end token.Pos) (Span, error) {
	s, err := m.PosOffset(tf, start)
	if err != nil {
		return Span{}, err
	}
	e, err := m.PosOffset(tf, end)
	if err != nil {
		return Span{}, err
	}
	return m.OffsetSpan(s, e)
}

// NodeSpan returns the Span of a syntax node of tf.
func (m *Mapper) NodeSpan(tf *token.File, n ast.Node) (Span, error) {
	return m.PosSpan(tf, n.Pos(), n.End())
}
