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
	got, counted := TreeSum(10, procs, 10)
	slices.Sort(counted)
	if want := int64((100 + 10 + 7) * 10); got != want || !slices.Equal(counted, []int{10, 11, 13}) {
		t.Errorf("TreeSum(10) = %d, %v; want %d, [10 11 13]", got, counted, want)
	}
	if got, counted := TreeSum(99, procs, 10); got != 0 || len(counted) != 0 {
		t.Errorf("TreeSum(gone) = %d, %v; want 0", got, counted)
	}
}

func TestParseStatm(t *testing.T) {
	resident, shared, err := ParseStatm([]byte("190522 25431 5234 1 0 53672 0\n"))
	if err != nil || resident != 25431 || shared != 5234 {
		t.Errorf("ParseStatm = %d, %d, %v; want 25431, 5234", resident, shared, err)
	}
	for _, bad := range []string{"", "12 3", "12 x 3", "12 3 x"} {
		if _, _, err := ParseStatm([]byte(bad)); err == nil {
			t.Errorf("ParseStatm(%q): no error", bad)
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

// TestSampleTreeSelf reads this process's own tree from /proc.
func TestSampleTreeSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	m, err := SampleTree(os.Getpid())
	if err != nil || m.RSS <= 0 || m.Anon <= 0 || m.Anon > m.RSS {
		t.Errorf("SampleTree(self) = %+v, %v; want 0 < Anon <= RSS", m, err)
	}
}
