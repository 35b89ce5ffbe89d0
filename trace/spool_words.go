// This file implements loadWords, the decoding of a record's run of
// words (the frames of an atomic or a synchronisation record) into a
// rawEvent's pcs, for cursor.decode.

package trace

import (
	"encoding/binary"
	"unsafe"
)

// hostLittle: the host stores words little end first, as the spool's
// records are read (the recorder writes them in the host's order).
var hostLittle = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// loadWords sets dst to the little-endian words at the start of src,
// which holds at least len(dst) of them. On a little-endian host that is
// one copy of the bytes, not a load and two bounds checks per word: the
// frames of atomics are most of what syncmap's records hold
// (bench/RESULTS.md, "Walker: cursor records slice, two remembered
// allocations, frames by copy").
func loadWords(dst []uint64, src []byte) {
	if len(dst) == 0 {
		return
	}
	_ = src[8*len(dst)-1] // within src's length, not only its capacity
	src = src[:8*len(dst)]
	if hostLittle {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(src)), src)
		return
	}
	for i := range dst {
		dst[i] = binary.LittleEndian.Uint64(src[8*i:])
	}
}
