// This file holds an end-to-end regression test for issue 14's false
// atomicity report inside the standard library: with -atomicity, a test
// that starts processes from two goroutines was told of an "atomicity
// violation on syscall.forking".

package check

import (
	"context"
	"strings"
	"testing"
	"time"
)

// syscall.ForkLock is held across each fork; forking, which counts the
// forks in flight, is guarded by forkingLock and updated by the other
// goroutine while the first holds ForkLock, by design. ForkLock's critical
// section is not a transaction for forking, which another lock guards.
const forkModule = `package forks

import (
	"os/exec"
	"sync"
	"testing"
)

func TestStartFromTwoGoroutines(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 4; j++ {
				if err := exec.Command("true").Run(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
}
`

func TestNoAtomicityReportOnForkLock(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	dir := testModule(t, "example.com/forks", "fork_test.go", forkModule)
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute, Atomicity: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Kind == "atomicity" {
			t.Errorf("atomicity finding in a test whose only sharing is the standard library's fork lock: %+v", f)
		}
		if strings.HasPrefix(f.Variable, "syscall.") {
			t.Errorf("finding on the standard library's fork state: %+v", f)
		}
	}
}
