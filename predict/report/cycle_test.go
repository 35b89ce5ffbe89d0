// This file tests CycleSentence: a predicted blocking cycle whose
// accesses say whom each waits for is told round from its first
// goroutine, in the text report and the hover; a finding whose accesses
// do not close a cycle says nothing.

package report

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCycleSentence(t *testing.T) {
	cycle := func() *Finding {
		return &Finding{Kind: KindDeadlock, Predicted: true, Accesses: []Access{
			{File: "/m/p_test.go", Line: 15, Op: "send", Goroutine: 7, Variable: "out", WaitsFor: 8},
			{File: "/m/p_test.go", Line: 22, Op: "lock", Goroutine: 8, Variable: "mu", WaitsFor: 9},
			{File: "/m/p_test.go", Line: 30, Op: "wait", Goroutine: 9, Variable: "sent", WaitsFor: 7},
			{File: "/m/p_test.go", Line: 40, Op: "wait", Goroutine: 1, Variable: "wg"},
		}}
	}
	for _, tc := range []struct {
		name string
		edit func(f *Finding)
		want string
	}{
		{"three goroutines", func(*Finding) {},
			"goroutine 7 waits to send on out at p_test.go:15 for goroutine 8 to receive; goroutine 8 waits to lock mu at :22, which goroutine 9 holds; goroutine 9 waits to see the counter reach zero on sent at :30 for a Done of goroutine 7: each waits for the next, a cycle of 3 goroutines"},
		{"a receive", func(f *Finding) { f.Accesses[0].Op = "recv" },
			"goroutine 7 waits to receive from out at p_test.go:15 for goroutine 8 to send; goroutine 8 waits to lock mu at :22, which goroutine 9 holds; goroutine 9 waits to see the counter reach zero on sent at :30 for a Done of goroutine 7: each waits for the next, a cycle of 3 goroutines"},
		{"a read behind a writer", func(f *Finding) {
			f.Accesses[1].Op, f.Accesses[1].Variable = "rlock", "rw"
			f.Accesses[2].Op, f.Accesses[2].Variable = "lock", "rw"
		},
			"goroutine 7 waits to send on out at p_test.go:15 for goroutine 8 to receive; goroutine 8 waits to read-lock rw at :22, behind goroutine 9's Lock of it; goroutine 9 waits to lock rw at :30, which goroutine 7 holds: each waits for the next, a cycle of 3 goroutines"},
		{"a Cond.Wait", func(f *Finding) { f.Accesses[2].Op, f.Accesses[2].Variable = "cond-wait", "cond" },
			"goroutine 7 waits to send on out at p_test.go:15 for goroutine 8 to receive; goroutine 8 waits to lock mu at :22, which goroutine 9 holds; goroutine 9 waits to be woken on cond at :30 for a Signal or Broadcast of goroutine 7: each waits for the next, a cycle of 3 goroutines"},
		{"no waits-for", func(f *Finding) {
			for k := range f.Accesses {
				f.Accesses[k].WaitsFor = 0
			}
		}, ""},
		{"a goroutine not listed", func(f *Finding) { f.Accesses[1].WaitsFor = 12 }, ""},
		{"a loop that misses the first", func(f *Finding) { f.Accesses[2].WaitsFor = 8 }, ""},
		{"observed", func(f *Finding) { f.Predicted = false }, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := cycle()
			tc.edit(f)
			got := CycleSentence(f, filepath.Base)
			if got != tc.want {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
			if got == "" {
				return
			}
			if hover := HoverMarkdown(f, 0, filepath.Base, func(string, int) string { return "" }); !strings.Contains(hover, capitalizeFirst(got)) {
				t.Errorf("the hover lacks the sentence:\n%s", hover)
			}
			if text := FindingText(f, filepath.Base); !strings.Contains(text, got) {
				t.Errorf("the text report lacks the sentence:\n%s", text)
			}
		})
	}
}
