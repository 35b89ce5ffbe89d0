package lsp

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// editorTexts is what the editor shows for each finding of rep: every
// diagnostic (message and related information, with and without related
// information support) and the hover on every access, through the pure
// functions the server calls (findingMarks, hoverMarkdown). The numbers
// that vary from run to run (event indices and counts in the prefix
// phrase) are replaced by N.
func editorTexts(t *testing.T, rep *report.Report, root string) string {
	var b strings.Builder
	read := func(p string) ([]byte, error) { return os.ReadFile(p) }
	src := func(path string, line int) string {
		data, err := os.ReadFile(path)
		if err != nil {
			return ""
		}
		lines := strings.Split(string(data), "\n")
		if line < 1 || line > len(lines) {
			return ""
		}
		return strings.TrimSpace(lines[line-1])
	}
	for i := range rep.Findings {
		f := &finding{id: i + 1, dir: root, Finding: rep.Findings[i]}
		fmt.Fprintf(&b, "== %s %s on %s\n", f.Test, f.Kind, f.Variable)
		for _, withRelated := range []bool{true, false} {
			for _, m := range findingMarks(f, newViews(nil, read), root, withRelated) {
				if !withRelated {
					fmt.Fprintf(&b, "-- diagnostic without related information at %s:%d\n%s\n", filepath.Base(m.path), m.rng.Start.Line+1, m.message)
					continue
				}
				fmt.Fprintf(&b, "-- diagnostic at %s:%d\n%s\n", filepath.Base(m.path), m.rng.Start.Line+1, m.message)
				for _, r := range m.related {
					fmt.Fprintf(&b, "  related %s:%d: %s\n", filepath.Base(r.path), r.rng.Start.Line+1, r.message)
				}
			}
		}
		for k := range f.Accesses {
			short := func(p string) string { return shortPath(p, filepath.Dir(f.Accesses[k].File), root) }
			fmt.Fprintf(&b, "-- hover on access %d\n%s\n", k, report.HoverMarkdown(&f.Finding, k, short, src))
		}
	}
	return varying.ReplaceAllStringFunc(b.String(), func(m string) string {
		return regexp.MustCompile(`\d+`).ReplaceAllString(m, "N")
	})
}

var varying = regexp.MustCompile(`(event|from) \d+|\d+ (later )?events?( of \d+ goroutines)?|\d+ of \d+ steps`)

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, _ := os.ReadFile(path)
	if got != string(want) {
		t.Errorf("editor texts differ from %s (-update rewrites it):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// The story of the example bank's race (TestAudit) and of the LSP tests'
// predicted race (TestPredicted), recorded for real, as diagnostics and
// hovers: the variable by name, the critical sections the witness runs
// in another order in the words `seer check` prints, the prefix
// described as the recorded events it keeps.
func TestStoryGoldens(t *testing.T) {
	if testing.Short() {
		t.Skip("records real test runs; skipped in -short mode")
	}
	bank, _ := filepath.Abs("../examples/bank")
	shop := shopWorkspace(t)
	for _, tc := range []struct {
		dir, run, golden string
	}{
		{bank, "^TestAudit$", "bank-audit.editor"},
		{shop, "^TestPredicted$", "shop-predicted.editor"},
	} {
		rep, err := check.Run(context.Background(), check.Options{Dir: tc.dir, Run: tc.run, Timeout: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Findings) != 1 || !rep.Findings[0].Predicted {
			t.Fatalf("%s %s: want one predicted finding, got %+v", tc.dir, tc.run, rep.Findings)
		}
		got := editorTexts(t, rep, tc.dir)
		if strings.Contains(got, "other order") {
			t.Errorf("%s: editor texts say \"other order\" instead of telling which", tc.golden)
		}
		if id := regexp.MustCompile(`#\d`).FindString(got); id != "" {
			t.Errorf("%s: editor texts name an internal id (%s)", tc.golden, id)
		}
		golden(t, tc.golden, got)
	}
}
