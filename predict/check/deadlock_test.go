// This file holds the end-to-end test of issue 15's deadlock finding: a
// lock-order inversion that the recorded run does not hang on is
// predicted, with a witness the checker replayed, and its fixed twin is
// not reported.

package check

import (
	"bytes"
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/internal/sarifcheck"
	"github.com/seer-tools/seer/predict/report"
)

// lockOrderModule moves money between two accounts, taking their locks
// in the order moveAB or moveBA names. The test runs the two moves one
// after the other, so that its run never hangs, but orders them only by
// sleeping, which is no synchronisation: in another schedule (a slow
// first move) both goroutines take their first lock and wait for each
// other's. ORDER is replaced by the order moveBA takes the locks in.
// (Waiting with runtime.NumGoroutine would order the moves for real,
// through runtime state the recording cannot see: seer would predict a
// deadlock no schedule shows, and -replay would not confirm it.)
const lockOrderModule = `package lockorder

import (
	"sync"
	"testing"
	"time"
)

type accounts struct {
	a, b sync.Mutex
	x, y int
}

func (s *accounts) moveAB() {
	s.a.Lock()
	s.b.Lock()
	s.x--
	s.y++
	s.b.Unlock()
	s.a.Unlock()
}

func (s *accounts) moveBA() {
	ORDER
	s.y--
	s.x++
	s.a.Unlock()
	s.b.Unlock()
}

func TestTransfers(t *testing.T) {
	s := &accounts{}
	go s.moveAB()
	time.Sleep(100 * time.Millisecond)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.moveBA()
	}()
	wg.Wait()
}
`

func TestDeadlockPredicted(t *testing.T) {
	if testing.Short() {
		t.Skip("records tests")
	}
	for _, tc := range []struct {
		name, order string
		want        bool
	}{
		{"opposite orders", "s.b.Lock()\n\ts.a.Lock()", true},
		{"one order", "s.a.Lock()\n\ts.b.Lock()", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(lockOrderModule, "ORDER", tc.order, 1)
			dir := testModule(t, "example.com/lockorder", "lock_test.go", src)
			rep := recordModule(t, dir)
			f, ok := twinFinding(t, rep, tc.want)
			if !ok {
				return
			}
			if f.Kind != "deadlock" || !f.Predicted || f.Test != "TestTransfers" || len(f.Accesses) != 2 || len(f.Witness) == 0 {
				t.Fatalf("finding %+v, want a predicted deadlock in TestTransfers with two acquires and a witness", f)
			}
			got := accessSites(&f)
			if strings.Join(got, ", ") != "lock_test.go:16 lock, lock_test.go:25 lock" &&
				strings.Join(got, ", ") != "lock_test.go:25 lock, lock_test.go:16 lock" {
				t.Errorf("acquires %v, want moveAB's s.b.Lock() and moveBA's s.a.Lock()", got)
			}
			// Where each goroutine took the lock it holds: moveAB's
			// s.a.Lock() at 15, moveBA's s.b.Lock() at 24.
			heldAt := map[int]int{16: 15, 25: 24}
			heldLock := map[int]string{16: "s.a", 25: "s.b"}
			for _, a := range f.Accesses {
				if len(a.Holds) != 1 || a.Holds[0].Line != heldAt[a.Line] || a.Holds[0].Lock != heldLock[a.Line] {
					t.Errorf("the acquire at line %d holds %+v, want %s locked at line %d", a.Line, a.Holds, heldLock[a.Line], heldAt[a.Line])
				}
			}
			if s := report.HoldSentences(&f, filepath.Base); len(s) != 2 || !strings.Contains(s[0], "locked at lock_test.go:") {
				t.Errorf("hold sentences %q", s)
			}
			var b bytes.Buffer
			if err := report.WriteSARIF(&b, rep, report.SARIFOptions{Root: dir}); err != nil {
				t.Fatal(err)
			}
			sarifcheck.Validate(t, sarifcheck.Schema(t), b.Bytes())
			if !strings.Contains(b.String(), `"ruleId": "deadlock"`) {
				t.Errorf("SARIF has no deadlock result:\n%s", b.String())
			}
		})
	}
}

// recordModule records and analyses the tests of the module in dir.
func recordModule(t *testing.T, dir string) *report.Report {
	t.Helper()
	rep, err := Run(context.Background(), Options{Dir: dir, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// accessSites lists a finding's accesses as "file.go:line op".
func accessSites(f *report.Finding) []string {
	var out []string
	for _, a := range f.Accesses {
		out = append(out, filepath.Base(a.File)+":"+strconv.Itoa(a.Line)+" "+a.Op)
	}
	return out
}

// lineOf returns the line of src on which text starts.
func lineOf(src, text string) int { return 1 + strings.Count(src[:strings.Index(src, text)], "\n") }

// twinFinding checks one side of a paired test: the buggy program (want)
// has exactly one finding, which it returns with true; its fixed twin has
// none, and false tells the caller to stop there.
func twinFinding(t *testing.T, rep *report.Report, want bool) (report.Finding, bool) {
	t.Helper()
	if !want {
		if len(rep.Findings) != 0 {
			t.Fatalf("findings in the fixed twin: %+v", rep.Findings)
		}
		return report.Finding{}, false
	}
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %+v, want one", rep.Findings)
	}
	return rep.Findings[0], true
}
