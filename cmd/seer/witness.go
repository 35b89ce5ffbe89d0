// This file implements `seer witness`: one finding's witness schedule, as
// text (report.WitnessText's LayoutList) or as the swimlane picture
// (report.WitnessPage).

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/seer-tools/seer/predict/check"
	"github.com/seer-tools/seer/predict/report"
	"github.com/seer-tools/seer/trace"
)

var (
	witnessFlags  = flag.NewFlagSet("witness", flag.ContinueOnError)
	witnessHTML   = witnessFlags.Bool("html", false, "write the witness as a self-contained HTML page with a swimlane picture")
	witnessOut    = witnessFlags.String("o", "", "write to `file` instead of standard output")
	witnessN      = witnessFlags.Int("n", 1, "show the `n`th finding, in the order seer predict lists them")
	witnessFormat = witnessFlags.String("format", "", "trace `format`: seer or std (default: by content)")
	witnessAtom   = witnessFlags.Bool("atomicity", false, "also check each critical section as a transaction (for a trace)")
)

var _ = register(&command{
	name:      "witness",
	usageLine: "witness [-html] [-o file] [-n n] [-format seer|std] [-atomicity] FILE",
	short:     "show a finding's witness schedule, as text or a picture",
	long: `
Witness shows the witness schedule of one finding: the schedule of the
test, replayed by seer's independent checker, that shows the bug. FILE is
a trace (recorded by seer record, or in RAPID's STD format), which is
analysed as seer predict does, or a report that seer check -json or seer
predict -o json wrote. -n picks the finding (the first by default), in
the order those commands list them.

By default the schedule is printed as text: the finding as seer check
prints it, then each step in user code with its goroutine and position.

With -html it is a self-contained HTML page (inline CSS and SVG, no
script, nothing fetched) that draws the schedule as swimlanes: one column
per goroutine, time downwards, the finding's accesses in red, each
critical section bracketed, release→acquire arrows between goroutines
(unlock to lock, send to receive, go to the goroutine's start), and for a
lock whose critical sections the witness runs in another order than the
recorded run, the witness's order and the recorded one as arrows. Open it
in a browser:

	seer predict -o json trace.seer > report.json
	seer witness -html -o race.html -n 2 report.json && xdg-open race.html

The exit status is 0 when the witness is written, 2 for usage errors, bad
input, or a finding -n does not name.`,
	flags: witnessFlags,
	run:   runWitness,
})

func runWitness(c *command, args []string) int {
	if !c.parse(args) {
		return 2
	}
	if c.flags.NArg() != 1 {
		errorf(c, "usage: seer %s", c.usageLine)
		return 2
	}
	rep, err := witnessReport(c, c.flags.Arg(0))
	if err != nil {
		errorf(c, "%v", err)
		return 2
	}
	n := *witnessN
	if n < 1 || n > len(rep.Findings) {
		switch len(rep.Findings) {
		case 0:
			errorf(c, "%s has no findings: no witness to show", c.flags.Arg(0))
		default:
			errorf(c, "-n %d: %s has %s (1 to %d)", n, c.flags.Arg(0), plural(len(rep.Findings), "finding"), len(rep.Findings))
		}
		return 2
	}
	f := &rep.Findings[n-1]
	rel := relToCwd()
	var r report.Renderer = report.WitnessText{Layout: report.LayoutList, Rel: rel}
	if *witnessHTML {
		r = report.WitnessPage{Options: report.HTMLOptions{Rel: rel, Source: sourceLines()}}
	}
	var out bytes.Buffer
	r.Render(&out, report.One(f))
	if *witnessOut == "" {
		os.Stdout.Write(out.Bytes())
		return 0
	}
	if err := os.WriteFile(*witnessOut, out.Bytes(), 0o644); err != nil {
		errorf(c, "%v", err)
		return 2
	}
	return 0
}

// witnessReport reads a JSON report, or analyses a trace into one.
func witnessReport(c *command, path string) (*report.Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '{' {
		var rep report.Report
		if err := json.Unmarshal(trimmed, &rep); err != nil {
			return nil, fmt.Errorf("%s: not a seer report: %v", path, err)
		}
		return &rep, nil
	}
	t, err := trace.ReadFileFormat(path, *witnessFormat)
	var cut *trace.TruncatedError
	if err != nil && (!errors.As(err, &cut) || len(t.Events) == 0) {
		return nil, err
	}
	if cut != nil {
		errorf(c, "%v: analysing those %d events", err, len(t.Events))
	}
	ctx := withStopSignals()
	defer ctx.stop()
	return check.Predict(ctx, t, check.PredictOptions{Atomicity: *witnessAtom, Analysis: "seer"})
}

// relToCwd names files relative to the current directory when they are
// under it, as seer check does.
func relToCwd() func(string) string {
	cwd, _ := os.Getwd()
	return func(file string) string {
		if r, err := filepath.Rel(cwd, file); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return file
	}
}

// sourceLines returns a function that reads lines of source files, for
// the picture's tooltips; a file that does not read gives "".
func sourceLines() func(string, int) string {
	files := map[string][]string{}
	return func(file string, line int) string {
		lines, ok := files[file]
		if !ok {
			if f, err := os.Open(file); err == nil {
				sc := bufio.NewScanner(io.LimitReader(f, 4<<20))
				for sc.Scan() {
					lines = append(lines, sc.Text())
				}
				f.Close()
			}
			files[file] = lines
		}
		if line < 1 || line > len(lines) {
			return ""
		}
		return lines[line-1]
	}
}
