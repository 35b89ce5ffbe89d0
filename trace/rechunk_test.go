// This file tests that a trace does not depend on the recorder's chunk
// size: a recording's kept spool, rewritten with chunks of other sizes
// (rechunkSpool), converts to the same trace byte for byte.

package trace_test

import (
	"bytes"
	"path/filepath"
	"testing"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

// TestConvertRechunked converts the spool of recordings of many goroutines
// and of few, as the recorder wrote it (SpoolChunkBytes) and rewritten with
// the chunks of 8 KiB the recorder wrote before and with chunks of 64 KiB,
// and wants the same trace from each.
func TestConvertRechunked(t *testing.T) {
	skipIfCannotRecord(t)
	for _, name := range []string{"chan", "runtime", "atomic"} {
		t.Run(name, func(t *testing.T) {
			dir := txtarModule(t, "testdata/record/"+name+".txtar")
			b, res, spool := recordKeepingSpool(t, RecordOptions{Dir: dir, NoFile: true})
			convert := func(path string) ([]byte, int) {
				tr, _, err := ConvertAgain(path, b.Path, b.Shadow(), res.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{})
				if err != nil {
					t.Fatal(err)
				}
				tr.Outcome = res.Trace.Outcome
				var buf bytes.Buffer
				if err := WriteTrace(&buf, tr); err != nil {
					t.Fatal(err)
				}
				return buf.Bytes(), len(tr.Events)
			}
			want, events := convert(spool)
			if events == 0 {
				t.Fatal("no events recorded")
			}
			for _, size := range []uint64{8 << 10, 64 << 10} {
				path := filepath.Join(t.TempDir(), "spool")
				if err := RechunkSpool(spool, path, size); err != nil {
					t.Fatal(err)
				}
				if got, n := convert(path); !bytes.Equal(got, want) {
					t.Errorf("with chunks of %d bytes: %d events (%d bytes of trace); with the recorder's %d: %d events (%d bytes)",
						size, n, len(got), SpoolChunkBytes, events, len(want))
				}
			}
		})
	}
}
