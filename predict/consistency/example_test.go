// This file implements the example of package consistency's entry point,
// Check, on the store-buffering litmus test.

package consistency_test

import (
	"fmt"
	"log"

	"github.com/seer-tools/seer/predict/consistency"
)

// Store buffering: each process writes one key and then reads the other
// key's initial 0. No interleaving explains both reads, so the history
// is not sequentially consistent; under TSO each write may wait in its
// process's store buffer past the read, so it is TSO-consistent.
func ExampleCheck() {
	h := consistency.New()
	h.Write("p1", "x", 1)
	h.Read("p1", "y", 0)
	h.Write("p2", "y", 1)
	h.Read("p2", "x", 0)
	for _, m := range []consistency.Model{consistency.SC, consistency.TSO} {
		res, err := consistency.Check(h, m)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%v: consistent %v\n", m, res.Consistent)
		if v := res.Violation; v != nil {
			fmt.Printf("  %s\n", v.Msg)
		}
	}
	// Output:
	// SC: consistent false
	//   no store order extends the partial store order pww: po ∪ wr ∪ pww ∪ rw[pww] is cyclic
	// TSO: consistent true
}
