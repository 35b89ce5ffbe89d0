// This file tests `seer history check` as a user runs it.

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHistoryCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sb.txt", "# store buffering\nP0: w(x,1) r(y,0)\nP1: w(y,1) r(x,0)\n")
	write("mp.txt", "P0: w(x,1) w(y,1)\nP1: r(y,1) r(x,1)\n")
	// Two writes, each read, in either order: the search must choose.
	write("co.txt", "P0: w(x,1) r(x,1)\nP1: w(x,2) r(x,2)\n")
	write("dup.txt", "P0: w(x,1)\n\nP1: w(x,1)\n")
	write("bad.txt", "P0: w(x,1)\nP1 r(x,1)\n")
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
		notInOut string
	}{
		{args: []string{"mp.txt"}, code: 0, out: "mp.txt: SC: consistent"},
		{args: []string{"-model", "tso", "sb.txt"}, code: 0, out: "sb.txt: TSO: consistent"},
		{args: []string{"-model", "sc", "sb.txt"}, code: 1, out: "SC: not consistent (already not CCM)", notInOut: "rules contradict"},
		{args: []string{"-model", "sc", "-explain", "sb.txt"}, code: 1, out: "program order of P0"},
		{args: []string{"sb.txt"}, code: 1, out: "sb.txt: CC: consistent"},
		{args: []string{"dup.txt"}, code: 2, err: "dup.txt:3: P1[0] w(x,1) writes x=1, which P0[0] w(x,1) (line 1) already wrote"},
		{args: []string{"bad.txt"}, code: 2, err: "bad.txt:2: want \"NAME: op op ...\""},
		{args: []string{"-model", "lin", "sb.txt"}, code: 2, err: `unknown model "lin"`},
		// The solver's bound: a model left undecided is neither answer.
		{args: []string{"-model", "sc,cc", "-timeout", "1ns", "co.txt"}, code: 3, out: "co.txt: SC: undecided\n\tthe search and the SAT solver ran out of -timeout", notInOut: "SC: consistent"},
		{args: []string{"-model", "sc,tso", "co.txt"}, code: 0, out: "co.txt: SC: consistent\nco.txt: TSO: consistent"},
		{args: []string{"-model", "sc,tso", "-timeout", "1ns", "sb.txt"}, code: 1, out: "SC: not consistent (already not CCM)"},
		{args: []string{"-model", "sc", "-timeout", "0", "mp.txt"}, code: 0, out: "mp.txt: SC: consistent"},
		{args: []string{"nosuch.txt"}, code: 2, err: "nosuch.txt"},
		{args: []string{}, code: 2, err: "want one FILE"},
	} {
		args := append([]string{"history", "check"}, tc.args...)
		out, stderr, code := seer(t, dir, args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(stderr, tc.err) ||
			tc.notInOut != "" && strings.Contains(out, tc.notInOut) {
			t.Errorf("seer %s: exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, tc.code, out, stderr)
		}
	}
	if _, stderr, code := seer(t, dir, "history", "frob", "sb.txt"); code != 2 || !strings.Contains(stderr, `unknown subcommand "frob"`) {
		t.Errorf("history frob: exit %d, %q", code, stderr)
	}

	out, _, code := seer(t, dir, "history", "check", "-json", "-explain", "-model", "sc,tso", "sb.txt")
	var results []struct {
		File       string
		Model      int
		Consistent bool
		Violation  *struct {
			Msg   string
			Rules []struct {
				Kind int
				Text string
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &results); err != nil || code != 1 || len(results) != 2 {
		t.Fatalf("-json: exit %d, %v\n%s", code, err, out)
	}
	if results[0].Consistent || len(results[0].Violation.Rules) != 7 || !results[1].Consistent {
		t.Errorf("-json: %s", out)
	}

	out, _, code = seer(t, dir, "help", "history")
	if code != 0 || !strings.Contains(out, "usage: seer history check") || !strings.Contains(out, "exit status is 0") {
		t.Errorf("help history: exit %d\n%s", code, out)
	}
}
