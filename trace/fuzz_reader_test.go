// This file implements FuzzReader, which feeds arbitrary bytes to the trace
// file reader: go test -fuzz=FuzzReader ./trace

package trace

import (
	"bytes"
	"io"
	"testing"
)

// FuzzReader checks that no input makes the reader panic or disagree with
// itself: Read and the streaming Reader return the same events and values,
// and a trace that reads writes back into a file that reads as the same
// trace and rewrites to the same bytes. Errors are short whatever the input.
func FuzzReader(f *testing.F) {
	small := formatEncode(f, formatSmallTrace(f), batchTarget)
	f.Add(small)
	f.Add(formatEncode(f, formatSmallTrace(f), 16))
	f.Add(small[:len(small)/2])
	f.Add(formatEncode(f, formatRealisticTrace(f, 300), 256))
	f.Add(formatRecords(formatUvarints(tagEnd, 0)))
	f.Add([]byte(fileMagic))
	f.Add([]byte{})                                           // empty: ErrEmpty
	f.Add(small[:10])                                         // cut inside the header
	f.Add(small[:len(small)-1])                               // cut before the end record's count
	f.Add(randomBytes(4096, 1))                               // binary garbage
	f.Add(append([]byte(fileMagic), randomBytes(4096, 2)...)) // garbage after the magic

	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			if tr != nil {
				t.Fatalf("Read returned a trace and %v", err)
			}
			if len(err.Error()) >= 300 {
				t.Fatalf("error of %d bytes: %.300s", len(err.Error()), err)
			}
			if len(data) == 0 && err != ErrEmpty {
				t.Fatalf("empty input: %v, want ErrEmpty", err)
			}
			return
		}

		// The streaming reader sees the same events.
		if r, err := NewReader(bytes.NewReader(data)); err == nil {
			for i := 0; ; i++ {
				e, err := r.Next()
				if err != nil {
					te, truncated := err.(*TruncatedError)
					if i != len(tr.Events) || (err != io.EOF && !truncated) || truncated != tr.Truncated {
						t.Fatalf("Next: %v after %d events; Read gave %d events, truncated %v", err, i, len(tr.Events), tr.Truncated)
					}
					if truncated && (te.Events != i || te.Offset != int64(len(data)) || te.Header) {
						t.Fatalf("Next: %+v after %d events of a %d-byte input", te, i, len(data))
					}
					break
				}
				if e != tr.Events[i] {
					t.Fatalf("event %d: Next gave %+v, Read %+v", i, e, tr.Events[i])
				}
				v, old := r.Value()
				if wv, wo := tr.Value(i); v != wv || old != wo {
					t.Fatalf("event %d: Next gave values %d, %d, Read %d, %d", i, v, old, wv, wo)
				}
			}
		} else if !tr.Truncated || len(tr.Events) != 0 {
			t.Fatalf("NewReader: %v, but Read gave %d events", err, len(tr.Events))
		}

		// What reads writes back, and reads again as the same trace.
		var buf bytes.Buffer
		if err := WriteTrace(&buf, tr); err != nil {
			t.Fatalf("WriteTrace of a trace that read: %v", err)
		}
		again, err := Read(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("reading a rewritten trace: %v", err)
		}
		if d := formatDiff(tr, again, -1); d != "" || again.Truncated != tr.Truncated {
			t.Fatalf("rewritten trace differs: %s (truncated %v, want %v)", d, again.Truncated, tr.Truncated)
		}
		var buf2 bytes.Buffer
		if err := WriteTrace(&buf2, again); err != nil || !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
			t.Fatalf("second rewrite differs (%v)", err)
		}
	})
}
