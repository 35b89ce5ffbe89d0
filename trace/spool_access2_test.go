// This file tests the two-word plain access records (recorder.c's "Plain
// accesses in two words"): a spool whose reads and writes are written in
// two words converts to the same trace as one written in three.

package trace

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"
)

// spoolAccess2 encodes an access of size 1 as recorder.c's mem_access
// does in two words.
func spoolAccess2(seq uint64, kind uint8, addr, pc uint64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, seq<<seq2Shift|pc&0xffff<<8|uint64(kind))
	return binary.LittleEndian.AppendUint64(b, addr|pc>>16<<addr2Bits)
}

func TestSpoolAccess2(t *testing.T) {
	// Accesses at the bounds of the two-word form: a pc of 32 bits with
	// both halves set, an address of 47, a sequence number of 40.
	type access struct {
		seq        uint64
		write      bool
		addr, pc   uint64
		goroutine2 bool
	}
	accesses := []access{
		{3, true, 0xc000010000, 0x401234, false},
		{5, false, 0xc000010000, 0x4fffe, true},
		{6, false, 1<<47 - 1, 0xffffffff, true},
		{8, true, 0x7ffc0001, 0x10001, false},
		{1<<40 - 1, true, 0xc000010001, 0xabcd0001, false},
	}
	streams := func(two bool) map[uint32][]byte {
		var main, child []byte
		main = append(main, spoolRec(1, rGo, 2, 0x1000)...)
		child = append(child, spoolRec(2, rStart, 1)...)
		for _, a := range accesses {
			kind, kind2 := uint8(rRead), uint8(rRead2)
			if a.write {
				kind, kind2 = rWrite, rWrite2
			}
			rec := spoolRec(a.seq, kind, a.addr, a.pc<<8|1)
			if two {
				rec = spoolAccess2(a.seq, kind2, a.addr, a.pc)
			}
			if a.goroutine2 {
				child = append(child, rec...)
			} else {
				main = append(main, rec...)
			}
		}
		return map[uint32][]byte{1: append(main, spoolRec(1<<40, rEnd)...), 2: append(child, spoolRec(7, rEnd)...)}
	}
	var traces [2]bytes.Buffer
	for i, two := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "spool")
		writeSpool(t, path, streams(two))
		tr, _, err := convert(path, "", "", Header{}, nil, 0, LiveOptions{KeepLocal: true}.options())
		if err != nil {
			t.Fatal(err)
		}
		if tr.Truncated {
			t.Errorf("two words %v: the trace is truncated", two)
		}
		n := 0
		for _, e := range tr.Events {
			if e.Op == OpRead || e.Op == OpWrite {
				n++
			}
		}
		if n != len(accesses) {
			t.Errorf("two words %v: %d accesses in the trace, want %d", two, n, len(accesses))
		}
		if err := WriteTrace(&traces[i], tr); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(traces[0].Bytes(), traces[1].Bytes()) {
		t.Errorf("accesses in two words convert to another trace than in three (%d bytes against %d)", traces[1].Len(), traces[0].Len())
	}
}
