// This file tests what a tool sees of a file a user names: DetectFormat,
// ReadFormat and ReadFileFormat on empty, truncated, binary and text input,
// and the bounds on how much of the input an error message quotes.

package trace

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// anyEvents in a TestReadFormat case asks for a trace of any length.
const anyEvents = -2

// randomBytes returns n bytes from a fixed seed.
func randomBytes(n int, seed byte) []byte {
	r := rand.NewChaCha8([32]byte{seed})
	b := make([]byte, n)
	r.Read(b)
	return b
}

// checkShortError fails unless msg is short and quotes no raw input: a
// message that dumps binary data holds bytes no message of ours does.
func checkShortError(t *testing.T, msg string) {
	t.Helper()
	if len(msg) >= 300 {
		t.Errorf("error of %d bytes: %.300s...", len(msg), msg)
	}
	if !utf8.ValidString(msg) {
		t.Errorf("error holds invalid UTF-8: %q", msg)
	}
	for _, c := range msg {
		if c < ' ' || c >= 0x7f {
			t.Errorf("error holds %U: %q", c, msg)
			break
		}
	}
}

func TestDetectFormat(t *testing.T) {
	for _, tc := range []struct {
		name   string
		head   []byte
		want   string
		err    error // ErrEmpty, or a *FormatError at off
		off    int64
		isForm bool
	}{
		{"empty", nil, "", ErrEmpty, 0, false},
		{"magic", []byte(fileMagic + "\x01\x08"), "seer", nil, 0, false},
		{"magic-cut", []byte("SEERT"), "seer", nil, 0, false},
		{"std", []byte("T1|w(V1)|12\r\nT2|r(V1)|13\n"), "std", nil, 0, false},
		{"std-utf8", []byte("T1|w(Größe)|1\n"), "std", nil, 0, false},
		{"text-rune-cut", []byte("T1|w(\xc3"), "std", nil, 0, false},
		{"nul", []byte("T1|w(V1)|1\n\x00"), "", nil, 11, true},
		{"control", []byte("T1\x1b[0m"), "", nil, 2, true},
		{"del", []byte{'a', 0x7f}, "", nil, 1, true},
		{"invalid-utf8", []byte("T1|w(\xff)|1\n"), "", nil, 5, true},
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, "", nil, 0, true},
		{"elf", []byte("\x7fELF\x02\x01\x01"), "", nil, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DetectFormat(tc.head)
			if got != tc.want {
				t.Errorf("format %q, want %q", got, tc.want)
			}
			var fe *FormatError
			switch {
			case tc.isForm:
				if !errors.As(err, &fe) || fe.Offset != tc.off || fe.Byte != tc.head[tc.off] {
					t.Fatalf("err = %#v, want a *FormatError at byte %d", err, tc.off)
				}
				checkShortError(t, err.Error())
			case err != tc.err:
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
		})
	}
}

