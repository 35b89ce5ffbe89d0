// This file tests parseSize, the reading of -maxmem, and spoolRoom, the
// spool's share of it.

package main

import "testing"

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64 // 0: an error
	}{
		{"1GiB", 1 << 30}, {"512MiB", 512 << 20}, {"2g", 2 << 30}, {"1.5GB", 3 << 29}, {"100", 100},
		{"", 0}, {"-1GiB", 0}, {"lots", 0}, {"GiB", 0},
	} {
		got, err := parseSize(tc.in)
		if (err != nil) != (tc.want == 0) || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestSpoolRoom: the spool's room is the eighth of -maxmem the Go memory
// limit leaves, less what the binary keeps resident, and at least a
// sixteenth of -maxmem.
func TestSpoolRoom(t *testing.T) {
	for _, c := range []struct {
		mem, want int64
	}{
		{1 << 30, 128<<20 - binaryRoom},
		{512 << 20, 64<<20 - binaryRoom},
		{384 << 20, 48<<20 - binaryRoom},
		{256 << 20, 16 << 20},
		{4 << 20, 256 << 10},
	} {
		if got := spoolRoom(c.mem); got != c.want {
			t.Errorf("spoolRoom(%d MiB) = %d, want %d", c.mem>>20, got, c.want)
		}
		if got := spoolRoom(c.mem); got+binaryRoom > c.mem/8 && got > c.mem/16 {
			t.Errorf("spoolRoom(%d MiB) = %d: with the binary's room past the eighth the Go limit leaves", c.mem>>20, got)
		}
	}
}
