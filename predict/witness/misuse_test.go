// This file tests the checker's misuse kinds (misuse.go) on small Go-like
// traces: each accepts a schedule that ends with the failing operation
// next, and rejects each way of getting the claim wrong.

package witness

import (
	"strings"
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
	"github.com/seer-tools/seer/trace"
)

func goTrace(t *testing.T, text string) *Checker {
	t.Helper()
	tr, err := gotext.Build(text)
	if err != nil {
		t.Fatal(err)
	}
	loc, spans := trace.GroupAccesses(tr.Events)
	return NewChecker(tr, loc, spans)
}

// Events: 0 go g2, 1 start g2, 2 read c (send), 3 send c, 4 w done,
// 5 write c (close), 6 close c, 7 r done, 8 send d's read, 9 send d.
const sendCloseTrace = `
g1 go g2
g2 send c
g2 w done
g1 close c
g1 r done
g1 send d
`

// Events: 0 go g2, 1 start g2, 2 lock mu, 3 read c (send), 4 send c,
// 5 unlock mu, 6 lock mu, 7 write c (close), 8 close c, 9 write closed,
// 10 unlock mu: the sender's section came first.
const sendSectionTrace = `
g1 go g2
g2 lock mu
g2 send c
g2 unlock mu
g1 lock mu
g1 close c
g1 w closed
g1 unlock mu
`

// Events: as sendSectionTrace's, with 3 a read of closed inside the
// sender's section, before its send (4, 5): the fixed twin.
const sendCheckedTrace = `
g1 go g2
g2 lock mu
g2 r closed
g2 send c
g2 unlock mu
g1 lock mu
g1 close c
g1 w closed
g1 unlock mu
`

// Events: 0 go g2, 1 add wg, 2 start g2, 3 done wg, 4 wait wg: the Add
// comes after the go statement.
const waitGroupTrace = `
g1 go g2
g1 add wg 1
g2 done wg
g1 wait wg
`

// Events: 0 add wg, 1 go g2, 2 go g3, 3 start g2, 4 add wg, 5 done wg,
// 6 start g3, 7 done wg, 8 wait wg: g2 adds for itself.
const reuseTrace = `
g1 add wg 1
g1 go g2
g1 go g3
g2 add wg 1
g2 done wg
g3 done wg
g1 wait wg
`

// Events: 0 lock mu, 1 go g2, 2 start g2, 3 unlock mu, 4 lock mu,
// 5 unlock mu: g2 unlocks the lock g1 took.
const unlockTrace = `
g1 lock mu
g1 go g2
g2 unlock mu
g1 lock mu
g2 unlock mu
`

