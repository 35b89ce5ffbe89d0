package trace_test

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"

	. "github.com/seer-tools/seer/trace"
	. "github.com/seer-tools/seer/trace/record"
)

// TestLiveConversion checks reading a spool while its test runs against
// reading it after: the run's spool is kept and converted again, and
// the two traces must be the same, byte for byte; and leaving out local
// accesses as the conversion goes against leaving them out of the whole
// trace. The live reader passes
// a record only when every record numbered below it is committed
// (spool.go, recorder.c's "Reading while recording"); a mistake there
// drops or reorders records, which the second reading does not.
func TestLiveConversion(t *testing.T) {
	skipIfCannotRecord(t)
	for _, name := range []string{"live", "settle", "chan", "cond", "runtime", "atomic", "panic"} {
		t.Run(name, func(t *testing.T) {
			// live and settle must exercise settling: some heap life one
			// goroutine owned must end (its memory allocated again) while
			// the run goes on. Whether the allocator hands a freed buffer's
			// memory out again is the recorded run's schedule (the
			// collector's and the allocator's), not seer's: a run in which
			// none was is recorded again, a few times at most.
			const attempts = 3
			for attempt := 1; ; attempt++ {
				settled := checkLiveConversion(t, name)
				if settled || (name != "live" && name != "settle") || t.Failed() {
					return
				}
				if attempt == attempts {
					t.Errorf("settling every 64 events left nothing out in %d recorded runs", attempts)
					return
				}
				t.Logf("run %d: no life settling could leave out ended; recording again", attempt)
			}
		})
	}
}

// checkLiveConversion records testdata/record/NAME.txtar, checks its live
// conversion against converting its kept spool again (see
// TestLiveConversion), and reports whether settling every 64 events left
// any access out.
func checkLiveConversion(t *testing.T, name string) (settledAny bool) {
	t.Helper()
	dir := txtarModule(t, "testdata/record/"+name+".txtar")
	b, live, spool := recordKeepingSpool(t, RecordOptions{Dir: dir, NoFile: true, KeepLocal: true})
	if got, assumed, err := SpoolChunksOff(spool); err != nil || got != assumed {
		t.Errorf("the recorder's chunks begin at %d, PrepareSpool warms from %d (%v)", got, assumed, err)
	}
	after, _, err := ConvertAgain(spool, b.Path, b.Shadow(), live.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{KeepLocal: true})
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
	// Leaving out the local accesses as events are added
	// (localScan, while the test runs) is leaving them out of
	// the whole trace after.
	compacted, _, err := ConvertAgain(spool, b.Path, b.Shadow(), live.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{})
	if err != nil {
		t.Fatal(err)
	}
	compacted.Outcome = after.Outcome
	if CompactLocal(after) == 0 {
		t.Errorf("no local access left out")
	}
	var c bytes.Buffer
	a.Reset()
	if err := WriteTrace(&a, after); err != nil {
		t.Fatal(err)
	}
	if err := WriteTrace(&c, compacted); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), c.Bytes()) || !slices.Equal(after.Local, compacted.Local) {
		t.Errorf("local accesses left out while converting: %d events kept, %d left out; after: %d kept, %d left out",
			len(compacted.Events), compacted.LocalAccesses(), len(after.Events), after.LocalAccesses())
	}
	// again converts the spool again with o, and writes the trace.
	again := func(o ConvertOptions) (*Trace, []byte) {
		tr, _, err := ConvertAgain(spool, b.Path, b.Shadow(), live.Trace.Header, nil, DefaultMaxEvents, o)
		if err != nil {
			t.Fatal(err)
		}
		tr.Outcome = after.Outcome
		var w bytes.Buffer
		if err := WriteTrace(&w, tr); err != nil {
			t.Fatal(err)
		}
		return tr, w.Bytes()
	}
	// The table's pages faulted in ahead and its growth copied
	// on two cores (prefault.go), or neither: the same trace.
	plain, p := again(ConvertOptions{NoPrefault: true})
	if !bytes.Equal(p, c.Bytes()) {
		t.Errorf("without the prefaulter: %d events kept, %d bytes; with it: %d kept, %d bytes", len(plain.Events), len(p), len(compacted.Events), c.Len())
	}
	// Settling (settle.go) every few events, or never, leaves
	// out the same accesses, and keeps the same replay positions;
	// and both, with every event in the table, are what the side
	// log gives (local_side.go: compacted).
	var replayPos [][]uint32
	for _, every := range []int{-1, 64} {
		var settled int
		st, _, err := ConvertAgain(spool, b.Path, b.Shadow(), live.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{SettleEvery: every, Settled: &settled, NoSide: true})
		if err != nil {
			t.Fatal(err)
		}
		rt, _, err := ConvertAgain(spool, b.Path, b.Shadow(), live.Trace.Header, nil, DefaultMaxEvents, ConvertOptions{SettleEvery: every, Replayable: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(ReplayPositions(rt)) != len(rt.Events) {
			t.Errorf("settling every %d events: %d replay positions for %d events", every, len(ReplayPositions(rt)), len(rt.Events))
		}
		replayPos = append(replayPos, ReplayPositions(rt))
		st.Outcome = after.Outcome
		var s bytes.Buffer
		if err := WriteTrace(&s, st); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(s.Bytes(), c.Bytes()) || !slices.Equal(st.Local, compacted.Local) {
			t.Errorf("settling every %d events: %d kept, %d left out (%d by settling); without: %d kept, %d left out",
				every, len(st.Events), st.LocalAccesses(), settled, len(compacted.Events), compacted.LocalAccesses())
		}
		if every > 0 && settled > 0 {
			settledAny = true
		}
	}
	if !slices.Equal(replayPos[0], replayPos[1]) {
		t.Errorf("settling changes the replay positions")
	}
	// The side log stopped early (local_side_stop.go), its
	// records put into the table there: the same trace.
	var stops int
	ss, sb := again(ConvertOptions{SideStopAt: 5000, SideStops: &stops})
	if !bytes.Equal(sb, c.Bytes()) || !slices.Equal(ss.Local, compacted.Local) {
		t.Errorf("the side log stopped at 5000 events: %d kept, %d left out; without it: %d kept, %d left out",
			len(ss.Events), ss.LocalAccesses(), len(compacted.Events), compacted.LocalAccesses())
	}
	if (name == "live" || name == "settle") && stops != 1 {
		t.Errorf("the side log stopped %d times, want once", stops)
	}
	if name == "live" && len(after.Events)+after.LocalAccesses() < 100000 {
		t.Errorf("the live test made %d events, too few to read while it runs", len(after.Events))
	}
	return settledAny
}

// recordKeepingSpool builds and runs the test binary of opts and keeps
// the run's spool, to convert again; the binary is closed when tb ends.
func recordKeepingSpool(tb testing.TB, opts RecordOptions) (*Binary, *RecordResult, string) {
	tb.Helper()
	ctx := context.Background()
	b, err := Build(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { b.Close() })
	opts.KeepSpool = filepath.Join(tb.TempDir(), "spool")
	res, err := b.Run(ctx, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return b, res, opts.KeepSpool
}
