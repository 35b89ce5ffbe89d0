package harness

import (
	"os"
	"slices"
	"syscall"
	"testing"
)

// A real /proc/<pid>/stat line (cat's own).
const catStat = "22661 (cat) R 22656 22656 321 0 -1 4194304 99 0 0 0 0 0 0 0 20 0 1 0 284135 3133440 375 18446744073709551615 94293097930752 94293097950633 140724918552096 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0 94293097966640 94293097968256 94293797023744 140724918557182 140724918557202 140724918557202 140724918558699 0\n"

func TestParseStat(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want ProcStat
	}{
		{catStat, ProcStat{PPID: 22656, VSize: 3133440, RSS: 375}},
		// comm may hold spaces and parentheses.
		{"42 (a b) c)) S 7 42 42 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 4096 3 0", ProcStat{PPID: 7, VSize: 4096, RSS: 3}},
	} {
		got, err := ParseStat([]byte(tc.stat))
		if err != nil || got != tc.want {
			t.Errorf("ParseStat(%q) = %+v, %v; want %+v", tc.stat, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "12 (x", "12 (x) S 1 2 3", "12 (x) S y 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21"} {
		if _, err := ParseStat([]byte(bad)); err == nil {
			t.Errorf("ParseStat(%q): no error", bad)
		}
	}
}

func TestTreeSum(t *testing.T) {
	procs := map[int]ProcStat{
		1:  {PPID: 0, VSize: 1, RSS: 1000},
		10: {PPID: 1, VSize: 500, RSS: 100},  // root
		11: {PPID: 10, VSize: 50, RSS: 10},   // child
		12: {PPID: 10, VSize: 500, RSS: 100}, // vfork'd child of 10, before exec: not counted again
		13: {PPID: 11, VSize: 70, RSS: 7},    // grandchild
		20: {PPID: 1, VSize: 9, RSS: 9},      // elsewhere
	}
	if got, want := TreeSum(10, procs, 10), int64((100+10+7)*10); got != want {
		t.Errorf("TreeSum(10) = %d, want %d", got, want)
	}
	if got := TreeSum(99, procs, 10); got != 0 {
		t.Errorf("TreeSum(gone) = %d, want 0", got)
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
	procs := map[int]ProcStat{1: {PPID: 0}, 10: {PPID: 1}, 11: {PPID: 10}, 12: {PPID: 10}, 13: {PPID: 11}, 20: {PPID: 1}, 21: {PPID: 20}}
	got := Descendants(10, procs)
	slices.Sort(got)
	if want := []int{10, 11, 12, 13}; !slices.Equal(got, want) {
		t.Errorf("Descendants(10) = %v, want %v", got, want)
	}
	if got := Descendants(99, procs); !slices.Equal(got, []int{99}) {
		t.Errorf("Descendants(99) = %v, want [99]", got)
	}
}

// TestTreeRSSSelf reads this process's own tree from /proc.
func TestTreeRSSSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	rss, err := TreeRSS(os.Getpid())
	if err != nil || rss <= 0 {
		t.Errorf("TreeRSS(self) = %d, %v; want > 0", rss, err)
	}
}
