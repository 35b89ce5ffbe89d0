// This file holds the package's example: check the tests of a package and
// print the report as seer check does.

package check_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
)

// Check the tests of examples/bank whose names start with TestAudit, and
// print what was found as seer check does. (Without an Output comment the
// example is compiled but not run: a run builds and records the tests.)
func ExampleRun() {
	rep, err := check.Run(context.Background(), check.Options{
		Dir:      "../../examples/bank",
		Patterns: []string{"."},
		Run:      "^TestAudit",
		Timeout:  time.Minute,
	})
	if err != nil {
		log.Fatal(err)
	}
	r, err := report.Format(report.FormatText, nil, report.SARIFOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := r.Render(os.Stdout, rep); err != nil {
		log.Fatal(err)
	}
}
