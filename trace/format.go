// This file implements what the writer (writer.go) and the reader
// (reader.go) of the seer trace file format share: constants, errors and
// the event predictions. The comment below is the format's specification.
//
// # The seer trace file format, version 1
//
// A trace file is written in one pass while the test runs and read in one
// pass: every table entry (string, frame, stack, goroutine, object) is
// defined by a record before the first event that refers to it, so a reader
// needs nothing but what it has already read. A file that was cut short (the
// test process was killed) is still a valid prefix: it reads up to its last
// complete event.
//
// Integers are unsigned LEB128 varints ("uv", as encoding/binary.AppendUvarint)
// or zigzag varints ("sv", as binary.AppendVarint) unless marked "byte". A
// string is "uv length, bytes" (inline) or the uv id of a STRING record
// ("str": 0 is the empty string, the first STRING record is 1, and so on).
// Likewise a frame, stack, goroutine or object id is the count of earlier
// records of that kind: ids start at 1 and 0 means none (the empty stack, no
// object).
//
// The file starts with the header:
//
//	magic    "SEERTRACE\n" (10 bytes)
//	version  uv        FormatVersion; a reader refuses any other
//	count    uv        number of header strings that follow (8 to 64)
//	fields   strings   inline: GoVersion, GOOS, GOARCH, Package, Binary,
//	                   Args, Format, GOROOT, then Capped (decimal) when it
//	                   is not 0; readers skip any further ones
//
// Then records follow, each starting with a tag byte:
//
//	tag  record            fields
//	1    STRING            uv length (at most 1 MiB), bytes
//	2    FRAME             str func, str file, sv line
//	3    STACK             uv frame, uv parent stack (0 for an outermost frame)
//	4    GOROUTINE         sv parent, uv create stack, str test, str func
//	5    GOROUTINE_UPDATE  uv goroutine id, then the fields of GOROUTINE
//	6    OBJECT            byte kind, uv addr, uv size, str name, uv alloc stack
//	7    OBJECT_UPDATE     uv object id, then the fields of OBJECT
//	8    BATCH             uv event count n, uv payload length (at most 1 MiB), payload
//	9    OUTCOME           inline result, sv exit code, inline message
//	10   END               uv total number of events; nothing may follow
//
// GOROUTINE and OBJECT define the next id (goroutines and objects are dense
// and numbered in order). An UPDATE record replaces every field of an entry
// already defined: a goroutine's test and function, or an object's name, are
// often known only later in the run. The latest record wins; updates say
// nothing about the events around them.
//
// A BATCH payload holds n events, each at least one byte. An event starts with
//
//	uv head = mask<<5 | opcode
//
// where opcode is the Op, or 31 followed by the Op as a byte for ops >= 31.
// The mask says which fields differ from their prediction; only those
// follow, in this order:
//
//	bit  field  encoding              prediction
//	2    G      sv goroutine id       the previous event's goroutine
//	0    Addr   sv delta              the goroutine's previous address (*)
//	1    Stack  sv stack id delta     the goroutine's previous stack
//	3    Obj    sv object id delta    the goroutine's previous object (*)
//	4    Size   uv                    the goroutine's previous access/atomic
//	                                  size for accesses and atomics, else 0
//	5    Sync   byte                  the SyncKind of the previous event with
//	                                  this op
//	6    Peer   sv                    0, or -1 for OpRecv (whose Peer is
//	                                  written as index - Peer, index being
//	                                  the event's position in the trace)
//	7    Value  uv                    0
//	8    Old    uv                    0
//
// (*) Address and object predictions are kept separately for memory
// accesses and atomics on one side and all other ops on the other, so a
// lock taken around a loop of accesses does not spoil either. Deltas are
// computed modulo 2^64. Every prediction starts at zero, and all of them
// carry over from one batch to the next. An access by the goroutine that
// ran the previous event, near its previous address and stack, takes 3 to
// 5 bytes; the realistic synthetic trace of TestFormatSize takes about 7
// bytes per event, tables included.
//
// Batches let the writer emit the definitions its events need just before
// them and bound what a reader buffers; a batch cut short still yields the
// complete events at its start.
//
// # Reading
//
// A reader checks every id against the records before it, every length
// against the bounds above and the END count against the events read, and
// reports ErrEmpty (no bytes at all), ErrNotTrace (no magic), *VersionError
// (another version), *TruncatedError (the input ends before END; the events
// before it are complete and usable) or *CorruptError (anything else).
//
// # Telling the formats apart
//
// seer reads this format and RAPID's STD text format (std.go). DetectFormat
// tells them apart by their first bytes: the magic (or a prefix of it, for a
// file cut inside it) means this format, text means STD, and anything else
// (a NUL byte, another control character, invalid UTF-8) is neither, and is
// rejected with a *FormatError that names the first such byte and the
// formats seer reads. Error messages never quote more than about 60 bytes of
// the input.

