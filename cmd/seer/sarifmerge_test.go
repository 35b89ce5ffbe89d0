// This file tests seer sarif merge (sarifmerge.go).

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeSARIF(t *testing.T) {
	log := func(version, base string, rules []string, results ...string) string {
		var rs, res []string
		for _, r := range rules {
			rs = append(rs, `{"id":"`+r+`"}`)
		}
		for _, r := range results {
			id, loc, _ := strings.Cut(r, "@")
			idx := 0
			for i, rule := range rules {
				if rule == id {
					idx = i
				}
			}
			res = append(res, `{"ruleId":"`+id+`","ruleIndex":`+string(rune('0'+idx))+`,"message":{"text":"`+loc+`"}}`)
		}
		return `{"version":"2.1.0","$schema":"s","runs":[{"tool":{"driver":{"name":"seer","version":"` + version + `","rules":[` +
			strings.Join(rs, ",") + `]}},"originalUriBaseIds":{"%SRCROOT%":{"uri":"` + base + `"}},"results":[` + strings.Join(res, ",") + `]}]}`
	}
	type result struct {
		RuleID    string `json:"ruleId"`
		RuleIndex int    `json:"ruleIndex"`
		Message   struct{ Text string }
	}
	for _, tc := range []struct {
		name    string
		logs    []string
		rules   string // merged rule ids
		results string // merged results, ruleId@text#ruleIndex
		err     string
	}{
		{
			name:    "shards",
			logs:    []string{log("1", "file:///m/", []string{"race", "deadlock"}, "race@a", "deadlock@b"), log("1", "file:///m/", []string{"deadlock", "leak"}, "leak@c", "deadlock@d")},
			rules:   "race deadlock leak",
			results: "race@a#0 deadlock@b#1 leak@c#2 deadlock@d#1",
		},
		{
			name:    "one result twice",
			logs:    []string{log("1", "file:///m/", []string{"race"}, "race@a"), log("1", "file:///m/", []string{"race"}, "race@a", "race@b")},
			rules:   "race",
			results: "race@a#0 race@b#0",
		},
		{name: "versions", logs: []string{log("1", "file:///m/", nil), log("2", "file:///m/", nil)}, err: "driver versions 1 and 2 differ"},
		{name: "roots", logs: []string{log("1", "file:///m/", nil), log("1", "file:///n/", nil)}, err: "base URI %SRCROOT%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs []sarifLog
			for _, l := range tc.logs {
				sl, err := readSARIF([]byte(l))
				if err != nil {
					t.Fatal(err)
				}
				logs = append(logs, sl)
			}
			merged, err := mergeSARIF(logs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := json.Marshal(merged)
			var got struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Rules []struct{ ID string }
						}
					}
					Results []result
				}
			}
			if err := json.Unmarshal(data, &got); err != nil || len(got.Runs) != 1 {
				t.Fatalf("merged %s (%v), want one run", data, err)
			}
			var rules, results []string
			for _, r := range got.Runs[0].Tool.Driver.Rules {
				rules = append(rules, r.ID)
			}
			for _, r := range got.Runs[0].Results {
				results = append(results, r.RuleID+"@"+r.Message.Text+"#"+string(rune('0'+r.RuleIndex)))
			}
			if strings.Join(rules, " ") != tc.rules || strings.Join(results, " ") != tc.results {
				t.Errorf("rules %v results %v, want %s and %s", rules, results, tc.rules, tc.results)
			}
		})
	}
}

// TestSARIFMergeCommand merges the SARIF logs of two seer predict runs.
func TestSARIFMergeCommand(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, std := range []string{
		"T0|fork(T1)|1\nT0|w(V1)|2\nT0|acq(L1)|3\nT0|rel(L1)|5\nT1|acq(L1)|6\nT1|rel(L1)|8\nT1|r(V1)|9\n",
		"T0|fork(T1)|1\nT0|w(V2)|12\nT0|acq(L1)|3\nT0|rel(L1)|5\nT1|acq(L1)|6\nT1|rel(L1)|8\nT1|w(V2)|19\n",
	} {
		trace := filepath.Join(dir, "t.std")
		os.WriteFile(trace, []byte(std), 0o644)
		out, stderr, code := seer(t, dir, "predict", "-format", "std", "-o", "sarif", trace)
		if code != 1 {
			t.Fatalf("predict %d: exit %d\n%s", i, code, stderr)
		}
		files = append(files, filepath.Join(dir, "log"+string(rune('0'+i))+".sarif"))
		os.WriteFile(files[i], []byte(out), 0o644)
	}
	merged := filepath.Join(dir, "merged.sarif")
	if _, stderr, code := seer(t, dir, append([]string{"sarif", "merge", "-o", merged}, files...)...); code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	data, _ := os.ReadFile(merged)
	var log struct {
		Runs []struct {
			Results []struct {
				RuleID string `json:"ruleId"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Results) != 2 {
		t.Errorf("merged log (%v): %s", err, data)
	}
	if _, stderr, code := seer(t, dir, "sarif", "merge", filepath.Join(dir, "t.std")); code != 2 || !strings.Contains(stderr, "not a SARIF log") {
		t.Errorf("merging a trace: exit %d, %s", code, stderr)
	}
}
