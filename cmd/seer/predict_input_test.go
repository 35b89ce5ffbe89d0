// This file tests what seer predict does with input that is not a whole
// trace: an empty file, a trace cut short, binary data in no format.

package main

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/seer-tools/seer/predict"
	"github.com/seer-tools/seer/trace"
	"github.com/seer-tools/seer/trace/record"
)

// predictRaceSTD is a trace with one predicted race (see TestPredictSTD).
const predictRaceSTD = `T0|fork(T1)|1
T0|w(V1)|2
T0|acq(L1)|3
T0|w(V2)|4
T0|rel(L1)|5
T1|acq(L1)|6
T1|w(V3)|7
T1|rel(L1)|8
T1|r(V1)|9
`

func TestPredictInput(t *testing.T) {
	dir := t.TempDir()
	tr, err := trace.ReadSTD(strings.NewReader(predictRaceSTD))
	if err != nil {
		t.Fatal(err)
	}
	var whole, cut, capped bytes.Buffer
	if err := trace.WriteTrace(&whole, tr); err != nil {
		t.Fatal(err)
	}
	tr.Header.Capped = len(tr.Events) // stopped at seer's event cap: a whole file
	if err := trace.WriteTrace(&capped, tr); err != nil {
		t.Fatal(err)
	}
	tr.Header.Capped = 0
	tr.Truncated = true // written without its end record
	if err := trace.WriteTrace(&cut, tr); err != nil {
		t.Fatal(err)
	}
	// The least -maxmem within which the analysis's first phase holds 8
	// of the trace's 9 events by what they cost (predict.EventsWithin),
	// though it holds all 9 at record.BytesPerEvent bytes an event.
	costly := int64(1)
	for predict.EventsWithin(tr, predict.PrePassShare(costly)) < 8 {
		costly++
	}
	if costly/record.BytesPerEvent < int64(len(tr.Events)) {
		t.Fatalf("-maxmem %d holds %d events at %d bytes an event: the row tests nothing", costly, costly/record.BytesPerEvent, record.BytesPerEvent)
	}
	costlyMem := strconv.FormatInt(costly, 10)
	random := make([]byte, 4096)
	rand.NewChaCha8([32]byte{7}).Read(random)

	for _, tc := range []struct {
		name   string
		data   []byte
		args   []string // flags before the file
		code   int
		stderr []string // what stderr says, in order
		stdout string   // what stdout says
	}{
		{name: "whole", data: whole.Bytes(), code: 1, stdout: "data race on V1 (predicted)"},
		{name: "std", data: []byte(predictRaceSTD), code: 1, stdout: "data race on V1 (predicted)"},
		{name: "empty", data: nil, code: 2, stderr: []string{"seer predict: ", "empty: empty file: it holds no trace"}},
		{name: "empty-std", data: nil, args: []string{"-format", "std"}, code: 2, stderr: []string{"empty file: it holds no trace"}},
		{name: "empty-seer", data: nil, args: []string{"-format", "seer"}, code: 2, stderr: []string{"empty file: it holds no trace"}},
		{name: "comments", data: []byte("# no events\n\n"), code: 2, stderr: []string{"std: no events, only blank and comment lines"}},
		{name: "cut-10", data: whole.Bytes()[:10], code: 2, stderr: []string{"seer trace truncated at byte 10, inside its header: it holds no events"}},
		{name: "cut-end", data: cut.Bytes(), code: 2,
			stderr: []string{
				"truncated at byte " + strconv.Itoa(cut.Len()) + ", after " + strconv.Itoa(len(tr.Events)) + " complete events",
				"analysing those " + strconv.Itoa(len(tr.Events)) + " events",
				"cut-end is truncated: the findings are those of its first " + strconv.Itoa(len(tr.Events)) + " events only",
			},
			stdout: "data race on V1 (predicted)"},
		// A run cut at seer's event cap is analysed as it is, with a
		// note, and is no error.
		{name: "capped", data: capped.Bytes(), code: 1,
			stderr: []string{"capped holds the first " + strconv.Itoa(len(tr.Events)) + " events of its run: the recording stopped at seer's event cap"},
			stdout: "data race on V1 (predicted)"},
		// A trace longer than -maxevents (or what -maxmem holds) is
		// analysed up to there, with a note: the race's read is the 9th event.
		{name: "maxevents-8", data: whole.Bytes(), args: []string{"-maxevents", "8"}, code: 0,
			stderr: []string{"maxevents-8 holds more than -maxevents 8 events: the findings are those of its first 8"}},
		{name: "maxevents-std", data: []byte(predictRaceSTD), args: []string{"-maxevents", "8"}, code: 0,
			stderr: []string{"maxevents-std holds more than -maxevents 8 events"}},
		{name: "maxevents-all", data: whole.Bytes(), args: []string{"-maxevents", strconv.Itoa(len(tr.Events))}, code: 1, stdout: "data race on V1 (predicted)"},
		// A trace whose events cost the analysis more than
		// record.BytesPerEvent (synchronisation, goroutines) is analysed
		// up to what -maxmem holds of them, with a note.
		{name: "maxmem-costly", data: whole.Bytes(), args: []string{"-maxmem", costlyMem}, code: 0,
			stderr: []string{"maxmem-costly holds more events than -maxmem " + costlyMem + " holds (8, by what its events cost the analysis", "the findings are those of its first 8"}},
		{name: "maxevents-none", data: whole.Bytes(), args: []string{"-maxevents", "-1"}, code: 1, stdout: "data race on V1 (predicted)"},
		{name: "random", data: random, code: 2, stderr: []string{"not a trace: binary data at byte ", "seer reads seer trace files (written by seer record) and RAPID's STD text"}},
		{name: "random-std", data: random, args: []string{"-format", "std"}, code: 2, stderr: []string{"std: line 1: not a trace: binary data at byte "}},
		{name: "random-seer", data: random, args: []string{"-format", "seer"}, code: 2, stderr: []string{"not a seer trace file"}},
		{name: "long-line", data: bytes.Repeat([]byte("T1 w V1 "), 300), code: 2, stderr: []string{`std: line 1: want thread|op(operand)|location, got "T1 w V1`, `"...`}},
		{name: "format", data: whole.Bytes(), args: []string{"-format", "xml"}, code: 2, stderr: []string{`unknown trace format "xml" (want seer or std)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(dir, tc.name)
			if err := os.WriteFile(file, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, stderr, code := seer(t, dir, append(append([]string{"predict"}, tc.args...), tc.name)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, stdout, stderr)
			}
			rest := stderr
			for _, s := range tc.stderr {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Errorf("stderr does not say %q (in order):\n%s", s, stderr)
					break
				}
				rest = rest[i+len(s):]
			}
			if !strings.Contains(stdout, tc.stdout) || tc.stdout == "" && stdout != "" {
				t.Errorf("stdout = %q, want it to say %q", stdout, tc.stdout)
			}
			if len(stderr) >= 300 {
				t.Errorf("stderr of %d bytes: %.300s...", len(stderr), stderr)
			}
		})
	}
}
