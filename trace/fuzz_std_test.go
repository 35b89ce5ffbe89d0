// This file fuzzes the STD importer (std.go): any input either reads into a
// valid trace that exports and re-reads to the same events, or fails with
// a short error; it never panics.

package trace

import (
	"bytes"
	"strings"
	"testing"
)

func FuzzReadSTD(f *testing.F) {
	for _, s := range []string{
		stdSample,
		"T1|w(V1)|1\nT2|r(V1)|2\n",
		"T1|fork(T2)|1\nT2|acq(L1)|2\nT2|rel(L1)|3\nT1|join(T2)|4\n",
		"T1|begin()|1\nT1|r(x)|2\nT1|end()|3\n",
		"T1|acq(L)|1\nT1|acq(L)|1\nT1|rel(L)|1\n",
		"T1|r(V1)\n",
		"T1|rel(L)|1",
		"|||",
		"T1|(V1)|1",
		"T1|r(V1)|-3",
		"",                       // empty
		"# only a comment\n\n",   // no events
		"T1|w(V1)|1\nT1|w(V",     // cut inside a line
		"T1|w(V1)|1\nT2|r(\x00)", // binary data
		string(randomBytes(4096, 3)),
		strings.Repeat("T1|w(V1)|1 ", 300), // one long bad line
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tr, err := ReadSTD(strings.NewReader(in))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "std: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			if len(err.Error()) >= 300 {
				t.Fatalf("error of %d bytes: %.300s", len(err.Error()), err)
			}
			return
		}
		var buf bytes.Buffer
		if err := WriteSTD(&buf, tr); err != nil {
			t.Fatal(err)
		}
		tr2, err := ReadSTD(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("export of a valid trace does not re-read: %v\n%s", err, buf.String())
		}
		if len(tr2.Events) != len(tr.Events) {
			t.Fatalf("round trip changed the event count: %d -> %d", len(tr.Events), len(tr2.Events))
		}
	})
}
