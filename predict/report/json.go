// This file implements WriteJSON, the report that `seer check -json` and
// `seer predict -json` print: indented JSON whose innermost objects and
// arrays (a stack frame, a held-back goroutine, a list of numbers) take one
// line each.
//
// A report lists, for each finding, every goroutine its witness holds back
// (PrefixStops) and the stacks of both accesses. On Go's race suite that
// is about 900 goroutines a finding: encoding/json's indentation printed
// 20 MB, one line a field, and took 0.4 s of the run. One line a leaf keeps
// the structure as readable and prints a third of the bytes in a single
// pass over json.Marshal's output.

package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes rep as JSON, ending with a newline.
func WriteJSON(w io.Writer, rep *Report) error {
	b, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	_, err = w.Write(indentLeaves(make([]byte, 0, len(b)+len(b)/2), b))
	return err
}

// indentLeaves appends to dst the compact JSON value src (as json.Marshal
// writes it: no space outside strings), indented by two spaces a level,
// with each object or array that holds no object or array on one line,
// its members separated by ", " and its keys followed by ": ", and a
// final newline. json.Compact of the result is src.
func indentLeaves(dst, src []byte) []byte {
	depth := 0
	newline := func() {
		dst = append(dst, '\n')
		for range depth {
			dst = append(dst, ' ', ' ')
		}
	}
	for i := 0; i < len(src); {
		c := src[i]
		switch c {
		case '"':
			end := stringEnd(src, i)
			dst = append(dst, src[i:end]...)
			i = end
			continue
		case '{', '[':
			if end, ok := leafEnd(src, i); ok {
				dst = appendLeaf(dst, src[i:end])
				i = end
				continue
			}
			depth++
			dst = append(dst, c)
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '\n')
}

// stringEnd returns the index one past the end of the JSON string that
// starts at src[i] (a '"').
func stringEnd(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

// leafEnd reports whether the object or array that starts at src[i] holds
// no object or array, and if so returns the index one past its end. It
// stops at the first nested one, so that each byte of src is looked at at
// most twice in all.
func leafEnd(src []byte, i int) (int, bool) {
	for j := i + 1; j < len(src); {
		switch src[j] {
		case '"':
			j = stringEnd(src, j)
			continue
		case '{', '[':
			return 0, false
		case '}', ']':
			return j + 1, true
		}
		j++
	}
	return 0, false
}

// appendLeaf appends the leaf object or array leaf with a space after each
// of its commas and colons.
func appendLeaf(dst, leaf []byte) []byte {
	for i := 0; i < len(leaf); {
		c := leaf[i]
		if c == '"' {
			end := stringEnd(leaf, i)
			dst = append(dst, leaf[i:end]...)
			i = end
			continue
		}
		dst = append(dst, c)
		if c == ',' || c == ':' {
			dst = append(dst, ' ')
		}
		i++
	}
	return dst
}
