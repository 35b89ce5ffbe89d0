package bank

import (
	"testing"
	"time"
)

// TestAudit deposits while an auditor runs. The auditor starts late, so in
// the recorded run Deposit's critical section comes first and orders the
// note's write before the auditor's read: the race detector stays silent.
// seer predicts the race from the other order of the critical sections.
func TestAudit(t *testing.T) {
	a := &Account{}
	done := make(chan string)
	go func() {
		time.Sleep(20 * time.Millisecond)
		done <- a.Audit()
	}()
	a.Deposit(10)
	if note := <-done; note != "deposit" {
		t.Errorf("note = %q", note)
	}
}

// TestWithdraw makes two withdrawals that both fit. They overlap (the
// second starts 5 ms in, the first one's fraud check takes 100 ms): the
// second checks the balance while the first waits for its fraud check.
// With a smaller balance, both checks would still pass and the account
// would be overdrawn. (If the second started only after the first had
// ended, its check would read the first's write, and no schedule that
// keeps what each read saw puts it back between the first's check and
// act: the fraud check's length is the margin for a loaded machine.)
func TestWithdraw(t *testing.T) {
	a := &Account{balance: 100}
	done := make(chan bool)
	go func() {
		time.Sleep(5 * time.Millisecond)
		done <- a.Withdraw(30)
	}()
	first := a.Withdraw(30)
	second := <-done
	if !first || !second {
		t.Errorf("withdrawals: %v %v", first, second)
	}
	if b := a.Balance(); b != 40 {
		t.Errorf("balance = %d", b)
	}
}
