// This file implements `seer sarif merge`: the SARIF logs of the shards
// of a CI matrix (seer check -shard i/n -format sarif) made one log with
// one run per tool, since code scanning takes one run per tool and
// category in an upload.

package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"reflect"
)

var (
	sarifFlags = flag.NewFlagSet("sarif", flag.ContinueOnError)
	sarifOut   = sarifFlags.String("o", "", "write the merged log to `file` (default: standard output)")
)

var _ = register(&command{
	name:      "sarif",
	usageLine: "sarif merge [-o file] FILE...",
	short:     "merge SARIF logs, such as those of the shards of a CI matrix",
	long: `
Sarif merge reads SARIF 2.1.0 logs (seer check -format sarif, one per
shard of seer check -shard i/n) and writes one log in which the runs of
each tool are one run: its rules united by id, its results in the order
of the files (a result that two files hold alike is kept once), each
result's ruleIndex renumbered to the merged rules. Code scanning takes
one run per tool in an upload.

The runs of one tool must agree on the driver's version and on the base
URIs (originalUriBaseIds) they share, and on each rule's definition;
otherwise, or for a file that is not a SARIF 2.1.0 log, the exit status
is 2 and nothing is written. It is 0 when the log is written.`,
	flags: sarifFlags,
	run:   runSARIF,
})

func runSARIF(c *command, args []string) int {
	if len(args) == 0 || args[0] != "merge" {
		errorf(c, "usage: seer %s", c.usageLine)
		return 2
	}
	if !c.parse(args[1:]) {
		return 2
	}
	if c.flags.NArg() == 0 {
		errorf(c, "usage: seer %s", c.usageLine)
		return 2
	}
	var logs []sarifLog
	for _, name := range c.flags.Args() {
		data, err := os.ReadFile(name)
		if err != nil {
			errorf(c, "%v", err)
			return 2
		}
		log, err := readSARIF(data)
		if err != nil {
			errorf(c, "%s: %v", name, err)
			return 2
		}
		logs = append(logs, log)
	}
	merged, err := mergeSARIF(logs)
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	data, err := json.MarshalIndent(merged, "", "  ")
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	data = append(data, '\n')
	if *sarifOut == "" {
		os.Stdout.Write(data)
		return 0
	}
	if err := os.WriteFile(*sarifOut, data, 0o644); err != nil {
		errorf(c, "%v", err)
		return 2
	}
	return 0
}

// A sarifLog keeps every property of a log: only what merging needs is
// looked at, the rest is carried as it was.
type sarifLog = map[string]any

// readSARIF reads a SARIF 2.1.0 log.
func readSARIF(data []byte) (sarifLog, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var log sarifLog
	if err := dec.Decode(&log); err != nil {
		return nil, fmt.Errorf("not a SARIF log: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("not a SARIF log: more than one JSON value")
	}
	if v, _ := log["version"].(string); v != "2.1.0" {
		return nil, fmt.Errorf("SARIF version %q, want 2.1.0", log["version"])
	}
	if _, ok := log["runs"].([]any); !ok {
		return nil, fmt.Errorf("not a SARIF log: no runs")
	}
	return log, nil
}

// mergeSARIF merges logs: the first log's properties, and one run per
// tool (by driver name), in the order the tools first appear.
func mergeSARIF(logs []sarifLog) (sarifLog, error) {
	var runs []map[string]any
	byTool := map[string]int{}
	for _, log := range logs {
		for _, r := range log["runs"].([]any) {
			run, ok := r.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("a run is not an object")
			}
			tool := driverOf(run)
			name, _ := tool["name"].(string)
			i, ok := byTool[name]
			if !ok {
				byTool[name] = len(runs)
				runs = append(runs, copyRun(run))
				continue
			}
			if err := mergeRun(runs[i], run); err != nil {
				return nil, fmt.Errorf("tool %s: %v", name, err)
			}
		}
	}
	out := sarifLog{}
	for k, v := range logs[0] {
		out[k] = v
	}
	all := make([]any, len(runs))
	for i, r := range runs {
		all[i] = r
	}
	out["runs"] = all
	return out, nil
}

func driverOf(run map[string]any) map[string]any {
	tool, _ := run["tool"].(map[string]any)
	driver, _ := tool["driver"].(map[string]any)
	if driver == nil {
		return map[string]any{}
	}
	return driver
}

// copyRun returns a copy of run that merging may change (its driver, its
// results) without changing the log it came from.
func copyRun(run map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range run {
		out[k] = v
	}
	tool := map[string]any{}
	for k, v := range run["tool"].(map[string]any) {
		tool[k] = v
	}
	driver := map[string]any{}
	for k, v := range driverOf(run) {
		driver[k] = v
	}
	tool["driver"] = driver
	out["tool"] = tool
	results, _ := run["results"].([]any)
	out["results"] = append([]any{}, results...)
	return out
}

// mergeRun adds the rules and results of run to into, a run of the same
// tool.
func mergeRun(into, run map[string]any) error {
	d1, d2 := driverOf(into), driverOf(run)
	if !reflect.DeepEqual(d1["version"], d2["version"]) {
		return fmt.Errorf("driver versions %v and %v differ", d1["version"], d2["version"])
	}
	if b2, ok := run["originalUriBaseIds"].(map[string]any); ok {
		b1, _ := into["originalUriBaseIds"].(map[string]any)
		merged := map[string]any{}
		for k, v := range b1 {
			merged[k] = v
		}
		for k, v := range b2 {
			if old, ok := merged[k]; ok && !reflect.DeepEqual(old, v) {
				return fmt.Errorf("base URI %s is %v in one log and %v in another", k, old, v)
			}
			merged[k] = v
		}
		into["originalUriBaseIds"] = merged
	}
	rules, _ := d1["rules"].([]any)
	index := map[string]int{}
	for i, r := range rules {
		if id, ok := r.(map[string]any)["id"].(string); ok {
			index[id] = i
		}
	}
	theirs, _ := d2["rules"].([]any)
	for _, r := range theirs {
		rule, _ := r.(map[string]any)
		id, _ := rule["id"].(string)
		if i, ok := index[id]; ok {
			if !reflect.DeepEqual(rules[i], r) {
				return fmt.Errorf("rule %s is defined differently in two logs", id)
			}
			continue
		}
		index[id] = len(rules)
		rules = append(rules, r)
	}
	if rules != nil {
		d1["rules"] = rules
	}
	results, _ := into["results"].([]any)
	more, _ := run["results"].([]any)
	for _, r := range more {
		res, ok := r.(map[string]any)
		if !ok {
			return fmt.Errorf("a result is not an object")
		}
		if id, ok := res["ruleId"].(string); ok {
			if i, ok := index[id]; ok {
				c := map[string]any{}
				for k, v := range res {
					c[k] = v
				}
				if _, had := res["ruleIndex"]; had {
					c["ruleIndex"] = json.Number(fmt.Sprint(i))
				}
				res = c
			}
		}
		dup := false
		for _, old := range results {
			if reflect.DeepEqual(old, any(res)) {
				dup = true
				break
			}
		}
		if !dup {
			results = append(results, res)
		}
	}
	into["results"] = results
	return nil
}
