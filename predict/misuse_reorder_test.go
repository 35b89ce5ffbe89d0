// This file tests the misuse layer's moved-section schedules
// (misuse_reorder.go, section_move.go) where a location joins bytes that
// the sections use apart: a struct written whole (its constructor), whose
// closed flag the closer's section sets next to the field the sender's
// section reads.

package predict

import (
	"testing"

	"github.com/seer-tools/seer/internal/gotext"
)

func TestMisuseMovedBytes(t *testing.T) {
	// Line 1 writes q whole (16 bytes); the flag's accesses (lines 2, 4
	// and 21) are q's bytes 8 to 16; the sender's section reads q's
	// first 8 bytes (line 3).
	for _, tc := range []struct {
		name, trace string
		want        string
	}{
		{"the section reads the field next to the flag", `
g1 w q @1
g1 go g2
g2 r flag @2
g2 lock mu
g2 r q @3
g2 send c @10
g2 unlock mu
g1 lock mu
g1 w flag @21
g1 close c @20
g1 unlock mu
`, "send-on-closed 20-10 predicted"},
		{"the section reads the flag", `
g1 w q @1
g1 go g2
g2 lock mu
g2 r q @3
g2 r flag @4
g2 send c @10
g2 unlock mu
g1 lock mu
g1 w flag @21
g1 close c @20
g1 unlock mu
`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := gotext.Build(tc.trace)
			if err != nil {
				t.Fatal(err)
			}
			var q uint64
			for i := range tr.Events {
				if e := &tr.Events[i]; tr.Site(e).Line == 1 {
					q, e.Size = e.Addr, 16
				}
			}
			for i := range tr.Events {
				switch e := &tr.Events[i]; tr.Site(e).Line {
				case 2, 4, 21:
					e.Addr = q + 8
				}
			}
			wantMisuse(t, tr, tc.want)
		})
	}
}
