// This file implements the example of package predict's entry point,
// Analyze, on a trace in RAPID's STD text format.

package predict_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
)

// Two threads write x, one before and one after a critical section of
// lock l. The recorded run orders the writes through l, so a
// happens-before detector sees no race; the sync-preserving layer finds
// a schedule that runs T1's section first and the writes back to back,
// and the checker re-checks it before Analyze reports it.
func ExampleAnalyze() {
	t, err := trace.ReadSTD(strings.NewReader(`
T0|fork(T1)|1
T0|w(x)|2
T0|acq(l)|3
T0|rel(l)|4
T1|acq(l)|5
T1|rel(l)|6
T1|w(x)|7
`))
	if err != nil {
		log.Fatal(err)
	}
	res, err := predict.Analyze(context.Background(), t, predict.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range res.Findings {
		fmt.Printf("%s at lines %d and %d, predicted %v, witness of %d steps after the prefix\n",
			f.Kind, t.Site(&t.Events[f.Events[0]]).Line, t.Site(&t.Events[f.Events[1]]).Line, f.Predicted, len(f.Witness))
	}
	// Stats has a funnel row per layer, in the order they run.
	for _, st := range res.Stats.Stages {
		if st.Name == "shb" || st.Name == "sync-preserving" {
			fmt.Printf("%s layer: %d pair(s) of sites proved\n", st.Name, st.RaceSites)
		}
	}
	// Output:
	// race at lines 2 and 7, predicted true, witness of 2 steps after the prefix
	// shb layer: 0 pair(s) of sites proved
	// sync-preserving layer: 1 pair(s) of sites proved
}
