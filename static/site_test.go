package static

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/seer-tools/seer/trace"
)

// bankFrame returns the frame of the first line of bank/bank.go (or
// bank_test.go) that contains text.
func bankFrame(t *testing.T, p *Program, file, text string) (*file, trace.Frame) {
	t.Helper()
	fi, ok := p.lookupFile(filepath.Join(testdataDir(t), "bank", file))
	if !ok {
		t.Fatalf("%s not loaded", file)
	}
	for i, line := range strings.Split(string(fi.mapper.Content), "\n") {
		if strings.Contains(line, text) {
			return fi, frameAt(p, fi, i+1)
		}
	}
	t.Fatalf("%q not in %s", text, file)
	return nil, trace.Frame{}
}

func spanText(fi *file, s Span) string {
	return string(fi.mapper.Content[s.Start.Offset:s.End.Offset])
}

func TestAccessHints(t *testing.T) {
	p := loadTestdata(t)
	for _, tc := range []struct {
		file, line string
		write      bool
		hint       AccessHint
		name, text string // "" name: ambiguous
	}{
		{"bank.go", "w := s[i]", false, AccessHint{}, "", ""},
		{"bank.go", "w := s[i]", false, AccessHint{Object: "[]int element"}, "s[i]", "s[i]"},
		{"bank.go", "w := s[i]", false, AccessHint{Object: "example.com/seer.data/bank.s"}, "s", "s"},
		{"bank.go", "w := s[i]", false, AccessHint{Size: 8}, "s[i]", "s[i]"},
		{"bank.go", "w := s[i]", false, AccessHint{Size: 24}, "s", "s"},
		{"bank.go", "w := s[i]", false, AccessHint{Size: 3}, "", ""},
		{"bank.go", "w := s[i]", false, AccessHint{Name: "s[i]"}, "s[i]", "s[i]"},
		{"bank.go", "w := s[i]", false, AccessHint{Object: "nothing like it", Size: 8}, "s[i]", "s[i]"},
		{"bank.go", "total := x + y", false, AccessHint{Object: "example.com/seer.data/bank.y"}, "y", "y"},
		{"bank.go", "total := x + y", false, AccessHint{Object: "example.com/seer%2edata/bank.x"}, "x", "x"},
		{"bank.go", "total := x + y", false, AccessHint{Size: 8}, "", ""},
		{"bank.go", "s = append(s, v)", true, AccessHint{}, "s", "s"},
		{"bank.go", "s = append(s, v)", true, AccessHint{Object: "[]int element"}, "elements of s (append)", "s"},
		{"bank_test.go", "go func() { total += acct.balance }()", false, AccessHint{Object: "example.com/seer.data/bank.Account.balance"}, "acct.balance", "acct.balance"},
		{"bank_test.go", "go func() { total += acct.balance }()", false, AccessHint{Name: "total"}, "total (captured by the closure at line 72)", "total"},
		{"bank_test.go", "run(func() { hits++ }, func() { x++ })", true, AccessHint{Object: "example.com/seer.data/bank.x"}, "x", "x"},
	} {
		fi, f := bankFrame(t, p, tc.file, tc.line)
		site, ok := p.Access(f, tc.write, tc.hint)
		if !ok {
			t.Errorf("%q %+v: no access", tc.line, tc.hint)
			continue
		}
		if tc.name == "" {
			if site.Exact {
				t.Errorf("%q %+v: chose %q, want ambiguous", tc.line, tc.hint, site.Name)
			}
			continue
		}
		if !site.Exact || site.Name != tc.name || spanText(fi, site.Range) != tc.text {
			t.Errorf("%q %+v: got %q (exact %v, text %q), want %q (text %q)", tc.line, tc.hint, site.Name, site.Exact, spanText(fi, site.Range), tc.name, tc.text)
		}
	}
}

