package harness

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// Two measures of memory are taken for each run, because neither alone is
// "the peak RSS of the process tree":
//
//   - MaxRSS is ru_maxrss from wait4(2) on the child (syscall.Wait4, which
//     exec.Cmd.Wait calls). Linux fills it with the largest resident set of
//     any single process among the child and the descendants it waited for
//     (RUSAGE_CHILDREN semantics): the biggest process, not the sum. It is
//     exact and misses nothing short-lived, but two processes that are big
//     at the same time count once.
//   - TreeRSS is the peak, over samples taken every few tens of
//     milliseconds, of the sum of the resident sets of the child and all
//     its descendants at that instant, read from /proc. It sees processes
//     that are big together (go test runs compilers and test binaries side
//     by side), but can miss a peak shorter than the sampling interval.
//
// Targets are judged on the larger of the two.

// MaxRSSBytes converts a Rusage's Maxrss, which Linux reports in
// kilobytes, to bytes.
func MaxRSSBytes(ru *syscall.Rusage) int64 {
	if ru == nil {
		return 0
	}
	return int64(ru.Maxrss) * 1024
}

// ParseStatPPID returns the parent pid from the contents of /proc/<pid>/stat.
// The second field (comm) is in parentheses and may itself hold spaces and
// parentheses, so the fields are counted from the last ')'.
func ParseStatPPID(stat []byte) (int, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("stat: no ')' after comm")
	}
	fields := bytes.Fields(stat[i+1:])
	// fields[0] is state, fields[1] is ppid.
	if len(fields) < 2 {
		return 0, errors.New("stat: too few fields")
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return 0, fmt.Errorf("stat: ppid: %v", err)
	}
	return ppid, nil
}

// ParseStatmRSS returns the resident set size in bytes from the contents
// of /proc/<pid>/statm, whose second field is resident pages.
func ParseStatmRSS(statm []byte, pageSize int) (int64, error) {
	fields := bytes.Fields(statm)
	if len(fields) < 2 {
		return 0, errors.New("statm: too few fields")
	}
	pages, err := strconv.ParseInt(string(fields[1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("statm: resident: %v", err)
	}
	return pages * int64(pageSize), nil
}

// Descendants returns root and every pid below it in the tree given by
// parent (pid -> ppid).
func Descendants(root int, parent map[int]int) []int {
	children := map[int][]int{}
	for pid, ppid := range parent {
		children[ppid] = append(children[ppid], pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// TreeRSS returns the summed resident set size, in bytes, of root and its
// descendants as /proc shows them now. Processes that end while it reads
// are left out.
func TreeRSS(root int) (int64, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0, err
	}
	parent := map[int]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if ppid, err := ParseStatPPID(stat); err == nil {
			parent[pid] = ppid
		}
	}
	page := os.Getpagesize()
	var sum int64
	for _, pid := range Descendants(root, parent) {
		statm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
		if err != nil {
			continue
		}
		if rss, err := ParseStatmRSS(statm, page); err == nil {
			sum += rss
		}
	}
	return sum, nil
}
