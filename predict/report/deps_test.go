// This file tests that package report imports only the standard library:
// the report model and its renderers must not depend on how findings are
// found (issue 30).

package report

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyStandardLibrary lists report's dependencies with the go
// command and fails on any that is not in the standard library.
func TestImportsOnlyStandardLibrary(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	out, err := exec.Command(goCmd, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, path := range strings.Fields(string(out)) {
		if path != "github.com/seer-tools/seer/predict/report" {
			t.Errorf("package report imports %s; it may import only the standard library", path)
		}
	}
}
