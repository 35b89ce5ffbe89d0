package predict

import (
	"context"
	"os"
	"testing"

	"github.com/seer-tools/seer/trace"
)

func BenchmarkSTDFile(b *testing.B) {
	f, err := os.Open(os.Getenv("SEER_STD"))
	if err != nil {
		b.Skip(err)
	}
	tr, err := trace.ReadSTD(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	a := os.Getenv("SEER_ANALYSIS")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Analyze(context.Background(), tr, Options{Analysis: a})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Findings)), "findings")
	}
}
