package static

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/trace"
)

// TestLoadXToolsSSA loads a large real package, golang.org/x/tools/go/ssa
// with its tests, reports how long that takes, and runs every query on
// every line of it: none may panic, and most lines with code must have
// accesses.
func TestLoadXToolsSSA(t *testing.T) {
	if testing.Short() {
		t.Skip("loads golang.org/x/tools/go/ssa")
	}
	t.Parallel()
	start := time.Now()
	p, err := Load(context.Background(), ".", "golang.org/x/tools/go/ssa")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Load(golang.org/x/tools/go/ssa) took %v (Program.LoadTime %v), %d files, %d errors", time.Since(start), p.LoadTime, len(p.Files()), len(p.Errors))
	for _, e := range p.Errors {
		t.Logf("load error: %s", e)
	}
	if len(p.Files()) < 30 {
		t.Fatalf("only %d files", len(p.Files()))
	}

	start = time.Now()
	var lines, reads, writes, exact, irrelevant int
	for _, name := range p.Files() {
		fi := p.files[name]
		for _, fn := range fi.funcs {
			for line := fn.start; line <= fn.end; line++ {
				f := frameAt(p, fi, line)
				lines++
				if s, ok := p.Access(f, false, AccessHint{}); ok {
					reads++
					if s.Exact {
						exact++
					}
					checkSite(t, fi, f, s)
				}
				if s, ok := p.Access(f, true, AccessHint{}); ok {
					writes++
					checkSite(t, fi, f, s)
				}
				if p.ReadIrrelevant(f) {
					irrelevant++
				}
			}
		}
	}
	t.Logf("queried %d lines in %v: %d with reads (%d exact), %d with writes, %d with only irrelevant reads",
		lines, time.Since(start), reads, exact, writes, irrelevant)
	if reads < 1000 || writes < 500 {
		t.Errorf("too few accesses found")
	}
}

// checkSite checks the invariants of a site of frame f.
func checkSite(t *testing.T, fi *file, f trace.Frame, s Site) {
	t.Helper()
	if s.File != fi.name || !s.Range.IsValid() || !s.Stmt.IsValid() || !s.Stmt.Contains(s.Range) || s.Name == "" {
		t.Errorf("%s:%d: bad site %+v", fi.name, f.Line, s)
	}
	if s.Exact != (s.Object != "") && !strings.Contains(s.Name, " or ") {
		t.Errorf("%s:%d: exact %v but object %q", fi.name, f.Line, s.Exact, s.Object)
	}
}

func BenchmarkLoadXToolsSSA(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Load(context.Background(), ".", "golang.org/x/tools/go/ssa"); err != nil {
			b.Fatal(err)
		}
	}
}
