// This file tests leaks as goleak sees them (issue 28, Options.Leaks):
// a goroutine that a test leaves blocked in a receive, which leaves no
// event, is a leak with where it was created and where it waits, found
// by the exit hook after goleak's grace; its fixed twin, whose goroutine
// ends just after the test returns, is clean; and a worker that TestMain
// started, alive at the end of every run, is no test's leak.

package check

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

const leftModule = `package left

import (
	"os"
	"testing"
	"time"
)

var jobs = make(chan int)

func TestMain(m *testing.M) {
	go func() {
		for range jobs {
		}
	}()
	os.Exit(m.Run())
}

func TestLeak(t *testing.T) {
	reply := make(chan int)
	go func() {
		<-reply
	}()
}

func TestFixed(t *testing.T) {
	reply := make(chan int)
	go func() {
		time.Sleep(20 * time.Millisecond)
		<-reply
	}()
	t.Cleanup(func() { close(reply) })
}
`

func TestLeftLeaks(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/left", "left_test.go", leftModule)
	rel := func(s string) string { return filepath.Base(s) }
	for _, tc := range []struct {
		test string
		want []string
	}{
		{"TestLeak", []string{
			"goroutine leak in TestLeak: goroutine G (created at left_test.go:21) never ended: blocked receiving from a channel at left_test.go:22, on an object that no live goroutine can reach (the runtime's leak detection found it so at exit)",
		}},
		{"TestFixed", nil},
	} {
		t.Run(tc.test, func(t *testing.T) {
			rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Run: "^" + tc.test + "$", Leaks: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range rep.Findings {
				s := report.Title(&f) + " in " + f.Test + ": " + strings.Join(report.BlockedSentences(&f, rel), "; ")
				got = append(got, goroutineNumbers.ReplaceAllString(s, "goroutine G "))
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
