package harness

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// GoTestNote summarises go test -race output: the races the detector
// reported, the tests and packages that failed.
func GoTestNote(out []byte) string {
	var parts []string
	if n := bytes.Count(out, []byte("WARNING: DATA RACE")); n > 0 {
		parts = append(parts, plural(n, "race report"))
	}
	var failed []string
	for _, m := range failedTest.FindAllSubmatch(out, -1) {
		failed = append(failed, string(m[1]))
	}
	if len(failed) > 0 {
		parts = append(parts, plural(len(failed), "failed test")+" "+someNames(failed))
	}
	if n := len(failedPkg.FindAll(out, -1)); n > 0 {
		parts = append(parts, plural(n, "failed package"))
	}
	if bytes.Contains(out, []byte("panic: test timed out")) {
		parts = append(parts, "timed out")
	}
	return strings.Join(parts, ", ")
}

var (
	failedTest = regexp.MustCompile(`(?m)^--- FAIL: (\S+)`) // top-level tests only
	failedPkg  = regexp.MustCompile(`(?m)^FAIL[ \t]+\S+`)
)

// seerReport is the part of seer check -json's report the harness reads.
type seerReport struct {
	Findings []struct {
		Kind      string `json:"kind"`
		Predicted bool   `json:"predicted"`
	} `json:"findings"`
	Tests []struct {
		Name    string   `json:"name"`
		Events  int      `json:"events"`
		Outcome string   `json:"outcome"`
		Errors  []string `json:"errors"`
		Leaked  []string `json:"leaked"`
	} `json:"tests"`
}

// SeerNote summarises seer check -json output: findings (how many
// predicted), test outcomes other than pass, recorded events, and whether
// a run was cut at seer's event cap. stderr's last line is used when
// stdout holds no report.
func SeerNote(stdout, stderr []byte) string {
	var rep seerReport
	if err := json.Unmarshal(stdout, &rep); err != nil {
		msg := "no JSON report"
		if line := lastLine(stderr); line != "" {
			msg += ": " + line
		}
		return msg
	}
	var parts []string
	predicted := 0
	for _, f := range rep.Findings {
		if f.Predicted {
			predicted++
		}
	}
	parts = append(parts, fmt.Sprintf("%s (%d predicted)", plural(len(rep.Findings), "finding"), predicted))
	outcomes := map[string]int{}
	events, leaked := 0, 0
	cut := false
	var failed []string
	for _, t := range rep.Tests {
		outcomes[t.Outcome]++
		if t.Outcome != "pass" && t.Outcome != "skip" {
			failed = append(failed, t.Name)
		}
		events += t.Events
		if len(t.Leaked) > 0 {
			leaked++
		}
		for _, e := range t.Errors {
			if strings.Contains(e, "the run made more than") {
				cut = true
			}
		}
	}
	var oc []string
	for _, o := range slices.Sorted(maps.Keys(outcomes)) {
		if o != "pass" {
			oc = append(oc, fmt.Sprintf("%d %s", outcomes[o], o))
		}
	}
	tests := plural(len(rep.Tests), "test")
	if len(oc) > 0 {
		tests += " (" + strings.Join(oc, ", ") + ")"
	}
	if len(failed) > 0 {
		tests += " " + someNames(failed)
	}
	parts = append(parts, tests, fmt.Sprintf("%d events", events))
	if leaked > 0 {
		parts = append(parts, plural(leaked, "test")+" leaving goroutines")
	}
	if cut {
		parts = append(parts, "trace cut at the event cap")
	}
	return strings.Join(parts, ", ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func lastLine(b []byte) string {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// someNames lists the first three names, in brackets.
func someNames(names []string) string {
	if len(names) > 3 {
		names = append(names[:3:3], "…")
	}
	return "[" + strings.Join(names, " ") + "]"
}
