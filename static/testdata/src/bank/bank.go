// Package bank is test data for seer's static package: each line with an
// access carries markers (see static/marker_test.go) saying what
// Program.Access and Program.ReadFlow must find on it.
package bank

import "sync"

type Account struct {
	mu      sync.Mutex
	balance int
	count   int32
	owner   *Owner
}

type Owner struct {
	name string
	n    int
}

type Branch struct {
	*Owner
	total int
}

var (
	hits   int
	x, y   int
	s      []int
	m      map[string]int
	seed   = 7
	buf    []byte
	dst    []int
	hook   func(int)
	global Account
	ch     = make(chan int, 10)
)

var initial = seed * 2 //@read("seed") irrelevant

func (a *Account) Deposit(n int) {
	a.mu.Lock()
	a.balance += n //@read("a.balance") write("a.balance") irrelevant
	a.mu.Unlock()
}

func (a *Account) Balance() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.balance //@read("a.balance") relevant nowrite
}

func (a Account) Value() int { return a.balance }

func Hit() {
	hits++ //@read("hits") write("hits") irrelevant
}

func Sum() int {
	total := x + y //@read("x or y", ambiguous) nowrite relevant
	return total
}

func Double() {
	x = x + x //@read("x") write("x") irrelevant
}

func Index(i, v int) int {
	s[i] = v  //@read("s") write("s[i]") relevant
	w := s[i] //@read("s or s[i]", ambiguous) relevant
	return w
}

func Maps(k string) (int, bool) {
	m[k] = 1      //@read("m") write("m[k]") relevant
	v := m[k]     //@read("m or m[k]", ambiguous) relevant
	_, ok := m[k] //@read("m or m[k]", ambiguous) relevant
	delete(m, k)  //@read("m") write("delete(m, k)") relevant
	return v, ok
}

func MapLocal(mm map[string]int, k string) int {
	mm[k]++               //@read("mm[k]") write("mm[k]") irrelevant
	n := len(mm)          //@read("len(mm)") relevant
	for key := range mm { //@read("mm") relevant
		_ = key
	}
	return n
}

func Deref(p *int, q *Account) int {
	*p = 1         //@write("*p") noread
	v := *p        //@read("*p") relevant
	w := q.Value() //@read("*q", "q") relevant
	return v + w
}

func Ranges(xs []int, arr *[4]int) int {
	t := 0
	for _, v := range xs { //@read("elements of xs", "xs")
		t += v
	}
	for i := range arr { //@noread
		arr[i] = i //@write("arr[i]") noread
	}
	return t
}

func Appends(v int) {
	s = append(s, v)        //@read("s") write("s") relevant
	dst = append(dst, hits) //@read("dst or hits", ambiguous) relevant
}

func Copies(src []int) {
	copy(dst, src) //@read("dst or elements of src", ambiguous) write("elements of dst", "dst")
}

func Local(xs []int) int {
	copy(xs[1:], xs) //@read("elements of xs", "xs") write("elements of xs[1:]", "xs[1:]") irrelevant
	return len(xs)
}

func Strings() string {
	b := buf         //@read("buf") relevant
	return string(b) //@read("elements of b", "b") relevant
}

func Promoted(b *Branch) int {
	b.total = b.n  //@read("b.Owner or b.n", ambiguous) write("b.total") relevant
	return b.total //@read("b.total") relevant
}

func NewAccount() *Account {
	return &Account{balance: 5} //@write("Account{…}.balance", "balance: 5")
}

func MultiLine(a *Account, o *Owner) {
	a.balance = compute(
		o.n, //@read("o.n") relevant
		1)
}

func compute(a, b int) int { return a + b }

func Generic[T any](p *T, v T) T {
	*p = v    //@write("*p") noread
	return *p //@read("*p") relevant
}

// Relevance.

func FlowToField(a *Account, o *Owner) {
	a.balance = o.n * 2 //@read("o.n") write("a.balance") irrelevant
}

func FlowThroughLocal(a *Account, o *Owner) {
	t := o.n //@read("o.n") irrelevant
	t = t*3 + 1
	a.balance = t
}

func FlowToBranch(a *Account, o *Owner) {
	t := o.n //@read("o.n") relevant
	if t > 3 {
		a.balance = 1
	}
}

func FlowToCall(o *Owner) {
	hook(o.n) //@read("hook or o.n", ambiguous) relevant
}

func FlowToIndex(o *Owner, xs []int) int {
	return xs[o.n] //@read("xs[o.n] or o.n", ambiguous) relevant
}

func FlowToDivisor(a *Account, o *Owner) {
	a.balance = 100 / o.n //@read("o.n") relevant
}

func FlowToDividend(a *Account, o *Owner) {
	a.balance = o.n / 100 //@read("o.n") irrelevant
}

func FlowToSend(o *Owner) {
	ch <- o.n //@read("ch or o.n", ambiguous) relevant
}

func FlowToMap(mm map[int]int, o *Owner) {
	mm[1] = o.n //@read("o.n") write("mm[1]") irrelevant
}

func FlowToMapKey(mm map[int]int, o *Owner) {
	mm[o.n] = 1 //@read("o.n") relevant
}

func FlowToGo(o *Owner) {
	go compute(o.n, 1) //@read("o.n") relevant
}

func FlowToDeref(a *Account) string {
	return a.owner.name //@read("a.owner or a.owner.name", ambiguous) relevant
}

func FlowToConversion(a *Account, o *Owner) {
	a.count = int32(o.n) //@read("o.n") irrelevant
}

func FlowToLocalArray(a *Account, o *Owner, i int) {
	var arr [4]int
	arr[i] = o.n //@read("o.n") irrelevant
	a.balance = arr[2]
}

func FlowToEscapingArray(o *Owner) []int {
	var arr [4]int
	arr[0] = o.n //@read("o.n") relevant
	return arr[:]
}

func FlowToInterface(o *Owner) any {
	var v any = o.n //@read("o.n") relevant
	return v
}

func FlowDead(o *Owner) {
	_ = o.n //@read("o.n") irrelevant
}

func FlowPhi(a *Account, o *Owner, c bool) {
	t := 0
	if c {
		t = o.n //@read("o.n") irrelevant
	}
	a.balance = t
}

func FlowLoop(a *Account, o *Owner) {
	t := 0
	for i := 0; i < 3; i++ {
		t += o.n //@read("o.n") relevant
		if t > 10 {
			break
		}
	}
	a.balance = t
}
