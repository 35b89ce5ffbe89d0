// This file tests the STD importer and exporter (std.go).

package trace

import (
	"bytes"
	"strings"
	"testing"
)

const stdSample = `
# a comment
T1|w(V5)|12
T1|fork(T2)|13
T2|acq(L2)|20
T2|r(V5)|21
T2|rel(L2)|22
T1|acq(L2)|14
T1|acq(L2)|14
T1|w(V7)|15
T1|rel(L2)|16
T1|rel(L2)|16
T1|join(T2)|17
T1|begin()|18
T1|r(V7)|19
T1|end|19
`

func TestReadSTD(t *testing.T) {
	tr, err := ReadSTD(strings.NewReader(stdSample))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Header.Format != "std" {
		t.Errorf("format = %q", tr.Header.Format)
	}
	if tr.NumGoroutines() != 2 || tr.Goroutines[2].Parent != 1 {
		t.Fatalf("goroutines = %+v", tr.Goroutines)
	}
	var ops []string
	for i := range tr.Events {
		e := &tr.Events[i]
		ops = append(ops, e.Op.String())
		if e.Op.IsAccess() && (e.Size != 8 || tr.Object(e.Obj).Kind != ObjVar) {
			t.Errorf("event %d: bad access %+v", i, e)
		}
	}
	want := "write go start lock read unlock lock write unlock join begin read commit"
	if got := strings.Join(ops, " "); got != want {
		t.Errorf("ops:\n got %s\nwant %s", got, want)
	}
	start := tr.Events[2]
	if start.G != 2 || start.Peer != 1 {
		t.Errorf("start = %+v", start)
	}
	if tr.Events[3].Sync != SyncAcquire || tr.Events[5].Sync != SyncRelease {
		t.Errorf("lock sync kinds: %v %v", tr.Events[3].Sync, tr.Events[5].Sync)
	}
	if got := tr.Site(&tr.Events[0]).Line; got != 12 {
		t.Errorf("site line = %d", got)
	}
	v5, v7 := tr.Events[0], tr.Events[7]
	if v5.Addr == v7.Addr || tr.ObjectName(v5.Obj) != "V5" || tr.ObjectName(v7.Obj) != "V7" {
		t.Errorf("variables: %+v %+v", v5, v7)
	}
	if tr.Events[4].Addr != v5.Addr {
		t.Errorf("same variable, different address")
	}
}

func TestReadSTDErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"T1|x(V1)|1", "line 1: unknown operation"},
		{"T1|r(V1", "line 1: bad operation"},
		{"T1|r()|1", "line 1: r needs a variable"},
		{"T1|r(V1)|abc", "line 1: bad location"},
		{"T1", "line 1: want thread|op"},
		{"T1|acq(L)|1\nT2|acq(L)|2", "line 2: acq(L) while thread T1 holds it"},
		{"T1|rel(L)|1", "line 1: rel(L) by thread T1"},
		{"T1|r(V)|1\nT2|r(V)|1\nT1|fork(T2)|3", "line 3: thread T2 forked after it appeared"},
		{"T1|fork(T2)|1\nT1|join(T2)|2\nT2|r(V)|3", "line 3: thread T2 acts after it was joined"},
		{"T1|join(T9)|1", "line 1: join of unknown thread T9"},
		{"T1|begin(X)|1", "line 1: begin takes no operand"},
		{"T1|fork(T1)|1", "line 1: thread T1 forks itself"},
		{"\n\nT1|r(a b)|1", "line 3: bad operand"},

		// Input with no events, binary data, and input too long to quote.
		{"", "std: empty file: it holds no trace"},
		{"# only a comment\n\n  \n", "std: no events, only blank and comment lines"},
		{"T1|w(V1)|1\nT1|w(\x00)|2\n", "std: line 2: not a trace: binary data at byte 16 (0x00); seer reads seer trace files"},
		{"T1|w(V1)|1\r\nT1|w(\xfe\xff)|2\n", "std: line 2: not a trace: binary data at byte 17 (0xfe)"},
		{strings.Repeat("x", 2000), `line 1: want thread|op(operand)|location, got "` + strings.Repeat("x", 58) + `"...`},
		{"T1|r(V1)|" + strings.Repeat("9", 2000), `line 1: bad location "` + strings.Repeat("9", 58) + `"...`},
		{strings.Repeat("T", 2000) + "|r(V1)|1\nT2|fork(" + strings.Repeat("T", 2000) + ")|2", "line 2: thread " + strings.Repeat("T", 57) + "... forked after it appeared"},
		{"T1|" + strings.Repeat("é", 1000) + "|1", `line 1: unknown operation "` + strings.Repeat("é", 29) + `"...`},
		{strings.Repeat("T1|w(V1)|1 ", 200000), "line 1: longer than 1048576 bytes"},
	} {
		_, err := ReadSTD(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadSTD(%.40q) = %v, want error containing %q", tc.in, err, tc.want)
		}
		if err != nil && len(err.Error()) >= 300 {
			t.Errorf("ReadSTD(%.40q): error of %d bytes", tc.in, len(err.Error()))
		}
	}
}

func TestWriteSTDRoundTrip(t *testing.T) {
	tr, err := ReadSTD(strings.NewReader(stdSample))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSTD(&buf, tr); err != nil {
		t.Fatal(err)
	}
	tr2, err := ReadSTD(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatalf("re-reading export: %v\n%s", err, buf.String())
	}
	if len(tr2.Events) != len(tr.Events) {
		t.Fatalf("round trip: %d events, want %d\n%s", len(tr2.Events), len(tr.Events), buf.String())
	}
	for i := range tr.Events {
		a, b := tr.Events[i], tr2.Events[i]
		if a.Op != b.Op || a.G != b.G || a.Peer != b.Peer || a.Addr != b.Addr || tr.Site(&a).Line != tr2.Site(&b).Line {
			t.Errorf("event %d: %+v became %+v", i, a, b)
		}
	}
	var buf2 bytes.Buffer
	if err := WriteSTD(&buf2, tr2); err != nil {
		t.Fatal(err)
	}
	if buf.String() != buf2.String() {
		t.Errorf("export not stable:\n%s\n---\n%s", buf.String(), buf2.String())
	}
}

func TestWriteSTDDropsInexpressible(t *testing.T) {
	b := NewBuilder(Header{})
	g := b.Goroutine(0, 0)
	ch := b.Object(ObjChan, 0x50, 8, "")
	at := b.Object(ObjAtomic, 0x60, 8, "")
	mu := b.Object(ObjRWMutex, 0x70, 8, "")
	b.Add(Event{Op: OpSend, G: g, Obj: ch, Addr: 0x50, Sync: SyncRelease})
	b.Add(Event{Op: OpAtomicStore, G: g, Obj: at, Addr: 0x60, Size: 8})
	b.Add(Event{Op: OpRLock, G: g, Obj: mu, Addr: 0x70})
	b.Add(Event{Op: OpRUnlock, G: g, Obj: mu, Addr: 0x70})
	tr, err := b.Trace()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSTD(&buf, tr); err != nil {
		t.Fatal(err)
	}
	want := "T1|acq(L3)|0\nT1|rel(L3)|0\n"
	if buf.String() != want {
		t.Errorf("got %q, want %q", buf.String(), want)
	}
}