func TestReadFormat(t *testing.T) {
	small := formatEncode(t, formatSmallTrace(t), 8)
	complete := len(formatSmallTrace(t).Events)
	random := randomBytes(4096, 1)
	var firstBad int64 = int64(binaryAt(random))
	longLine := strings.Repeat("T1|w(V1)|1 ", 200) + "\n" // 2 KB of one bad line
	textThenBinary := strings.Repeat("T1|w(V1)|1\n", 60) + "\x00\x01\x02"
	std, err := ReadSTD(strings.NewReader(stdSample))
	if err != nil {
		t.Fatal(err)
	}
	stdEvents := len(std.Events)

	type want struct {
		events    int   // events of the trace returned, -1 for none
		truncated bool  // a *TruncatedError ...
		offset    int64 // ... at offset, or a *FormatError at offset
		header    bool  // ... inside the header
		err       error // errors.Is
		formatErr bool  // a *FormatError
		msg       string
	}
	for _, tc := range []struct {
		name   string
		data   []byte
		format string
		want   want
	}{
		{"empty", nil, "", want{events: -1, err: ErrEmpty, msg: "empty file: it holds no trace"}},
		{"empty-seer", nil, "seer", want{events: -1, err: ErrEmpty}},
		{"empty-std", nil, "std", want{events: -1, err: ErrEmpty}},
		{"seer", small, "", want{events: complete}},
		{"seer-forced", small, "seer", want{events: complete}},
		{"cut-4", small[:4], "", want{events: 0, truncated: true, offset: 4, header: true, msg: "truncated at byte 4, inside its header"}},
		{"cut-10", small[:10], "", want{events: 0, truncated: true, offset: 10, header: true, msg: "truncated at byte 10, inside its header: it holds no events"}},
		{"cut-half", small[:len(small)/2], "", want{events: anyEvents, truncated: true, offset: int64(len(small) / 2), msg: "complete events"}},
		{"cut-end", small[:len(small)-1], "", want{events: complete, truncated: true, offset: int64(len(small) - 1)}},
		{"random", random, "", want{events: -1, formatErr: true, offset: firstBad, msg: "seer reads seer trace files (written by seer record) and RAPID's STD text"}},
		{"random-std", random, "std", want{events: -1, formatErr: true, offset: firstBad, msg: "std: line 1: not a trace: binary data at byte"}},
		{"random-seer", random, "seer", want{events: -1, err: ErrNotTrace}},
		{"text-then-binary", []byte(textThenBinary), "", want{events: -1, formatErr: true, offset: 660, msg: "std: line 61"}},
		{"std", []byte(stdSample), "", want{events: stdEvents}},
		{"std-long-line", []byte(longLine), "", want{events: -1, msg: `got "T1|w(V1)|1 T1|w(V1)|1 T1|w(V1)|1 T1|w(V1)|1 T1|w(V1)|1 T1|"...`}},
		{"std-comments", []byte("# nothing\n\n"), "", want{events: -1, msg: "std: no events, only blank and comment lines"}},
		{"seer-as-std", small, "std", want{events: -1, msg: `std: line 1: want thread|op(operand)|location, got "SEERTRACE"`}},
		{"format", small, "xml", want{events: -1, msg: `unknown trace format "xml" (want seer or std)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := ReadFormat(bytes.NewReader(tc.data), tc.format)
			w := tc.want
			switch {
			case w.events == -1 && tr != nil:
				t.Errorf("got a trace of %d events and %v", len(tr.Events), err)
			case w.events >= 0 && (tr == nil || len(tr.Events) != w.events):
				t.Errorf("got trace %v and %v, want %d events", tr != nil, err, w.events)
			case tr != nil && tr.Truncated != w.truncated:
				t.Errorf("trace.Truncated = %v", tr.Truncated)
			}
			var te *TruncatedError
			var fe *FormatError
			switch {
			case w.truncated:
				if !errors.As(err, &te) || te.Offset != w.offset || te.Header != w.header || tr == nil || te.Events != len(tr.Events) {
					t.Errorf("err = %#v, want a *TruncatedError at byte %d", err, w.offset)
				}
			case w.formatErr:
				if !errors.As(err, &fe) || (w.offset != 0 && fe.Offset != w.offset) {
					t.Errorf("err = %#v, want a *FormatError at byte %d", err, w.offset)
				}
			case w.err != nil:
				if !errors.Is(err, w.err) {
					t.Errorf("err = %v, want %v", err, w.err)
				}
			case w.msg == "" && err != nil:
				t.Errorf("err = %v", err)
			}
			if w.msg != "" && (err == nil || !strings.Contains(err.Error(), w.msg)) {
				t.Errorf("err = %v, want it to say %q", err, w.msg)
			}
			if err != nil {
				checkShortError(t, err.Error())
			}
		})
	}
}

// TestReadFileFormat checks that errors name the file and keep their type.
func TestReadFileFormat(t *testing.T) {
	dir := t.TempDir()
	small := formatEncode(t, formatSmallTrace(t), batchTarget)
	for _, tc := range []struct {
		name string
		data []byte
		want any // ErrEmpty, **TruncatedError or **FormatError
	}{
		{"empty", nil, ErrEmpty},
		{"cut", small[:10], new(*TruncatedError)},
		{"random", randomBytes(100, 2), new(*FormatError)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name)
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadFileFormat(path, "")
			if err == nil || !strings.HasPrefix(err.Error(), path+": ") {
				t.Fatalf("err = %v, want it to start with the file name", err)
			}
			if e, ok := tc.want.(error); ok && !errors.Is(err, e) || !ok && !errors.As(err, tc.want) {
				t.Errorf("err = %#v, want %T", err, tc.want)
			}
		})
	}
	if _, err := ReadFileFormat(filepath.Join(dir, "missing"), ""); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestReadFileEventsOnce checks that reading a trace file makes its event
// table once, at its size, rather than in chunks copied at the end: the
// copy held the events twice, the peak of a large trace's analysis.
func TestReadFileEventsOnce(t *testing.T) {
	want := formatRealisticTrace(t, 200_000)
	data := formatEncode(t, want, batchTarget)
	path := filepath.Join(t.TempDir(), "big.seertrace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	allocs := func(read func() (*Trace, error)) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got, err := read()
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if d := formatDiff(want, got, -1); d != "" {
			t.Fatal(d)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	file := allocs(func() (*Trace, error) { return ReadFileFormat(path, "") })
	stream := allocs(func() (*Trace, error) { return Read(bytes.NewReader(data)) })
	// A stream cannot be read twice: its events are copied once.
	events := uint64(len(want.Events)) * uint64(unsafe.Sizeof(Event{}))
	if file+events*3/4 > stream {
		t.Errorf("reading %d events (%d bytes) allocated %d bytes from a file, %d from a stream", len(want.Events), events, file, stream)
	}
}

// TestReadFileClaimsBounded: a damaged file whose batch claims an event a
// byte allocates a bounded multiple of its size before it is found
// damaged: the count's hint is held to an event a quarter byte (eight
// times the size; the batch's payload and buffers are the rest), where
// the claim would make it 32.
func TestReadFileClaimsBounded(t *testing.T) {
	const n = 1 << 20
	data := formatRecords(formatUvarints(tagBatch, n, n), make([]byte, n))
	path := filepath.Join(t.TempDir(), "claims.seertrace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := ReadFileFormat(path, "")
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a batch of zero bytes read without error")
	}
	if a := after.TotalAlloc - before.TotalAlloc; a > 16*uint64(len(data)) {
		t.Errorf("reading %d bytes allocated %d", len(data), a)
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", `""`},
		{"T1|w(V1)", `"T1|w(V1)"`},
		{strings.Repeat("a", 58), `"` + strings.Repeat("a", 58) + `"`},
		{strings.Repeat("a", 59), `"` + strings.Repeat("a", 58) + `"...`},
		{strings.Repeat("\xff", 100), `"` + strings.Repeat(`\xff`, 14) + `"...`},
		{strings.Repeat("é", 100), `"` + strings.Repeat("é", 29) + `"...`},
	} {
		got := quote(tc.in)
		if got != tc.want {
			t.Errorf("quote(%.20q...) = %s, want %s", tc.in, got, tc.want)
		}
		if len(got) > maxQuote+len("...") {
			t.Errorf("quote(%.20q...) is %d bytes long", tc.in, len(got))
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"T1", "T1"},
		{strings.Repeat("x", 60), strings.Repeat("x", 60)},
		{strings.Repeat("x", 61), strings.Repeat("x", 57) + "..."},
		{strings.Repeat("é", 40), strings.Repeat("é", 28) + "..."},
	} {
		if got := clip(tc.in); got != tc.want {
			t.Errorf("clip(%.20q...) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReadFileFormatMax checks that a trace read with a cap on its events
// is the prefix Trace.Prefix gives, marked capped only when the file held
// more, for seer and STD files, and that reading a tenth of a large file
// allocates a fraction of what reading it all does.
func TestReadFileFormatMax(t *testing.T) {
	full := formatRealisticTrace(t, 50_000)
	n := len(full.Events)
	dir := t.TempDir()
	path := filepath.Join(dir, "t.seertrace")
	if err := os.WriteFile(path, formatEncode(t, full, batchTarget), 0o644); err != nil {
		t.Fatal(err)
	}
	capped := *full
	capped.Header.Capped = n + 1000 // a recording already cut at its event cap
	cappedPath := filepath.Join(dir, "capped.seertrace")
	if err := os.WriteFile(cappedPath, formatEncode(t, &capped, batchTarget), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		src    *Trace
		limit  int
		capped int // Header.Capped wanted
	}{
		{path, full, 0, 0},
		{path, full, 1, 1},
		{path, full, 7, 7},
		{path, full, n / 2, n / 2},
		{path, full, n - 1, n - 1},
		{path, full, n, 0},
		{path, full, n + 5, 0},
		{cappedPath, &capped, n / 3, n / 3},
		{cappedPath, &capped, n, n + 1000},
	} {
		got, more, err := ReadFileFormatMax(tc.path, "", tc.limit)
		if err != nil {
			t.Fatalf("%s, limit %d: %v", filepath.Base(tc.path), tc.limit, err)
		}
		if want := tc.limit > 0 && tc.limit < n; more != want {
			t.Errorf("%s, limit %d: more %v, want %v", filepath.Base(tc.path), tc.limit, more, want)
		}
		want := tc.src
		if tc.limit > 0 {
			want = tc.src.Prefix(tc.limit)
		}
		w := *want
		w.Header.Capped = tc.capped
		if d := formatDiff(&w, got, -1); d != "" {
			t.Errorf("%s, limit %d: %s", filepath.Base(tc.path), tc.limit, d)
		}
		if len(got.Values) != len(want.Values) {
			t.Errorf("%s, limit %d: %d values, want %d", filepath.Base(tc.path), tc.limit, len(got.Values), len(want.Values))
		}
	}

	// An STD file is cut after it is read, to the same prefix.
	std := "T0|acq(L)|1\nT0|w(V)|2\nT0|rel(L)|3\nT1|acq(L)|4\nT1|r(V)|5\nT1|rel(L)|6\n"
	stdPath := filepath.Join(dir, "t.std")
	if err := os.WriteFile(stdPath, []byte(std), 0o644); err != nil {
		t.Fatal(err)
	}
	all, err := ReadFileFormat(stdPath, "")
	if err != nil {
		t.Fatal(err)
	}
	got, more, err := ReadFileFormatMax(stdPath, "", 2)
	if err != nil {
		t.Fatal(err)
	}
	if !more || len(got.Events) != 2 || got.Header.Capped != 2 || got.Events[1] != all.Events[1] {
		t.Errorf("STD file cut at 2: %d events, capped %d", len(got.Events), got.Header.Capped)
	}

	// Memory follows the cap, not the file.
	big := filepath.Join(dir, "big.seertrace")
	if err := os.WriteFile(big, formatEncode(t, formatRealisticTrace(t, 400_000), batchTarget), 0o644); err != nil {
		t.Fatal(err)
	}
	allocs := func(limit int) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, _, err := ReadFileFormatMax(big, "", limit); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	if whole, tenth := allocs(0), allocs(40_000); tenth*4 > whole {
		t.Errorf("reading a tenth of the events allocated %d bytes, all of them %d", tenth, whole)
	}
}
