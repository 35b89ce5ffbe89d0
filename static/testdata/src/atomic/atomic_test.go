package atomic_test

import (
	"testing"

	"example.com/seer.data/atomic"
)

//seer:atomic
func helper(a, b *atomic.Account) { atomic.Transfer(a, b, 1) }

func TestTransfer(t *testing.T) {
	var a, b atomic.Account
	helper(&a, &b)
}
