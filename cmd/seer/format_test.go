// This file tests parseSize, the reading of -maxmem.

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
