// This file tests the rows of the nil-dereference and index-out-of-range
// kinds in the kinds table: title, -explain text, hover and the text
// report's ending.

package report

import (
	"strings"
	"testing"
)

func TestNilDerefWords(t *testing.T) {
	k, ok := ParseKind("Nil-Dereference")
	if !ok || k != KindNilDeref || k.IsMisuse() || k.Replayable() {
		t.Fatalf("ParseKind: %q %v (misuse %v, replayable %v)", k, ok, k.IsMisuse(), k.Replayable())
	}
	if k.Title() != "nil dereference" || k.ruleName() != "NilDereference" || k.level() != "error" {
		t.Errorf("title %q, rule %q, level %q", k.Title(), k.ruleName(), k.level())
	}
	if text, ok := Explain(k); !ok || !strings.HasPrefix(text, "# nil-dereference: ") {
		t.Errorf("explanation %q", text)
	}
	f := &Finding{Kind: k, Predicted: true, Variable: "c.conn", Accesses: []Access{
		{Op: "write", Goroutine: 3, Variable: "c.conn", File: "/m/c.go", Line: 26},
		{Op: "read", Goroutine: 7, Variable: "c.conn", File: "/m/c.go", Line: 20},
	}}
	want := "goroutine 3 stores nil into c.conn first, and goroutine 7's read of it at line 20 sees nil"
	if s := NilDerefSentence(f); !strings.Contains(s, want) {
		t.Errorf("sentence %q, want it to say %q", s, want)
	}
	short := func(s string) string { return s }
	if h := HoverMarkdown(f, 1, short, func(string, int) string { return "" }); !strings.Contains(h, want) || !strings.Contains(h, "**nil dereference**") {
		t.Errorf("hover %q", h)
	}
	if e := k.witnessEnding()(f); e != " ending with g7's read of nil from c.conn at c.go:20" {
		t.Errorf("ending %q", e)
	}
	f.Kind, f.Variable = KindIndexOutOfRange, "b.data"
	f.Accesses[0].Variable, f.Accesses[1].Variable = "b.data", "b.data"
	if s := NilDerefSentence(f); !strings.Contains(s, "stores nil into b.data first") || !strings.Contains(s, "indexes it") {
		t.Errorf("index sentence %q", s)
	}
	if text, ok := Explain(KindIndexOutOfRange); !ok || !strings.HasPrefix(text, "# index-out-of-range: ") || KindIndexOutOfRange.ruleName() != "IndexOutOfRange" {
		t.Errorf("index-out-of-range: explanation %q, rule %q", text, KindIndexOutOfRange.ruleName())
	}
	if s := NilDerefSentence(&Finding{Kind: k, Accesses: []Access{{}}}); s != "" {
		t.Errorf("sentence of a finding without its two accesses: %q", s)
	}
}
