// Package bank is seer's example: a small bank whose tests pass, whose
// runs under go test -race are clean, and which still has two concurrency
// bugs that another schedule would show.
package bank

import (
	"sync"
	"time"
)

// An Account is a bank account. Its balance is guarded by mu; note is not.
type Account struct {
	mu      sync.Mutex
	balance int
	audits  int
	note    string // last thing that happened, for the audit log
}

// Deposit adds n to the balance.
func (a *Account) Deposit(n int) {
	a.note = "deposit"
	a.mu.Lock()
	a.balance += n
	a.mu.Unlock()
}

// Audit counts an audit and returns the note. The counter is guarded; the
// note is read after the critical section, where only the order in which
// the two critical sections happened to run keeps it from racing with
// Deposit's write.
func (a *Account) Audit() string {
	a.mu.Lock()
	a.audits++
	a.mu.Unlock()
	return a.note
}

// Balance returns the balance.
func (a *Account) Balance() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance
}

// Withdraw takes n from the balance if it is there, after a fraud check.
// Each access holds the lock, but the check and the act are two critical
// sections with the slow fraud check between them: another withdrawal can
// take the money in the meantime (check-then-act), and the balance can go
// negative. No data race: go test -race has nothing to say.
//
//seer:atomic
func (a *Account) Withdraw(n int) bool {
	a.mu.Lock()
	ok := a.balance >= n
	a.mu.Unlock()
	if !ok || !fraudCheck(n) {
		return false
	}
	a.mu.Lock()
	a.balance -= n
	a.mu.Unlock()
	return true
}

// fraudCheck asks a (slow) fraud service about a withdrawal.
func fraudCheck(n int) bool {
	time.Sleep(100 * time.Millisecond)
	return n < 1000
}
