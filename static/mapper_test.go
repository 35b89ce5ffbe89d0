package static

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// mapperText mixes everything that makes positions hard: tabs, two- and
// three-byte runes, a rune outside the BMP (a surrogate pair in UTF-16),
// CRLF and LF endings, an invalid byte, a blank line and no final newline.
const mapperText = "package p\r\n" + // line 1, CRLF
	"\tvar é = \"世界😀\" // ok\r\n" + // line 2
	"\n" + // line 3, blank
	"x := \xff + 😀😀\n" + // line 4, invalid byte
	"   \t \n" + // line 5, only white space
	"end" // line 6, no newline

func TestMapperPoints(t *testing.T) {
	m := NewMapper("f.go", []byte(mapperText))
	if got, want := m.LineCount(), 6; got != want {
		t.Fatalf("LineCount = %d, want %d", got, want)
	}
	for _, tc := range []struct {
		find      string // first occurrence in the text
		line, col int
		lspLine   uint32
		lspChar   uint32
	}{
		{"package", 1, 1, 0, 0},
		{"\r\n\tvar", 1, 10, 0, 9},
		{"var é", 2, 2, 1, 1},
		{"é =", 2, 6, 1, 5},
		{"= \"世", 2, 9, 1, 7},      // é is 2 bytes, 1 unit
		{"界", 2, 15, 1, 11},        // 世 is 3 bytes, 1 unit
		{"😀\"", 2, 18, 1, 12},      // 界 is 3 bytes
		{"\" // ok", 2, 22, 1, 14}, // 😀 is 4 bytes, 2 units
		{"\r\n\nx", 2, 29, 1, 21},
		{"\nx :=", 3, 1, 2, 0},
		{"x :=", 4, 1, 3, 0},
		{"+ 😀", 4, 8, 3, 7}, // the invalid byte is 1 byte, 1 unit
		{"😀\n", 4, 14, 3, 11},
		{"end", 6, 1, 5, 0},
	} {
		off := strings.Index(mapperText, tc.find)
		if off < 0 {
			t.Fatalf("%q not in text", tc.find)
		}
		p, err := m.OffsetPoint(off)
		if err != nil {
			t.Errorf("OffsetPoint(%d) (%q): %v", off, tc.find, err)
			continue
		}
		want := Point{Offset: off, Line: tc.line, Col: tc.col, LSP: Position{tc.lspLine, tc.lspChar}}
		if p != want {
			t.Errorf("OffsetPoint(%d) (%q) = %+v, want %+v", off, tc.find, p, want)
		}
		if q, err := m.LinePoint(tc.line, tc.col); err != nil || q != want {
			t.Errorf("LinePoint(%d, %d) = %+v, %v; want %+v", tc.line, tc.col, q, err, want)
		}
		if o, err := m.PositionOffset(want.LSP); err != nil || o != off {
			t.Errorf("PositionOffset(%v) = %d, %v; want %d", want.LSP, o, err, off)
		}
	}
	// End of file.
	p, err := m.OffsetPoint(len(mapperText))
	if err != nil || p != (Point{len(mapperText), 6, 4, Position{5, 3}}) {
		t.Errorf("OffsetPoint(EOF) = %+v, %v", p, err)
	}
}

