// Package atomic is test data for the //seer:atomic directive.
package atomic

import "sync"

type Account struct {
	mu      sync.Mutex
	balance int
}

// Transfer moves n from a to b.
//
//seer:atomic
func Transfer(a, b *Account, n int) {
	a.Withdraw(n)
	b.Deposit(n)
}

//seer:atomic
func (a *Account) Withdraw(n int) {
	a.mu.Lock()
	a.balance -= n
	a.mu.Unlock()
}

// Deposit adds n.
//
//seer:atomic
func (a *Account) Deposit(n int) {
	a.mu.Lock()
	a.balance += n
	a.mu.Unlock()
}

//seer:atomic
func (a Account) Snapshot() int { return a.balance }

type Stack[E any] struct{ items []E }

//seer:atomic
func (s *Stack[E]) Push(e E) { s.items = append(s.items, e) }

//seer:atomic
func Map[E, F any](xs []E, f func(E) F) []F { return nil }

func init() {}

//seer:atomic
func init() {}

// NotAtomic is not marked: the directive needs no space after the slashes.
// seer:atomic
func NotAtomic() {}

//seer:atomic
var counter int

var (
	//seer:atomic
	other int
)

//seer:atomic
type T struct{}

type I interface {
	//seer:atomic
	M()
}

func Body() {
	//seer:atomic
	x := func() {}
	x()
}

//seer:atomic foo
func WithArgs() {}

//seer:atomic
//seer:atomic
func Twice() {}

//seer:atomics
func Typo() {}

//seer:atomic

func Separated() {}

//seer:atomic
const K = 1
