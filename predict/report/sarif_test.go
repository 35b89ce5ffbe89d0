package report

import (
	"bytes"
	"flag"
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// witnessReport is a small predicted race, as check reports it: two
// goroutines, the second's critical section run first by the witness.
func witnessReport(root string) *Report {
	bank, test := filepath.Join(root, "bank.go"), filepath.Join(root, "bank_test.go")
	return &Report{
		Findings: []Finding{{
			Test: "TestAudit", Package: "example.com/bank", Kind: "race", Predicted: true, Count: 1, Variable: "a.note",
			Accesses: []Access{
				{File: bank, Line: 21, Column: 2, EndLine: 21, EndColumn: 8, Op: "write", Goroutine: 9, Variable: "a.note", Event: 3791,
					Created: []Frame{{Func: "testing.(*T).Run.gowrap1", File: filepath.Join(build.Default.GOROOT, "src/testing/testing.go"), Line: 2101}}},
				{File: bank, Line: 35, Column: 9, EndLine: 35, EndColumn: 15, Op: "read", Goroutine: 10, Variable: "a.note", Event: 3807,
					Created: []Frame{{Func: "example.com/bank.TestAudit", File: test, Line: 15}}},
			},
			Witness: []Step{
				{Goroutine: 10, Op: "lock", File: bank, Line: 32, Event: 3800, Object: "a.mu", Text: "locks a.mu"},
				{Goroutine: 10, Op: "write", File: bank, Line: 33, Event: 3802, Object: "a.audits", Text: "writes a.audits"},
				{Goroutine: 10, Op: "unlock", File: bank, Line: 34, Event: 3803, Object: "a.mu", Text: "unlocks a.mu"},
				{Goroutine: 10, Op: "read", File: bank, Line: 34, Event: 3804, Object: "a.mu", Within: "a.mu.Unlock()", Text: "inside a.mu.Unlock() (its own read)"},
				{Goroutine: 9, Op: "write", File: bank, Line: 21, Event: 3791, Object: "a.note", Text: "writes a.note"},
				{Goroutine: 10, Op: "read", File: bank, Line: 35, Event: 3807, Object: "a.note", Text: "reads a.note"},
			},
			WitnessPrefix: 3790, PrefixEnd: 3800,
			PrefixStops: []Stop{
				{Goroutine: 9, Event: 3791, Left: 7, File: bank, Line: 21},
				{Goroutine: 3, Event: 3795, Left: 1, File: "/goroot/src/runtime/proc.go", Line: 400, Harness: true},
			},
			Reordered: []Sync{
				{Op: "lock", Goroutine: 9, File: bank, Line: 22, Object: "a.mu"},
				{Op: "lock", Goroutine: 10, File: bank, Line: 32, Object: "a.mu", First: true},
			},
		}},
		Tests: []Test{{Package: "example.com/bank", Name: "TestAudit", Events: 100, Outcome: "pass"}},
	}
}

// The witness of a small race as SARIF: a result with both accesses, a
// thread flow per goroutine in witness order, and the rules.
func TestSARIFGolden(t *testing.T) {
	root := "/src/bank"
	var b bytes.Buffer
	if err := WriteSARIF(&b, witnessReport(root), SARIFOptions{Root: root, Version: "v0.0.0-test"}); err != nil {
		t.Fatal(err)
	}
	sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
	golden := "testdata/witness.sarif"
	if *update {
		os.WriteFile(golden, b.Bytes(), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("SARIF differs from %s (go test -run TestSARIFGolden -update rewrites it):\n%s", golden, got)
	}
}

// Logs of every shape validate: no findings, an atomicity violation with
// three accesses, an STD trace's findings (no files), files outside the
// root.
func TestSARIFValid(t *testing.T) {
	sch := sarifcheck.Schema(t)
	rep := witnessReport("/src/bank")
	atom := rep.Findings[0]
	atom.Kind, atom.Predicted, atom.Count = "atomicity", false, 2
	atom.Accesses = append(atom.Accesses, atom.Accesses[0])
	atom.Accesses[0].File = "/elsewhere/with space/ü.go"
	std := Finding{Kind: "race", Predicted: true, Count: 1,
		Accesses: []Access{{Line: 2, Op: "write", Goroutine: 1}, {Line: 9, Op: "read", Goroutine: 2}},
		Witness:  []Step{{Goroutine: 1, Op: "write", Line: 2}, {Goroutine: 2, Op: "read", Line: 9}}}
	for name, r := range map[string]*Report{
		"empty":     {Findings: []Finding{}},
		"atomicity": {Findings: []Finding{atom}},
		"std":       {Findings: []Finding{std}},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteSARIF(&b, r, SARIFOptions{Root: "/src/bank"}); err != nil {
				t.Fatal(err)
			}
			sarifcheck.Validate(t, sch, b.Bytes())
			if name == "atomicity" && !strings.Contains(b.String(), `"uri": "file:///elsewhere/with%20space/%C3%BC.go"`) {
				t.Errorf("a file outside the root is not an absolute, escaped file URI:\n%s", b.String())
			}
		})
	}
}

// Columns are UTF-16 code units: a byte column after a multi-byte rune
// is converted.
func TestSARIFColumns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "u.go")
	os.WriteFile(file, []byte("package u\n\tvar é, x = 1, 2 // 😀 y\n"), 0o644)
	s := &sarifWriter{root: dir, lines: map[string][]string{}}
	for _, tc := range []struct{ byteCol, want int }{{1, 1}, {6, 6}, {10, 9}, {27, 24}} {
		if got := s.column(file, 2, tc.byteCol); got != tc.want {
			t.Errorf("byte column %d: got %d, want %d", tc.byteCol, got, tc.want)
		}
	}
}
