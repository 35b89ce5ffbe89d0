// This file holds the found-vs-runs benchmark of seer check -explore on
// the kernels of testdata/explore/bug: how many of its bugs (distinct
// findings and leaks) are found after 1, 3, 5, 10 and 20 steered runs,
// and how many runs finding each took, over seeds 1..b.N.
//
//	go test ./predict/check -run '^$' -bench ExploreCurve -benchtime 5x

package check

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

func BenchmarkExploreCurve(b *testing.B) {
	defer func(p int) { ExplorePatience = p }(ExplorePatience)
	ExplorePatience = 20 // the curve runs to the budget
	for _, set := range [][]report.Strategy{nil, {report.StrategyPCT}, {report.StrategySelect}, {report.StrategyPartner}} {
		name := "all"
		if set != nil {
			name = string(set[0])
		}
		b.Run(name, func(b *testing.B) {
			at := []int{0, 1, 3, 5, 10, 20}
			sum := make([]float64, len(at))
			took := map[string][]int{} // bug -> runs finding it took, per seed
			for i := 0; i < b.N; i++ {
				rep, err := Run(context.Background(), Options{
					Dir: exploreDir, Patterns: []string{"./bug"}, Timeout: time.Minute,
					Explore: 20, ExploreSeed: uint64(i + 1), ExploreStrategies: set,
				})
				if err != nil {
					b.Fatal(err)
				}
				x := rep.Explore[0]
				for k, n := range at {
					sum[k] += float64(x.Found[min(n, len(x.Found)-1)])
				}
				for _, f := range rep.Findings {
					took[f.Test+" "+string(f.Kind)] = append(took[f.Test+" "+string(f.Kind)], f.Origin.Runs)
				}
				for _, l := range x.Leaks {
					took[l.Test+" leak"] = append(took[l.Test+" leak"], l.Origin.Runs)
				}
			}
			for k, n := range at {
				b.ReportMetric(sum[k]/float64(b.N), fmt.Sprintf("found@%d", n))
			}
			for bug, runs := range took {
				b.Logf("%s: found in %d of %d seeds, after runs %v", bug, len(runs), b.N, runs)
			}
		})
	}
}
