// This file implements the tests of the wording of atomicity violations, in
// messages, hover and the witness document.

package report

import (
	"path/filepath"
	"strings"
	"testing"
)

// atomicityFinding is a check-then-act: goroutine 3 reads and then writes
// c.n in one transaction, and goroutine 4's write can run between them.
func atomicityFinding() Finding {
	return Finding{
		Test: "TestCounter", Kind: "atomicity", Predicted: true, Count: 2, Variable: "c.n",
		Accesses: []Access{
			{File: "/w/c.go", Line: 10, Op: "read", Goroutine: 3, Event: 5},
			{File: "/w/c.go", Line: 20, Op: "write", Goroutine: 4, Event: 9},
			{File: "/w/c.go", Line: 14, Op: "write", Goroutine: 3, Event: 12},
		},
		Witness: []Step{
			{Goroutine: 3, Op: "read", File: "/w/c.go", Line: 10, Event: 5, Object: "c.n"},
			{Goroutine: 4, Op: "write", File: "/w/c.go", Line: 20, Event: 9, Object: "c.n"},
			{Goroutine: 3, Op: "write", File: "/w/c.go", Line: 14, Event: 12, Object: "c.n"},
		},
	}
}

func TestAtomicityMessages(t *testing.T) {
	f := atomicityFinding()
	for i, want := range []string{
		"atomicity violation on c.n: read by goroutine 3 and write at c.go:14 can have write at c.go:20 by goroutine 4 run between them",
		"atomicity violation on c.n: write by goroutine 4 can run between read at c.go:10 and write at c.go:14 of goroutine 3",
		"atomicity violation on c.n: write by goroutine 3 and read at c.go:10 can have write at c.go:20 by goroutine 4 run between them",
	} {
		if got := DiagnosticMessage(&f, i, filepath.Base); got != want {
			t.Errorf("access %d:\n got %s\nwant %s", i, got, want)
		}
	}
	h := HoverMarkdown(&f, 1, filepath.Base, func(string, int) string { return "" })
	for _, want := range []string{
		"**atomicity violation** on `c.n` (predicted)",
		"The **read** at c.go:10 (goroutine 3) and the **write** at c.go:14 (goroutine 3) belong to one transaction of goroutine 3",
		"the **write** here (goroutine 4) can run between them: a read-write-write interleaving",
		"The run showed this pair of places 2 times.",
		"goroutine 3 is the test's own goroutine",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("hover lacks %q:\n%s", want, h)
		}
	}
}

func TestWitnessDocument(t *testing.T) {
	f := atomicityFinding()
	src := func(_ string, line int) string {
		return map[int]string{10: "if c.n == 0 {", 14: "c.n = 1", 20: "c.n = 2"}[line]
	}
	got := witnessDocument(&f, filepath.Base, src)
	want := ` step  goroutine 3        goroutine 4        source
    1  read c.n c.go:10                      if c.n == 0 {   <== read
    2                     write c.n c.go:20  c.n = 2   <== write
    3  write c.n c.go:14                     c.n = 1   <== write
`
	if !strings.HasSuffix(got, want) {
		t.Errorf("witness document:\n%s\nwant it to end with:\n%s", got, want)
	}
	if !strings.HasPrefix(got, "seer witness schedule: atomicity violation on c.n in TestCounter (predicted)\n") {
		t.Errorf("witness title:\n%s", got)
	}
}
