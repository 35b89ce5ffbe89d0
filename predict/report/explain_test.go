package report

import (
	"os"
	"strings"
	"testing"
)

// TestDocsMatchExplain keeps docs/findings.md, which diagnostics link to,
// identical to what -explain and the hover print.
func TestDocsMatchExplain(t *testing.T) {
	data, err := os.ReadFile("../../docs/findings.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range Kinds() {
		text, ok := Explain(kind)
		if !ok {
			t.Fatalf("no explanation for %s", kind)
		}
		if !strings.Contains(string(data), text) {
			t.Errorf("docs/findings.md does not hold the explanation of %q as report.Explain gives it", kind)
		}
	}
	if _, ok := Explain("nonsense"); ok {
		t.Errorf("Explain accepts an unknown kind")
	}
}
