package trace

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
)

// TestLiveConversion checks reading a spool while its test runs against
// reading it after: the run's spool is kept and converted again, and
// the two traces must be the same, byte for byte. The live reader passes
// a record only when every record numbered below it is committed
// (spool.go, recorder.c's "Reading while recording"); a mistake there
// drops or reorders records, which the second reading does not.
func TestLiveConversion(t *testing.T) {
	skipIfCannotRecord(t)
	for _, name := range []string{"live", "chan", "cond", "runtime", "atomic", "panic"} {
		t.Run(name, func(t *testing.T) {
			dir := txtarModule(t, "testdata/record/"+name+".txtar")
			ctx := context.Background()
			opts := RecordOptions{Dir: dir, NoFile: true, KeepLocal: true}
			b, err := Build(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			opts.keepSpool = filepath.Join(t.TempDir(), "spool")
			live, err := b.Run(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			after, _, err := convert(opts.keepSpool, b.Path, b.tc.Shadow, live.Trace.Header, nil, DefaultMaxEvents, convertOptions{keepLocal: true})
			if err != nil {
				t.Fatal(err)
			}
			after.Outcome = live.Trace.Outcome
			var l, a bytes.Buffer
			if err := WriteTrace(&l, live.Trace); err != nil {
				t.Fatal(err)
			}
			if err := WriteTrace(&a, after); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(l.Bytes(), a.Bytes()) {
				t.Errorf("live conversion: %d events, %d goroutines (%d bytes); after the run: %d events, %d goroutines (%d bytes)",
					len(live.Trace.Events), len(live.Trace.Goroutines), l.Len(), len(after.Events), len(after.Goroutines), a.Len())
				for i := range min(len(live.Trace.Events), len(after.Events)) {
					if live.Trace.Events[i] != after.Events[i] {
						t.Errorf("first difference at event %d: live %+v, after %+v", i, live.Trace.Events[i], after.Events[i])
						break
					}
				}
			}
			if name == "live" && len(after.Events) < 100000 {
				t.Errorf("the live test made %d events, too few to read while it runs", len(after.Events))
			}
		})
	}
}