package trace

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// FormatVersion is the version of the trace file format this package writes
// and the only one it reads. It changes whenever the encoding does.
const FormatVersion = 1

// fileMagic starts every seer trace file.
const fileMagic = "SEERTRACE\n"

// A fileTag is the first byte of a record (see the table above).
type fileTag byte

const (
	tagString fileTag = 1 + iota
	tagFrame
	tagStack
	tagGoroutine
	tagGoroutineUpdate
	tagObject
	tagObjectUpdate
	tagBatch
	tagOutcome
	tagEnd
)

// Event field mask bits (see the table above).
const (
	maskAddr = 1 << iota
	maskStack
	maskG
	maskObj
	maskSize
	maskSync
	maskPeer
	maskValue
	maskOld
	numMaskBits = iota
)

const (
	opcodeBits   = 5
	opcodeEscape = 1<<opcodeBits - 1

	// maxStringLen and maxBatchLen bound what a reader allocates for one
	// record, so a corrupt length cannot exhaust memory.
	maxStringLen = 1 << 20
	maxBatchLen  = 1 << 20

	// headerFields is the number of Header strings in the file header;
	// maxHeaderFields bounds how many a reader accepts.
	headerFields    = 8
	maxHeaderFields = 64

	// batchTarget is the payload size at which the writer ends a batch.
	batchTarget = 64 << 10
)

// ErrNotTrace is returned for input that does not start like a seer trace.
var ErrNotTrace = errors.New("not a seer trace file")

// ErrEmpty is returned for input without a single byte: it holds no trace
// in any format (an empty file is not a trace cut short, since nothing in
// it says what it was meant to be).
var ErrEmpty = errors.New("empty file: it holds no trace")

// A VersionError reports a trace written in a format version this seer
// cannot read.
type VersionError struct {
	Version int // the file's format version
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("trace format version %d, this seer reads version %d: re-record the test", e.Version, FormatVersion)
}

// A TruncatedError reports a trace that ends before its END record: the
// recorded process was killed, or the file was cut. Every event read before
// it is complete and correct.
type TruncatedError struct {
	Events int   // number of complete events read
	Offset int64 // where the input ends: the number of bytes it holds
	Header bool  // the input ends inside the file header
}

func (e *TruncatedError) Error() string {
	if e.Header {
		return fmt.Sprintf("seer trace truncated at byte %d, inside its header: it holds no events", e.Offset)
	}
	return fmt.Sprintf("seer trace truncated at byte %d, after %d complete events (the recording stopped before its end record)", e.Offset, e.Events)
}

// A CorruptError reports data that no seer writer produces.
type CorruptError struct {
	Offset int64 // byte offset in the file of the record or event at fault
	Msg    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt seer trace at byte %d: %s", e.Offset, e.Msg)
}

// formatNames names the trace formats seer reads, for messages.
const formatNames = "seer trace files (written by seer record) and RAPID's STD text (thread|op(operand)|location)"

// A FormatError reports input in none of the formats seer reads: binary
// data that is not a seer trace.
type FormatError struct {
	Offset int64 // the first byte that is not text
	Byte   byte  // its value
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("not a trace: binary data at byte %d (%#02x); seer reads %s", e.Offset, e.Byte, formatNames)
}

// sniffLen is how many leading bytes DetectFormat needs to decide.
const sniffLen = 512