func TestCheckMisuse(t *testing.T) {
	for _, tc := range []struct {
		name, trace string
		s           *Schedule
		want        string // "" means accepted
	}{
		{"send after close", sendCloseTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{6, 2}, Witness: []int{0, 5, 6, 1}}, ""},
		{"send after close, prefix form", sendCloseTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{6, 2}, Prefix: 7, Stops: []int{2}, Witness: []int{6}}, ""},
		{"close not run", sendCloseTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{6, 2}, Witness: []int{0, 5, 1}}, "does not run in the schedule"},
		{"send not next", sendCloseTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{6, 2}, Witness: []int{0, 5, 6}}, "next event"},
		{"send already started", sendCloseTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{6, 8}, Witness: []int{0, 1, 2, 3, 4, 5, 6, 7}}, "different channels"},
		{"not a send", sendCloseTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{6, 4}, Witness: []int{0, 1, 2, 3, 5, 6}}, "does not start a send"},
		{"close before a send that ran", sendCloseTrace,
			// g1 closes before g2's send starts and g2's send then runs:
			// its read sees the close's write, not what it saw.
			&Schedule{Kind: SendOnClosed, Events: []int{6, 2}, Witness: []int{0, 5, 6, 1, 2}}, "read 2 sees writer 5"},
		{"two closes", sendCloseTrace,
			&Schedule{Kind: CloseOfClosed, Events: []int{6, 6}, Witness: []int{0, 5, 6}}, "next event"},
		{"send's section moved after the close's", sendSectionTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{8, 3}, Prefix: 11, Witness: []int{2}}, ""},
		{"send's section moved into the close's", sendSectionTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{8, 3}, Prefix: 10, Witness: []int{2}}, "acquired while held"},
		{"send's section moved, the send run too", sendSectionTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{8, 3}, Prefix: 11, Witness: []int{2, 3}}, "read 3 sees writer 7"},
		{"checked send's section moved after the close's", sendCheckedTrace,
			&Schedule{Kind: SendOnClosed, Events: []int{9, 4}, Prefix: 12, Witness: []int{2, 3}}, "read 3 sees writer 10"},
		{"Done before its Add", waitGroupTrace,
			&Schedule{Kind: NegativeWaitGroup, Events: []int{3}, Witness: []int{0, 2}}, ""},
		{"Done after its Add", waitGroupTrace,
			&Schedule{Kind: NegativeWaitGroup, Events: []int{3}, Witness: []int{0, 1, 2}}, "counter is 1"},
		{"not a Done", waitGroupTrace,
			&Schedule{Kind: NegativeWaitGroup, Events: []int{4}, Witness: []int{0, 1, 2, 3}}, "not a Done"},
		{"Wait with the Add next, counter zero", reuseTrace,
			&Schedule{Kind: WaitGroupReuse, Events: []int{8, 4}, Witness: []int{0, 1, 2, 3, 6, 7}}, ""},
		{"Wait with the Add next, counter one", reuseTrace,
			&Schedule{Kind: WaitGroupReuse, Events: []int{8, 4}, Witness: []int{0, 1, 2, 3}}, "counter is 1"},
		{"Wait not next", reuseTrace,
			&Schedule{Kind: WaitGroupReuse, Events: []int{8, 4}, Witness: []int{0, 1, 3}}, "next event"},
		{"Add of the Wait's goroutine", reuseTrace,
			&Schedule{Kind: WaitGroupReuse, Events: []int{8, 0}, Witness: []int{0, 1, 2, 3}}, "two next steps"},
		{"Add already run", reuseTrace,
			&Schedule{Kind: WaitGroupReuse, Events: []int{8, 4}, Witness: []int{0, 1, 2, 3, 4, 5, 6, 7}}, "next event"},
		{"unlock of a free lock", unlockTrace,
			&Schedule{Kind: UnlockOfUnlocked, Events: []int{5}, Witness: []int{0, 1, 2, 3}}, ""},
		{"unlock of a held lock", unlockTrace,
			&Schedule{Kind: UnlockOfUnlocked, Events: []int{5}, Witness: []int{0, 1, 2, 3, 4}}, "allows the unlock"},
		{"unlock of a copied mutex", `
g1 go g2
g2 unlock mu
g1 lock mu
g2 unlock mu
`, &Schedule{Kind: UnlockOfUnlocked, Events: []int{4}, Witness: []int{0, 1, 2}}, "not known"},
		{"not an unlock", unlockTrace,
			&Schedule{Kind: UnlockOfUnlocked, Events: []int{4}, Witness: []int{0, 1, 2, 3}}, "not an unlock"},
		{"wrong count", unlockTrace,
			&Schedule{Kind: UnlockOfUnlocked, Events: []int{3, 5}, Witness: []int{0, 1, 2}}, "wrong number of events"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := goTrace(t, tc.trace)
			err := k.Check(tc.s)
			wantVerdict(t, err, tc.want)
		})
	}
}

// TestUnknownCounter checks that a WaitGroup whose recorded state does
// not match its events (it was copied over, or events were lost) is
// never judged.
func TestUnknownCounter(t *testing.T) {
	tr, err := gotext.Build(waitGroupTrace)
	if err != nil {
		t.Fatal(err)
	}
	for k := range tr.Values {
		if tr.Values[k].Event == 1 {
			tr.Values[k].Old = 5 << 32 // the run saw 5 at the Add
		}
	}
	loc, spans := trace.GroupAccesses(tr.Events)
	k := NewChecker(tr, loc, spans)
	err = k.Check(&Schedule{Kind: NegativeWaitGroup, Events: []int{3}, Witness: []int{0, 2}})
	if err == nil || !strings.Contains(err.Error(), "not known") {
		t.Errorf("got %v, want the counter not known", err)
	}
}
