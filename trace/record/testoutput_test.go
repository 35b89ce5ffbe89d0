// This file tests that the scanner of a test binary's -test.v output
// keeps what each test that did not pass printed (TestResult.Output).

package record

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// TestTestOutput: a failed test's log lines (its subtests' too, parallel
// or not, with their results) are kept as go test prints them, a passing
// or skipped test's are not, and neither are the lines of a panic or of
// seer's own reports; the output is bounded.
func TestTestOutput(t *testing.T) {
	long := []string{"=== RUN   TestLong"}
	for i := range maxTestOutput + 3 {
		long = append(long, fmt.Sprintf("    l_test.go:1: line %d", i))
	}
	long = append(long, "--- FAIL: TestLong (0.00s)", "FAIL")
	longWant := append([]string{}, long[1:1+maxTestOutput]...)
	longWant = append(longWant, "... (3 more lines)")
	for _, tc := range []struct {
		name string
		out  string
		want map[string][]string // test -> Output (absent: nil)
	}{
		{"fail and pass", `=== RUN   TestA
    v_test.go:5: a log
    v_test.go:5: a err
--- FAIL: TestA (0.00s)
=== RUN   TestB
    v_test.go:11: b ok
--- PASS: TestB (0.00s)
=== RUN   TestS
    v_test.go:12: skipping
--- SKIP: TestS (0.00s)
FAIL`, map[string][]string{"TestA": {"    v_test.go:5: a log", "    v_test.go:5: a err"}}},
		{"parallel subtests", `=== RUN   TestP
=== RUN   TestP/x
=== PAUSE TestP/x
=== RUN   TestP/y
=== PAUSE TestP/y
=== CONT  TestP/x
    v_test.go:8: sub x
=== CONT  TestP/y
    v_test.go:8: sub y
    v_test.go:8: bad y
--- FAIL: TestP (0.00s)
    --- PASS: TestP/x (0.00s)
    --- FAIL: TestP/y (0.00s)
=== RUN   TestB
    v_test.go:11: b ok
--- PASS: TestB (0.00s)
FAIL`, map[string][]string{"TestP": {"    v_test.go:8: sub x", "    v_test.go:8: sub y", "    v_test.go:8: bad y", "    --- PASS: TestP/x (0.00s)", "    --- FAIL: TestP/y (0.00s)"}}},
		{"parallel tests interleaved", `=== RUN   TestC
=== PAUSE TestC
=== RUN   TestD
=== PAUSE TestD
=== CONT  TestC
=== CONT  TestD
    v_test.go:13: d1
=== NAME  TestC
    v_test.go:12: c fatal
--- FAIL: TestC (0.00s)
=== NAME  TestD
    v_test.go:13: d2
--- PASS: TestD (0.00s)
FAIL`, map[string][]string{"TestC": {"    v_test.go:12: c fatal"}}},
		{"panic", `=== RUN   TestQ
    q_test.go:3: before
--- FAIL: TestQ (0.00s)
panic: boom [recovered]

goroutine 7 [running]:
testing.tRunner.func1.2({0x5e8540, 0x624e90})
	/cache/goroot/src/testing/testing.go:1974 +0x419
`, map[string][]string{"TestQ": {"    q_test.go:3: before"}}},
		{"seer's report", `=== RUN   TestH
    h_test.go:3: waiting
seer: hang: goroutine 1 is g1 [chan receive]
`, map[string][]string{"TestH": {"    h_test.go:3: waiting"}}},
		{"bounded", strings.Join(long, "\n"), map[string][]string{"TestLong": longWant}},
		{"run again (-test.count)", `=== RUN   TestR
    r_test.go:3: first
--- PASS: TestR (0.00s)
=== RUN   TestR
    r_test.go:4: second failed
--- FAIL: TestR (0.00s)
FAIL`, map[string][]string{"TestR": {"    r_test.go:4: second failed"}}},
		{"failed, then passed (-test.count)", `=== RUN   TestF
    f_test.go:3: first failed
--- FAIL: TestF (0.00s)
=== RUN   TestF
--- PASS: TestF (0.00s)
FAIL`, map[string][]string{"TestF": {"    f_test.go:3: first failed"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var s outputScan
			for _, line := range strings.Split(tc.out, "\n") {
				s.note(line)
			}
			got := map[string][]string{}
			for _, r := range s.results("fail") {
				if r.Output != nil {
					got[r.Name] = r.Output
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("outputs:\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}