func TestSiteStatements(t *testing.T) {
	p := loadTestdata(t)
	for _, tc := range []struct {
		file, line string
		write      bool
		stmt       string
	}{
		{"bank.go", "for _, v := range xs {", false, "for _, v := range xs"},
		{"bank.go", "a.balance += n", true, "a.balance += n"},
		{"bank.go", "return a.balance", false, "return a.balance"},
		{"bank.go", "var initial = seed * 2", false, "initial = seed * 2"},
		{"bank.go", "w := s[i]", false, "w := s[i]"},
		{"bank.go", "o.n, //@read", false, "a.balance = compute(\n\t\to.n, //@read(\"o.n\") relevant\n\t\t1)"},
		{"bank_test.go", "go func() { total += acct.balance }()", false, "total += acct.balance"},
	} {
		fi, f := bankFrame(t, p, tc.file, tc.line)
		site, ok := p.Access(f, tc.write, AccessHint{})
		if !ok {
			t.Errorf("%q: no access", tc.line)
			continue
		}
		if got := spanText(fi, site.Stmt); got != tc.stmt {
			t.Errorf("%q: statement %q, want %q", tc.line, got, tc.stmt)
		}
	}
}

func TestLineSiteAndFailures(t *testing.T) {
	p := loadTestdata(t)
	fi, f := bankFrame(t, p, "bank.go", "a.balance += n")
	s, ok := p.LineSite(f)
	if !ok || !strings.HasPrefix(spanText(fi, s.Range), "a.balance += n //@") || s.Name != "" {
		t.Errorf("LineSite = %+v, %v", s, ok)
	}
	// The site's LSP range is zero-based.
	if s.Range.LSP().Start.Line != uint32(f.Line-1) || s.Range.LSP().Start.Character != 1 {
		t.Errorf("LineSite LSP range %v", s.Range.LSP())
	}
	for _, bad := range []trace.Frame{
		{Func: f.Func, File: "/elsewhere/bank.go", Line: f.Line},
		{Func: "sync.(*Mutex).Lock", File: f.File, Line: f.Line},
		{Func: f.Func, File: f.File, Line: 1}, // package clause
		{Func: f.Func, File: f.File, Line: 1 << 20},
		{Func: "", File: "", Line: 3},
	} {
		if s, ok := p.Access(bad, false, AccessHint{}); ok {
			t.Errorf("Access(%v) = %+v", bad, s)
		}
		if _, ok := p.ReadFlow(bad); ok || p.ReadIrrelevant(bad) {
			t.Errorf("ReadFlow(%v) knows something", bad)
		}
	}
	if _, ok := p.LineSite(trace.Frame{File: f.File, Line: 1 << 20}); ok {
		t.Errorf("LineSite past the end of the file succeeded")
	}
	if p.Mapper(f.File) == nil || p.Mapper("/elsewhere/bank.go") != nil {
		t.Errorf("Mapper lookup is wrong")
	}
}

func TestReadFlowWrites(t *testing.T) {
	p := loadTestdata(t)
	for _, tc := range []struct {
		line   string
		writes []int // relative to the line
	}{
		{"a.balance += n //@", []int{0}},
		{"t := o.n //@read(\"o.n\") irrelevant", []int{2}},
		{"t = o.n //@read", []int{2}},
		{"_ = o.n //@", nil},
		{"copy(xs[1:], xs)", []int{0}},
	} {
		_, f := bankFrame(t, p, "bank.go", tc.line)
		rf, ok := p.ReadFlow(f)
		if !ok || rf.Relevant {
			t.Errorf("%q: ReadFlow = %+v, %v", tc.line, rf, ok)
			continue
		}
		var got []int
		for _, w := range rf.Writes {
			if w.Func != f.Func || w.File != f.File {
				t.Errorf("%q: write site %v is not in the read's function", tc.line, w)
			}
			got = append(got, w.Line-f.Line)
		}
		if len(got) != len(tc.writes) || len(got) > 0 && got[0] != tc.writes[0] {
			t.Errorf("%q: writes at %v, want %v", tc.line, got, tc.writes)
		}
	}
	_, f := bankFrame(t, p, "bank.go", "t := o.n //@read(\"o.n\") relevant")
	if rf, _ := p.ReadFlow(f); !strings.Contains(rf.Reason, "decides a branch at line") {
		t.Errorf("reason %q", rf.Reason)
	}
}

// TestConcurrentQueries runs every query on every line from several
// goroutines at once (go test -race checks the Program's locking).
func TestConcurrentQueries(t *testing.T) {
	p := loadTestdata(t)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, name := range p.Files() {
				fi := p.files[name]
				for line := 1; line <= fi.mapper.LineCount(); line++ {
					f := frameAt(p, fi, line)
					p.Access(f, line%2 == g%2, AccessHint{})
					p.ReadFlow(f)
				}
			}
			p.AtomicFuncs()
			p.DirectiveErrors()
		}()
	}
	wg.Wait()
}
