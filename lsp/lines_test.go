// This file implements the tests of lineMap.

package lsp

import (
	"fmt"
	"strings"
	"testing"
)

func TestLineMap(t *testing.T) {
	old := "a\nb\nc\nd\ne\n"
	for _, tc := range []struct {
		name, new string
		want      string // image of each old line 0..5, "-" when dropped
	}{
		{"same", old, "0 1 2 3 4 5"},
		{"insert above", "x\ny\na\nb\nc\nd\ne\n", "2 3 4 5 6 7"},
		{"insert between", "a\nb\nx\nc\nd\ne\n", "0 1 3 4 5 6"},
		{"edit line", "a\nb\nC\nd\ne\n", "0 1 - 3 4 5"},
		{"delete lines", "a\nd\ne\n", "0 - - 1 2 3"},
		{"join lines", "a\nbc\nd\ne\n", "0 - - 2 3 4"},
		{"append", old + "f\n", "0 1 2 3 4 6"},
		{"no final newline", "a\nb\nc\nd\ne", "0 1 2 3 - -"},
	} {
		f := lineMap([]byte(old), []byte(tc.new))
		var got []string
		for l := 0; l <= 5; l++ {
			if n, ok := f(l); ok {
				got = append(got, fmt.Sprint(n))
			} else {
				got = append(got, "-")
			}
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, g, tc.want)
		}
	}
	if _, ok := lineMap([]byte(old), []byte("x"))(9); ok {
		t.Errorf("a line past the end maps")
	}
}
