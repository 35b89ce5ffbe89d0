package static

import (
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

func TestAtomicFuncs(t *testing.T) {
	p := loadTestdata(t)
	got := p.AtomicFuncs()
	want := []string{
		"example.com/seer%2edata.Atomic",
		"example.com/seer.data/atomic.(*Account).Deposit",
		"example.com/seer.data/atomic.(*Account).Withdraw",
		"example.com/seer.data/atomic.(*Stack[...]).Push",
		"example.com/seer.data/atomic.Account.Snapshot",
		"example.com/seer.data/atomic.Map[...]",
		"example.com/seer.data/atomic.Transfer",
		"example.com/seer.data/atomic.Twice",
		"example.com/seer.data/atomic.init.1",
		"example.com/seer.data/atomic_test.helper",
	}
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, "\n") != strings.Join(want, "\n") {
		t.Errorf("AtomicFuncs:\n%s\nwant:\n%s", strings.Join(keys, "\n"), strings.Join(want, "\n"))
	}
	for _, name := range []string{
		"example.com/seer.data/atomic.Transfer",
		"example.com/seer%2edata.Atomic",
		"example.com/seer.data.Atomic",
	} {
		if !p.IsAtomic(name) {
			t.Errorf("IsAtomic(%q) = false", name)
		}
	}
	for _, name := range []string{
		"example.com/seer.data/atomic.NotAtomic",
		"example.com/seer.data/atomic.WithArgs",
		"example.com/seer.data/atomic.Typo",
		"example.com/seer.data/atomic.init.0",
		"example.com/seer.data/atomic.Transfer.func1",
		"example.com/seer.data.W",
	} {
		if p.IsAtomic(name) {
			t.Errorf("IsAtomic(%q) = true", name)
		}
	}
	// The map is the caller's.
	got["x"] = true
	if p.AtomicFuncs()["x"] {
		t.Errorf("AtomicFuncs shares its map")
	}
}

func TestDirectiveErrors(t *testing.T) {
	p := loadTestdata(t)
	file := filepath.Join(testdataDir(t), "atomic", "atomic.go")
	fi, ok := p.lookupFile(file)
	if !ok {
		t.Fatal("atomic.go not loaded")
	}
	lines := strings.Split(string(fi.mapper.Content), "\n")

	// want gives, for the first line of atomic.go that follows a line
	// containing the key, the diagnostic expected on the line before.
	want := []struct{ after, msg string }{
		{"var counter int", `^//seer:atomic must be in the doc comment of a function declaration, not on a var declaration$`},
		{"	other int", `, not on a var declaration$`},
		{"type T struct{}", `, not on a type declaration$`},
		{"	M()", `, not on a type declaration$`},
		{"	x := func() {}", `, not inside a function body$`},
		{"func WithArgs() {}", `^//seer:atomic takes no arguments \(found foo\)$`},
		{"func Twice() {}", `^duplicate //seer:atomic in the doc comment of Twice$`},
		{"func Typo() {}", `^unknown directive //seer:atomics \(seer knows only //seer:atomic\)$`},
		{"", `^//seer:atomic must be in the doc comment of a function declaration \(a blank line separates it from func Separated\)$`},
		{"const K = 1", `, not on a const declaration$`},
	}
	diags := p.DirectiveErrors()
	var mine []Diagnostic
	for _, d := range diags {
		if d.File == fi.name {
			mine = append(mine, d)
		} else {
			t.Errorf("unexpected diagnostic in %s: %s", d.File, d.Message)
		}
	}
	if len(mine) != len(want) {
		for _, d := range mine {
			t.Logf("%d: %s", d.Range.Start.Line, d.Message)
		}
		t.Fatalf("%d diagnostics, want %d", len(mine), len(want))
	}
	for i, w := range want {
		d := mine[i]
		if !regexp.MustCompile(w.msg).MatchString(d.Message) {
			t.Errorf("diagnostic %d (line %d): %q does not match %q", i, d.Range.Start.Line, d.Message, w.msg)
		}
		next := lines[d.Range.End.Line] // the line after the directive (zero-based index)
		if w.after != "" && next != w.after {
			t.Errorf("diagnostic %d (line %d): followed by %q, want %q", i, d.Range.Start.Line, next, w.after)
		}
		if text := string(fi.mapper.Content[d.Range.Start.Offset:d.Range.End.Offset]); !strings.HasPrefix(text, "//seer:") {
			t.Errorf("diagnostic %d: range %q is not the directive", i, text)
		}
		if d.Code != "directive" {
			t.Errorf("diagnostic %d: code %q", i, d.Code)
		}
	}
}