// TestMapperRoundTrip checks every offset against an independent UTF-16
// count, and that Position -> offset inverts offset -> Position.
func TestMapperRoundTrip(t *testing.T) {
	for _, text := range []string{
		mapperText,
		"",
		"\n",
		"a\n",
		"\r\n\r\n",
		"😀",
		"世\n😀\r\né",
		"\xf0\x9f\x98", // truncated emoji: three invalid bytes
	} {
		m := NewMapper("f.go", []byte(text))
		lineStart := 0
		for off := 0; off <= len(text); off++ {
			p, err := m.OffsetPoint(off)
			inRune := off < len(text) && !utf8.RuneStart(text[off]) && validRuneAround(text, off)
			if inRune {
				if err == nil {
					t.Errorf("%q: OffsetPoint(%d) inside a rune succeeded: %+v", text, off, p)
				}
				continue
			}
			if err != nil {
				t.Errorf("%q: OffsetPoint(%d): %v", text, off, err)
				continue
			}
			if off > 0 && text[off-1] == '\n' {
				lineStart = off
			}
			want := utf16Units(text[lineStart:off])
			if int(p.LSP.Character) != want || p.Col != off-lineStart+1 || p.Offset != off {
				t.Errorf("%q: OffsetPoint(%d) = %+v, want character %d, col %d", text, off, p, want, off-lineStart+1)
			}
			back, err := m.PositionOffset(p.LSP)
			// Offsets between "\r" and "\n" map back to before the "\r":
			// the LSP line's text ends there.
			wantBack := off
			if off > 0 && off < len(text) && text[off-1] == '\r' && text[off] == '\n' {
				wantBack = off - 1
			}
			if err != nil || back != wantBack {
				t.Errorf("%q: PositionOffset(%v) = %d, %v; want %d", text, p.LSP, back, err, wantBack)
			}
		}
	}
}

// validRuneAround reports whether off lies inside a valid multi-byte rune.
func validRuneAround(text string, off int) bool {
	for s := off - 1; s >= 0 && off-s < utf8.UTFMax; s-- {
		if utf8.RuneStart(text[s]) {
			r, size := utf8.DecodeRuneInString(text[s:])
			return !(r == utf8.RuneError && size == 1) && s+size > off
		}
	}
	return false
}

// utf16Units counts UTF-16 code units the slow way (invalid bytes count
// one each).
func utf16Units(s string) int {
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			n++
		} else {
			n += len(utf16.Encode([]rune{r}))
		}
		i += size
	}
	return n
}

func TestMapperPositionEdges(t *testing.T) {
	m := NewMapper("f.go", []byte(mapperText))
	line2End := strings.Index(mapperText, "\r\n\nx")
	for _, tc := range []struct {
		pos     Position
		want    int // -1: error
		comment string
	}{
		{Position{1, 21}, line2End, "end of a CRLF line"},
		{Position{1, 22}, line2End, "past the end of a CRLF line clamps before \\r"},
		{Position{1, 1000}, line2End, "far past the end clamps"},
		{Position{1, 13}, -1, "inside the surrogate pair of 😀"},
		{Position{2, 0}, line2End + 2, "blank line"},
		{Position{2, 5}, line2End + 2, "past the end of a blank line"},
		{Position{5, 3}, len(mapperText), "end of the last line"},
		{Position{5, 9}, len(mapperText), "past the end of the last line"},
		{Position{6, 0}, -1, "past the last line"},
		{Position{1 << 31, 0}, -1, "huge line"},
	} {
		got, err := m.PositionOffset(tc.pos)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("%s: PositionOffset(%v) = %d, want error", tc.comment, tc.pos, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: PositionOffset(%v) = %d, %v; want %d", tc.comment, tc.pos, got, err, tc.want)
		}
	}

	// A final newline makes an empty last line that LSP may address.
	m2 := NewMapper("g.go", []byte("a\nb\n"))
	if off, err := m2.PositionOffset(Position{2, 0}); err != nil || off != 4 {
		t.Errorf("position after final newline = %d, %v; want 4", off, err)
	}
	if _, err := m2.PositionOffset(Position{3, 0}); err == nil {
		t.Errorf("position two lines past the final newline succeeded")
	}

	for _, tc := range []struct{ line, col int }{{0, 1}, {7, 1}, {1, 0}, {1, 12}, {2, 31}, {-1, 1}} {
		if p, err := m.LinePoint(tc.line, tc.col); err == nil {
			t.Errorf("LinePoint(%d, %d) = %+v, want error", tc.line, tc.col, p)
		}
	}
	for _, off := range []int{-1, len(mapperText) + 1} {
		if p, err := m.OffsetPoint(off); err == nil {
			t.Errorf("OffsetPoint(%d) = %+v, want error", off, p)
		}
	}
	if _, err := m.OffsetSpan(5, 4); err == nil {
		t.Errorf("OffsetSpan with start after end succeeded")
	}
}

