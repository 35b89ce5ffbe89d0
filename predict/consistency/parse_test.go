// This file tests the text format: what Parse rejects and how it says so,
// round trips through Format, and a fuzz target.

package consistency

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"P0 w(x,1)", "f:1: want \"NAME: op op ...\", found no colon"},
		{": w(x,1)", "f:1: missing process name"},
		{"P0: w(x,1)\n\nP0: r(x,1)", "f:3: process P0 already has a line (line 1)"},
		{"P0: x(x,1)", "f:1: process P0, operation 0: want w(key,value) or r(key,value)"},
		{"P0: w(x,1) w(,2)", "f:1: process P0, operation 1: missing key"},
		{"P0: w(x 1)", "want , after the key"},
		{"P0: w(x,a)", "bad value"},
		{"P0: w(x,1", "want ) after the value"},
		{"P0: w(x,1)r(x,1)", "want a space between operations"},
		{"P0: w(x,1)@5-3", "returns before it is called"},
		{"P0: w(x,1)@5", "want @call-return"},
		{"# header\nP0: w(x,0)", "f:2: P0[0] w(x,0) writes 0, the initial value"},
		{"P0: w(x,1)\nP1: r(x,1) w(x,1)", "f:2: P1[1] w(x,1) writes x=1, which P0[0] w(x,1) (line 1) already wrote"},
	} {
		_, err := Parse("f", strings.NewReader(tc.text))
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one containing %q", tc.text, err, tc.want)
		}
	}
}

func TestParseFormat(t *testing.T) {
	text := "# a comment\n\nP0: w(x,1) r(y,0)   # trailing\nP1:\tw( y , 1 )  r(x,-0)@3-7\nP2:\n"
	h, err := Parse("f", strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	want := "P0: w(x,1) r(y,0)\nP1: w(y,1) r(x,0)@3-7\nP2:\n"
	if got := h.String(); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	// The API builds the same history.
	a := New()
	a.Write("P0", "x", 1)
	a.Read("P0", "y", 0)
	a.Write("P1", "y", 1)
	a.ReadAt("P1", "x", 0, 3, 7)
	a.AddProcess("P2")
	if a.String() != want {
		t.Errorf("API history:\n%s", a)
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range litmus {
		f.Add(tc.text)
	}
	f.Add("# c\nP: w(k,9)@1-2 r(k,9)\n\nQ:")
	f.Add("P0: w(x,1)\nP0: w(x,2)")
	f.Add("P0: w(x,9223372036854775807) r(x,-9223372036854775808)")
	f.Fuzz(func(t *testing.T, text string) {
		h, err := Parse("fuzz", strings.NewReader(text))
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		out := h.String()
		h2, err := Parse("again", strings.NewReader(out))
		if err != nil {
			t.Fatalf("Format wrote what Parse rejects: %v\n%s", err, out)
		}
		if h2.String() != out {
			t.Fatalf("round trip:\n%s\nthen\n%s", out, h2)
		}
		if h.Len() <= 12 {
			for _, m := range []Model{CC, CCv, CM, CCM, WCCM} {
				if _, err := Check(h, m); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}
