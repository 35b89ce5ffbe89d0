// This file implements FuzzReadFormat, which feeds arbitrary bytes to
// ReadFormat as seer predict does, the format left to DetectFormat:
// go test -fuzz=FuzzReadFormat ./trace

package trace

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// FuzzReadFormat checks what a user sees of any file: a trace, or a short
// error, never both but for a seer trace cut short; empty input is
// ErrEmpty; sniffing picks the format that reading that format agrees with.
func FuzzReadFormat(f *testing.F) {
	small := formatEncode(f, formatSmallTrace(f), 16)
	f.Add(small)
	f.Add([]byte{})              // empty
	f.Add(small[:4])             // cut inside the magic
	f.Add(small[:10])            // cut after it
	f.Add(small[:len(small)/2])  // cut among the events
	f.Add(randomBytes(4096, 6))  // binary garbage
	f.Add([]byte(stdSample))     // STD text
	f.Add([]byte("# nothing\n")) // STD without events
	f.Add([]byte(strings.Repeat("T1|w(V1)|1\n", 60) + "\x00"))
	f.Add([]byte(strings.Repeat("x", 5000)))

	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadFormat(bytes.NewReader(data), "")
		var te *TruncatedError
		switch {
		case err == nil && tr == nil:
			t.Fatal("no trace and no error")
		case err != nil && len(err.Error()) >= 300:
			t.Fatalf("error of %d bytes: %.300s", len(err.Error()), err)
		case len(data) == 0 && err != ErrEmpty:
			t.Fatalf("empty input: %v, want ErrEmpty", err)
		case errors.As(err, &te):
			if tr == nil || !tr.Truncated || te.Events != len(tr.Events) || te.Offset != int64(len(data)) {
				t.Fatalf("truncated trace %v with %+v", tr != nil, te)
			}
		case err != nil && tr != nil:
			t.Fatalf("a trace and %v", err)
		case tr != nil && tr.Truncated:
			t.Fatal("a truncated trace without a *TruncatedError")
		}

		// What DetectFormat picks reads as that format does.
		format, derr := DetectFormat(data[:min(len(data), sniffLen)])
		if derr != nil {
			if err == nil || err.Error() != derr.Error() {
				t.Fatalf("DetectFormat: %v, ReadFormat: %v", derr, err)
			}
			return
		}
		tr2, err2 := ReadFormat(bytes.NewReader(data), format)
		if (err == nil) != (err2 == nil) || (tr == nil) != (tr2 == nil) || err != nil && err.Error() != err2.Error() {
			t.Fatalf("as %s: %v, by content: %v", format, err2, err)
		}
		if tr != nil && len(tr.Events) != len(tr2.Events) {
			t.Fatalf("as %s: %d events, by content %d", format, len(tr2.Events), len(tr.Events))
		}
	})
}