// DetectFormat returns the format of the input that starts with head
// ("seer" or "std"; see Telling the formats apart). head should be the
// input's first 512 bytes, or all of it if shorter; an empty head gives
// ErrEmpty, binary data a *FormatError.
func DetectFormat(head []byte) (string, error) {
	if len(head) == 0 {
		return "", ErrEmpty
	}
	if n := min(len(head), len(fileMagic)); string(head[:n]) == fileMagic[:n] {
		return "seer", nil
	}
	if off := binaryAt(head); off >= 0 {
		return "", &FormatError{Offset: int64(off), Byte: head[off]}
	}
	return "std", nil
}

// binaryAt returns the offset of the first byte of b that text has no
// place for (a NUL or other control character but tab, newline, vertical
// tab, form feed and carriage return; invalid UTF-8), or -1. A rune cut by
// the end of b is not counted against it.
func binaryAt(b []byte) int {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c < ' ' && (c < '\t' || c > '\r')) || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if !utf8.FullRune(b[i:]) {
				return -1 // cut by the end of b
			}
			return i
		}
		i += n
	}
	return -1
}

// maxQuote bounds the length of a quotation of input in an error message.
const maxQuote = 60

// quote returns s quoted as by %q, cut at a rune boundary so that the
// quotation is at most maxQuote bytes long, then "..." if it was cut.
func quote(s string) string {
	end := 0
	for end < len(s) {
		_, n := utf8.DecodeRuneInString(s[end:])
		if len(strconv.Quote(s[:end+n])) > maxQuote {
			return strconv.Quote(s[:end]) + "..."
		}
		end += n
	}
	return strconv.Quote(s)
}

// clip returns s, a name that needs no quoting, cut to at most about
// maxQuote bytes.
func clip(s string) string {
	if len(s) <= maxQuote {
		return s
	}
	end := maxQuote - len("...")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "..."
}

// tfZig and tfUnzig are the zigzag mapping of binary.AppendVarint, for
// deltas computed in uint64 arithmetic.
func tfZig(d uint64) uint64   { return d<<1 ^ uint64(int64(d)>>63) }
func tfUnzig(u uint64) uint64 { return u>>1 ^ -(u & 1) }

// A predictor holds the event predictions of the table above. The writer
// and the reader keep identical ones, so that the writer can leave out
// every field the reader will guess right.
type predictor struct {
	prevG    GoID
	g        []goPredict // indexed by GoID; [0] unused
	lastSync [256]SyncKind
}

type goPredict struct {
	addr  [2]uint64 // by predictClass
	obj   [2]ObjID
	stack uint64 // file stack id
	size  uint32
}

func newPredictor() predictor { return predictor{g: make([]goPredict, 1)} }

// addGoroutine makes room for the predictions of one more goroutine.
func (p *predictor) addGoroutine() { p.g = append(p.g, goPredict{}) }

// guess returns the event that goroutine g, already added, is predicted to
// do next if its op is op, and its file stack id.
func (p *predictor) guess(g GoID, op Op) (Event, uint64) {
	gp := &p.g[g]
	c := predictClass(op)
	e := Event{G: p.prevG, Op: op, Addr: gp.addr[c], Obj: gp.obj[c], Sync: p.lastSync[op]}
	if c == 0 {
		e.Size = gp.size
	}
	if op == OpRecv {
		e.Peer = -1
	}
	return e, gp.stack
}

// observe records e, whose stack has file id stack, as the latest event.
func (p *predictor) observe(e *Event, stack uint64) {
	gp := &p.g[e.G]
	c := predictClass(e.Op)
	gp.addr[c], gp.obj[c], gp.stack = e.Addr, e.Obj, stack
	if c == 0 {
		gp.size = e.Size
	}
	p.prevG = e.G
	p.lastSync[e.Op] = e.Sync
}

// predictClass is the index of op's address and object predictions: 0 for
// memory accesses and atomics, whose Size is predicted too, 1 for the rest.
func predictClass(op Op) int {
	if op.IsAccess() || op.IsAtomic() {
		return 0
	}
	return 1
}
