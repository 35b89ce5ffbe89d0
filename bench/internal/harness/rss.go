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
//     its descendants at that instant, read from /proc/<pid>/stat. It sees processes
//     that are big together (go test runs compilers and test binaries side
//     by side), but can miss a peak shorter than the sampling interval.
//     TreeAnon is the same for anonymous memory alone (heap, stacks), from
//     /proc/<pid>/statm: what is left when file-backed pages, which the
//     kernel can drop, are not counted.
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

// A ProcStat is what SampleTree reads from /proc/<pid>/stat.
type ProcStat struct {
	PPID  int
	VSize uint64 // bytes of virtual memory
	RSS   int64  // resident pages
}

// ParseStat parses the contents of /proc/<pid>/stat. The second field
// (comm) is in parentheses and may itself hold spaces and parentheses, so
// the fields are counted from the last ')'.
func ParseStat(stat []byte) (ProcStat, error) {
	var ps ProcStat
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ps, errors.New("stat: no ')' after comm")
	}
	// After comm: state (field 3 of proc(5)), ppid (4), ..., vsize (23), rss (24).
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 22 {
		return ps, errors.New("stat: too few fields")
	}
	var err error
	if ps.PPID, err = strconv.Atoi(string(fields[1])); err != nil {
		return ps, fmt.Errorf("stat: ppid: %v", err)
	}
	if ps.VSize, err = strconv.ParseUint(string(fields[20]), 10, 64); err != nil {
		return ps, fmt.Errorf("stat: vsize: %v", err)
	}
	if ps.RSS, err = strconv.ParseInt(string(fields[21]), 10, 64); err != nil {
		return ps, fmt.Errorf("stat: rss: %v", err)
	}
	return ps, nil
}

// Descendants returns root and every pid below it in procs's tree.
func Descendants(root int, procs map[int]ProcStat) []int {
	children := map[int][]int{}
	for pid, ps := range procs {
		children[ps.PPID] = append(children[ps.PPID], pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}

// TreeSum returns the resident bytes of root and its descendants in
// procs, and the pids it counted. A child whose size and resident set
// equal its parent's exactly is taken to share the parent's memory — a
// vfork'd child before its exec (how os/exec starts commands), or a fork's
// copy-on-write twin — and is not counted again: otherwise a sample that
// lands in that window counts a multi-gigabyte seer twice.
func TreeSum(root int, procs map[int]ProcStat, pageSize int) (int64, []int) {
	var sum int64
	var counted []int
	for _, pid := range Descendants(root, procs) {
		ps, ok := procs[pid]
		if !ok {
			continue
		}
		if parent, ok := procs[ps.PPID]; ok && pid != root && parent.VSize == ps.VSize && parent.RSS == ps.RSS {
			continue
		}
		sum += ps.RSS * int64(pageSize)
		counted = append(counted, pid)
	}
	return sum, counted
}

// ParseStatm returns the resident and the shared (file-backed or shared
// memory) pages from the contents of /proc/<pid>/statm; resident minus
// shared is the process's anonymous memory (its heap and stacks).
func ParseStatm(statm []byte) (resident, shared int64, err error) {
	fields := bytes.Fields(statm)
	if len(fields) < 3 {
		return 0, 0, errors.New("statm: too few fields")
	}
	if resident, err = strconv.ParseInt(string(fields[1]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("statm: resident: %v", err)
	}
	if shared, err = strconv.ParseInt(string(fields[2]), 10, 64); err != nil {
		return 0, 0, fmt.Errorf("statm: shared: %v", err)
	}
	return resident, shared, nil
}

// TreeMem is a sample of a process tree's memory.
type TreeMem struct {
	RSS  int64 // bytes resident (see TreeSum)
	Anon int64 // of which anonymous: RSS less file-backed mappings
}

// SampleTree returns the memory of root and its descendants as /proc
// shows them now. Processes that end while it reads are left out.
func SampleTree(root int) (TreeMem, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return TreeMem{}, err
	}
	procs := map[int]ProcStat{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if ps, err := ParseStat(stat); err == nil {
			procs[pid] = ps
		}
	}
	page := os.Getpagesize()
	var m TreeMem
	var counted []int
	m.RSS, counted = TreeSum(root, procs, page)
	for _, pid := range counted {
		statm, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "statm"))
		if err != nil {
			continue
		}
		if resident, shared, err := ParseStatm(statm); err == nil && resident >= shared {
			m.Anon += (resident - shared) * int64(page)
		}
	}
	return m, nil
}
