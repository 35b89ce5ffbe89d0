// This file implements the fixtures of the protocol tests that do not
// record: a small workspace and a fake check.Run that answers with a
// canned report about it.

package lsp

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// bankTxtar is a package with a race: Deposit writes balance under mu,
// Balance reads it without.
const bankTxtar = `
-- go.mod --
module example.com/bank

go 1.22
-- bank.go --
package bank

import "sync"

type Account struct {
	mu      sync.Mutex
	balance int
}

func (a *Account) Deposit(n int) {
	a.mu.Lock()
	a.balance += n
	a.mu.Unlock()
}

func (a *Account) Balance() int {
	a.mu.Lock()
	a.mu.Unlock()
	return a.balance
}
-- bank_test.go --
package bank

import (
	"sync"
	"testing"
)

func TestDeposit(t *testing.T) {
	var a Account
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a.Deposit(1) }()
	go func() { defer wg.Done(); _ = a.Balance() }()
	wg.Wait()
}

func TestOther(t *testing.T) {}

func helper(t *testing.T) {}
`

// bankFinding is the race of bankTxtar as check would report it.
func bankFinding(t testing.TB, dir string) report.Finding {
	bank := filepath.Join(dir, "bank.go")
	test := filepath.Join(dir, "bank_test.go")
	write := lineOf(t, dir, "bank.go", "a.balance += n")
	read := lineOf(t, dir, "bank.go", "return a.balance")
	lock := lineOf(t, dir, "bank.go", "a.mu.Lock()")
	lock2 := lineOf(t, dir, "bank.go", "func (a *Account) Balance") + 1
	g1 := lineOf(t, dir, "bank_test.go", "a.Deposit(1)")
	g2 := lineOf(t, dir, "bank_test.go", "a.Balance()")
	return report.Finding{
		Test: "TestDeposit", Package: "example.com/bank", Kind: "race", Predicted: true, Count: 1,
		Variable: "a.balance",
		Accesses: []report.Access{
			{File: bank, Line: write, Column: 2, EndLine: write, EndColumn: 11, Op: "write", Goroutine: 7, Variable: "a.balance",
				Stack:   []report.Frame{{Func: "example.com/bank.(*Account).Deposit", File: bank, Line: write}},
				Created: []report.Frame{{Func: "example.com/bank.TestDeposit", File: test, Line: g1}}, Event: 40},
			{File: bank, Line: read, Op: "read", Goroutine: 8, Variable: "a.balance",
				Stack:   []report.Frame{{Func: "example.com/bank.(*Account).Balance", File: bank, Line: read}},
				Created: []report.Frame{{Func: "example.com/bank.TestDeposit", File: test, Line: g2}}, Event: 52},
		},
		Witness: []report.Step{
			{Goroutine: 6, Op: "go", File: test, Line: g1, Event: 10, Object: "goroutine 7", Text: "starts goroutine 7"},
			{Goroutine: 6, Op: "go", File: test, Line: g2, Event: 12, Object: "goroutine 8", Text: "starts goroutine 8"},
			{Goroutine: 8, Op: "lock", File: bank, Line: lock2, Event: 48, Object: "a.mu", Text: "locks a.mu"},
			{Goroutine: 8, Op: "unlock", File: bank, Line: lock2 + 1, Event: 50, Object: "a.mu", Text: "unlocks a.mu"},
			{Goroutine: 7, Op: "lock", File: bank, Line: lock, Event: 38, Object: "a.mu", Text: "locks a.mu"},
			{Goroutine: 7, Op: "write", File: bank, Line: write, Event: 40, Object: "a.balance", Text: "writes a.balance"},
			{Goroutine: 8, Op: "read", File: bank, Line: read, Event: 52, Object: "a.balance", Text: "reads a.balance"},
		},
		Reordered: []report.Sync{
			{Op: "lock", Goroutine: 7, File: bank, Line: lock, Object: "a.mu"},
			{Op: "lock", Goroutine: 8, File: bank, Line: lock2, Object: "a.mu", First: true},
		},
	}
}

// fakeRunner stands in for check.Run.
type fakeRunner struct {
	mu    sync.Mutex
	calls []check.Options
	// answer returns the report for a call; block makes the call wait
	// for cancellation (after reporting "building").
	answer func(n int, opts check.Options) *report.Report
	block  func(n int) bool
}

func (f *fakeRunner) run(ctx context.Context, opts check.Options) (*report.Report, error) {
	f.mu.Lock()
	f.calls = append(f.calls, opts)
	n := len(f.calls)
	f.mu.Unlock()
	progress := func(stage string, events int) {
		if opts.Progress != nil {
			opts.Progress(check.Progress{Package: "example.com/bank", Stage: stage, Events: events})
		}
	}
	progress("building", 0)
	if f.block != nil && f.block(n) {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	progress("running", 0)
	progress("analysing", 1234)
	progress("solving", 1234)
	return f.answer(n, opts), nil
}

func (f *fakeRunner) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeRunner) last() check.Options {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[len(f.calls)-1]
}

// bankReport answers every run with the race of bankTxtar.
func bankReport(t testing.TB, dir string) func(int, check.Options) *report.Report {
	return func(int, check.Options) *report.Report {
		return &report.Report{
			Findings: []report.Finding{bankFinding(t, dir)},
			Tests:    []report.Test{{Package: "example.com/bank", Name: "TestDeposit", Events: 1234, Outcome: "pass"}},
		}
	}
}
