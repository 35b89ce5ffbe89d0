// This file implements the constants, errors and varint helpers of the seer
// trace file format shared by Writer (writer.go) and Reader (reader.go). The
// comment below is the format's specification.
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
//	                   Args, Format, GOROOT; readers skip any further ones
//
// Then records follow, each starting with a tag byte:
//
//	tag  record            fields
//	1    STRING            uv length (< 1 MiB), bytes
//	2    FRAME             str func, str file, sv line
//	3    STACK             uv frame, uv parent stack (already defined)
//	4    GOROUTINE         sv parent, uv create stack, str test, str func
//	5    GOROUTINE_UPDATE  uv goroutine id, then the fields of GOROUTINE
//	6    OBJECT            byte kind, uv addr, uv size, str name, uv alloc stack
//	7    OBJECT_UPDATE     uv object id, then the fields of OBJECT
//	8    BATCH             uv event count n, uv payload length (< 1 MiB), payload
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
// carry over from one batch to the next. With the common case (same
// goroutine, nearby address, nearby stack) an access costs 3 to 4 bytes.
//
// Batches let the writer emit the definitions its events need just before
// them and bound what a reader buffers; a batch cut short still yields the
// complete events at its start. The END record's count must match the
// number of events read.
package trace

import (
	"errors"
	"fmt"
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
	Events int // number of complete events read
}

func (e *TruncatedError) Error() string {
	return fmt.Sprintf("seer trace truncated after %d events (the recording stopped before its end record)", e.Events)
}

// A CorruptError reports data that no seer writer produces.
type CorruptError struct {
	Offset int64 // byte offset in the file of the record or event at fault
	Msg    string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("corrupt seer trace at byte %d: %s", e.Offset, e.Msg)
}

// tfZig and tfUnzig are the zigzag mapping of binary.AppendVarint, for
// deltas computed in uint64 arithmetic.
func tfZig(d uint64) uint64   { return d<<1 ^ uint64(int64(d)>>63) }
func tfUnzig(u uint64) uint64 { return u>>1 ^ -(u & 1) }

// sizedOp reports whether op's Size is predicted from the goroutine's
// previous sized event, and which address/object prediction it uses.
func sizedOp(op Op) bool { return op.IsAccess() || op.IsAtomic() }

// predictClass is the index of op's address and object predictions.
func predictClass(op Op) int {
	if sizedOp(op) {
		return 0
	}
	return 1
}

// goPredict is the per-goroutine prediction state shared by the writer and
// the reader of batches.
type goPredict struct {
	addr  [2]uint64
	obj   [2]uint64
	stack uint64
	size  uint32
}
