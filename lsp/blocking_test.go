// This file tests the wording of the blocking kinds in messages and
// hovers: a channel deadlock with where the sender took its lock, and an
// observed leak with where its goroutines were left.

package lsp

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict/report"
)

func TestBlockingMessages(t *testing.T) {
	deadlock := report.Finding{
		Test: "TestPublish", Kind: "deadlock", Predicted: true, Count: 1, Variable: "h.out",
		Accesses: []report.Access{
			{File: "/w/h.go", Line: 19, Op: "send", Goroutine: 10, Variable: "h.out",
				Holds: []report.Held{{Lock: "h.mu", Op: "lock", File: "/w/h.go", Line: 17}}},
			{File: "/w/h.go", Line: 24, Op: "lock", Goroutine: 9, Variable: "h.mu"},
		},
	}
	leak := report.Finding{
		Test: "TestSumAll", Kind: "leak", Count: 3,
		Accesses: []report.Access{{File: "/w/p.go", Line: 27, Op: "read", Goroutine: 12, Blocked: "send",
			Created: []report.Frame{{Func: "example.com/p.sumAll", File: "/w/p.go", Line: 21}}}},
	}
	for _, tc := range []struct {
		f       report.Finding
		message string
		hover   []string
	}{
		{deadlock, "deadlock on h.out: send by goroutine 10 and lock at h.go:24 by goroutine 9", []string{
			"**deadlock** on `h.out` (predicted)",
			"each wait for ever",
			"Goroutine 10 holds h.mu, locked at h.go:17, while it waits to send on h.out at :19.",
		}},
		{leak, "goroutine leak: goroutine 12 (created at p.go:21) never ended: blocked sending on a channel at p.go:27; 3 goroutines of the test stopped there", []string{
			"**goroutine leak** (observed)",
			"Goroutine 12 (created at p.go:21) never ended: blocked sending on a channel at p.go:27.",
		}},
	} {
		if got := report.DiagnosticMessage(&tc.f, 0, base); got != tc.message {
			t.Errorf("message:\n got %s\nwant %s", got, tc.message)
		}
		h := report.HoverMarkdown(&tc.f, 0, base, func(string, int) string { return "" })
		for _, want := range tc.hover {
			if !strings.Contains(h, want) {
				t.Errorf("hover lacks %q:\n%s", want, h)
			}
		}
	}
}

func base(p string) string { return filepath.Base(p) }
