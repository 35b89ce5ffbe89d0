package harness

import (
	"os"
	"slices"
	"syscall"
	"testing"
)

func TestParseStatPPID(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want int
	}{
		{"1234 (go) S 987 1234 1234 0 -1 4194560 100 0 0 0", 987},
		// comm may hold spaces and parentheses.
		{"42 (a b) c)) R 7 42 42 0 -1", 7},
		{"5 () S 1 5 5", 1},
	} {
		got, err := ParseStatPPID([]byte(tc.stat))
		if err != nil || got != tc.want {
			t.Errorf("ParseStatPPID(%q) = %d, %v; want %d", tc.stat, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "12 (x", "12 (x) S", "12 (x) S y"} {
		if _, err := ParseStatPPID([]byte(bad)); err == nil {
			t.Errorf("ParseStatPPID(%q): no error", bad)
		}
	}
}

func TestParseStatmRSS(t *testing.T) {
	got, err := ParseStatmRSS([]byte("190522 25431 5234 1 0 53672 0\n"), 4096)
	if err != nil || got != 25431*4096 {
		t.Errorf("ParseStatmRSS = %d, %v; want %d", got, err, 25431*4096)
	}
	for _, bad := range []string{"", "12", "12 x 3"} {
		if _, err := ParseStatmRSS([]byte(bad), 4096); err == nil {
			t.Errorf("ParseStatmRSS(%q): no error", bad)
		}
	}
}

func TestMaxRSSBytes(t *testing.T) {
	if got := MaxRSSBytes(&syscall.Rusage{Maxrss: 2048}); got != 2<<20 {
		t.Errorf("MaxRSSBytes(2048 KB) = %d, want %d", got, 2<<20)
	}
	if got := MaxRSSBytes(nil); got != 0 {
		t.Errorf("MaxRSSBytes(nil) = %d", got)
	}
}

func TestDescendants(t *testing.T) {
	parent := map[int]int{1: 0, 10: 1, 11: 10, 12: 10, 13: 11, 20: 1, 21: 20}
	got := Descendants(10, parent)
	slices.Sort(got)
	if want := []int{10, 11, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("Descendants(10) = %v, want %v", got, want)
	}
	if got := Descendants(99, parent); !slices.Equal(got, []int{99}) {
		t.Errorf("Descendants(99) = %v, want [99]", got)
	}
}

// TestTreeRSSSelf reads this process's own tree from /proc.
func TestTreeRSSSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		t.Skip("no /proc")
	}
	rss, err := TreeRSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Errorf("TreeRSS(self) = %d, %v; want > 0", rss, err)
	}
}
