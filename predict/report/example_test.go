// This file holds the package's examples: a report rendered as text, and
// one finding's witness as text.

package report_test

import (
	"os"

	"github.com/seer-tools/seer/predict/report"
)

// audit is a predicted race of two goroutines on a.note, with the end of
// its witness.
func audit() *report.Report {
	return &report.Report{
		Findings: []report.Finding{{
			Test: "TestAudit", Package: "example.com/bank", Kind: report.KindRace, Predicted: true, Count: 1, Variable: "a.note",
			Accesses: []report.Access{
				{File: "/src/bank/bank.go", Line: 21, Column: 2, Op: "write", Goroutine: 9, Event: 3791,
					Created: []report.Frame{{Func: "testing.(*T).Run", File: "/usr/local/go/src/testing/testing.go", Line: 2101}}},
				{File: "/src/bank/bank.go", Line: 35, Column: 9, Op: "read", Goroutine: 10, Event: 3807,
					Created: []report.Frame{{Func: "example.com/bank.TestAudit", File: "/src/bank/bank_test.go", Line: 15}}},
			},
			Witness: []report.Step{
				{Goroutine: 10, Op: "lock", File: "/src/bank/bank.go", Line: 32, Event: 3800, Object: "a.mu", Text: "locks a.mu"},
				{Goroutine: 10, Op: "unlock", File: "/src/bank/bank.go", Line: 34, Event: 3803, Object: "a.mu", Text: "unlocks a.mu"},
				{Goroutine: 9, Op: "write", File: "/src/bank/bank.go", Line: 21, Event: 3791, Object: "a.note", Text: "writes a.note"},
				{Goroutine: 10, Op: "read", File: "/src/bank/bank.go", Line: 35, Event: 3807, Object: "a.note", Text: "reads a.note"},
			},
		}},
		Tests:    []report.Test{{Package: "example.com/bank", Name: "TestAudit", Events: 4000, Outcome: "pass"}},
		Packages: []report.Package{{Path: "example.com/bank", Status: "ok", Outcomes: map[string]int{"pass": 1}, Events: 4000, Findings: 1}},
	}
}

// A report as seer check prints it; Format picks the renderer by the
// name -format takes.
func ExampleText() {
	r, err := report.Format(report.FormatText, func(file string) string { return file[len("/src/"):] }, report.SARIFOptions{})
	if err != nil {
		panic(err)
	}
	r.Render(os.Stdout, audit())
	// Output:
	// bank/bank.go:21:2: data race on a.note (predicted, TestAudit)
	// 	write by goroutine 9 at bank/bank.go:21:2 (the test's own)
	// 	read by goroutine 10 at bank/bank.go:35:9 (created at bank/bank_test.go:15)
	// 	witness: 4 steps, ending g10 locks a.mu at bank.go:32; g10 unlocks a.mu at bank.go:34; g9 writes a.note at bank.go:21; g10 reads a.note at bank.go:35
	// seer: example.com/bank: 1 test (1 passed), 4000 events, 1 finding
}

// One finding's witness schedule, as seer witness prints it.
func ExampleWitnessText() {
	rep := audit()
	report.WitnessText{Layout: report.LayoutList}.Render(os.Stdout, report.One(&rep.Findings[0]))
	// Output:
	// bank.go:21:2: data race on a.note (predicted, TestAudit)
	// 	write by goroutine 9 at bank.go:21:2 (the test's own)
	// 	read by goroutine 10 at bank.go:35:9 (created at bank_test.go:15)
	// 	witness: 4 steps, ending g10 locks a.mu at bank.go:32; g10 unlocks a.mu at bank.go:34; g9 writes a.note at bank.go:21; g10 reads a.note at bank.go:35
	//
	// witness steps (in user code; step numbers count all 4):
	//     1  g10   locks a.mu                       bank.go:32
	//     2  g10   unlocks a.mu                     bank.go:34
	//     3  g9    writes a.note                    bank.go:21   <== write
	//     4  g10   reads a.note                     bank.go:35   <== read
}
