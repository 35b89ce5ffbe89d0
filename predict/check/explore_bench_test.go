// This file holds the found-vs-runs benchmark of seer check -explore on
// the kernels of testdata/explore/bug: how many of its bugs (distinct
// findings and leaks) are found after 0, 1, 3, 5, 10 and 20 steered runs,
// and how many runs finding each took, over seeds 1..b.N; and, under the
// same budget and seeds, the findings on their fixed twins (none).
//
//	go test ./predict/check -run '^$' -bench ExploreCurve -benchtime 10x

package check

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/seer-tools/seer/predict/report"
)

// exploreBugs are the bugs of testdata/explore/bug, by test and kind.
var exploreBugs = []string{"TestCancel race", "TestClosed race", "TestPool race", "TestPredicted race", "TestStarted race", "TestTimeout leak"}

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
			took := map[string][]string{} // bug -> runs finding it took, per seed ("-": not found)
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
				runs := map[string]int{}
				for _, f := range rep.Findings {
					runs[f.Test+" "+string(f.Kind)] = f.Origin.Runs
				}
				for _, l := range x.Leaks {
					runs[l.Test+" leak"] = l.Origin.Runs
				}
				for _, bug := range exploreBugs {
					s := "-"
					if n, ok := runs[bug]; ok {
						s = fmt.Sprint(n)
					}
					took[bug] = append(took[bug], s)
				}
				for bug := range runs {
					if !slices.Contains(exploreBugs, bug) {
						b.Errorf("seed %d: a finding no kernel has: %s", i+1, bug)
					}
				}
			}
			for k, n := range at {
				b.ReportMetric(sum[k]/float64(b.N), fmt.Sprintf("found@%d", n))
			}
			for _, bug := range exploreBugs {
				b.Logf("%-18s runs to find it, seeds 1..%d: %s", bug, b.N, strings.Join(took[bug], " "))
			}
		})
	}
	// The fixed twins under the same budget and seeds: no finding, no
	// leak.
	b.Run("fixed", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			rep, err := Run(context.Background(), Options{
				Dir: exploreDir, Patterns: []string{"./fixed"}, Timeout: time.Minute,
				Explore: 20, ExploreSeed: uint64(i + 1),
			})
			if err != nil {
				b.Fatal(err)
			}
			for _, f := range rep.Findings {
				b.Errorf("seed %d: fixed twin %s: %s %+v", i+1, f.Test, f.Kind, f.Accesses)
			}
			for _, tt := range rep.Tests {
				if len(tt.Leaked) > 0 {
					b.Errorf("seed %d: fixed twin %s leaked %v", i+1, tt.Name, tt.Leaked)
				}
			}
			b.ReportMetric(float64(len(rep.Explore[0].Runs)), "runs")
		}
	})
}