func TestMapperLineSpan(t *testing.T) {
	m := NewMapper("f.go", []byte(mapperText))
	for _, tc := range []struct {
		line int
		text string
	}{
		{1, "package p"},
		{2, "var é = \"世界😀\" // ok"},
		{3, ""},
		{4, "x := \xff + 😀😀"},
		{5, ""},
		{6, "end"},
	} {
		s, err := m.LineSpan(tc.line)
		if err != nil {
			t.Errorf("LineSpan(%d): %v", tc.line, err)
			continue
		}
		if got := mapperText[s.Start.Offset:s.End.Offset]; got != tc.text {
			t.Errorf("LineSpan(%d) = %q, want %q", tc.line, got, tc.text)
		}
		if s.Start.Line != tc.line || s.End.Line != tc.line {
			t.Errorf("LineSpan(%d) = %v, not on the line", tc.line, s)
		}
	}
	if s, err := m.LineSpan(2); err == nil && s.LSP() != (Range{Position{1, 1}, Position{1, 21}}) {
		t.Errorf("LineSpan(2).LSP() = %v", s.LSP())
	}
	if _, err := m.LineSpan(7); err == nil {
		t.Errorf("LineSpan past EOF succeeded")
	}
	if r, err := m.RangeSpan(Range{Position{1, 5}, Position{1, 6}}); err != nil || mapperText[r.Start.Offset:r.End.Offset] != "é" {
		t.Errorf("RangeSpan(é) = %v, %v", r, err)
	}
}

// TestMapperTokenPos checks the token.Pos conversions against go/token's
// own line and column for every identifier of a parsed file.
func TestMapperTokenPos(t *testing.T) {
	src := "package p\r\n\r\n// 世界😀\r\nvar é, x = \"😀\", 1\n\nfunc f() {\n\tvar 世 = é + \"\t😀\"\n\t_ = 世\n}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	tf := fset.File(f.Pos())
	m := NewMapper("p.go", []byte(src))
	n := 0
	for _, id := range identsOf(f) {
		p, err := m.PosPoint(tf, id.Pos())
		if err != nil {
			t.Fatal(err)
		}
		want := fset.Position(id.Pos())
		if p.Line != want.Line || p.Col != want.Column || p.Offset != want.Offset {
			t.Errorf("%s: PosPoint = %v, go/token says %v", id.Name, p, want)
		}
		back, err := m.OffsetPos(tf, p.Offset)
		if err != nil || back != id.Pos() {
			t.Errorf("%s: OffsetPos(%d) = %v, %v; want %v", id.Name, p.Offset, back, err, id.Pos())
		}
		s, err := m.NodeSpan(tf, id)
		if err != nil || src[s.Start.Offset:s.End.Offset] != id.Name {
			t.Errorf("%s: NodeSpan = %v, %v", id.Name, s, err)
		}
		n++
	}
	if n < 8 {
		t.Errorf("only %d identifiers checked", n)
	}
	// The identifier 世 on line 7: tab, "var ", then 世.
	if p, _ := m.PosPoint(tf, tf.Pos(strings.Index(src, "世 ="))); p.LSP != (Position{6, 5}) {
		t.Errorf("世: LSP %v, want 6:5", p.LSP)
	}
	if _, err := m.PosPoint(tf, token.NoPos); err == nil {
		t.Errorf("PosPoint(NoPos) succeeded")
	}
	other := NewMapper("p.go", []byte(src+"// more"))
	if _, err := other.PosPoint(tf, f.Pos()); err == nil {
		t.Errorf("PosPoint with a token.File of other content succeeded")
	}
}
