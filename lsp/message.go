// This file implements the wording of findings: diagnostic messages and
// the phrases that hover and the witness document share. All functions
// are pure; short names a file for the reader (see shortPath).

package lsp

import (
	"fmt"
	"go/build"
	"path/filepath"
	"sort"
	"strings"

	"github.com/seer-tools/seer/predict/report"
)

func verdict(f *report.Finding) string {
	if f.Predicted {
		return "predicted"
	}
	return "observed"
}

func site(file string, line int, short func(string) string) string {
	if file == "" {
		return fmt.Sprintf("line %d", line)
	}
	return fmt.Sprintf("%s:%d", short(file), line)
}

var (
	goroot   = filepath.Join(build.Default.GOROOT, "src") + string(filepath.Separator)
	modcache = filepath.Join(build.Default.GOPATH, "pkg", "mod") + string(filepath.Separator)
)

// isUserFile reports whether a file is the user's code: not the standard
// library or runtime, not a dependency in the module cache, not the
// generated test main.
func isUserFile(path string) bool {
	return filepath.IsAbs(path) && !strings.HasPrefix(path, goroot) && !strings.HasPrefix(path, modcache) &&
		filepath.Base(path) != "_testmain.go"
}

// userFrame returns the first frame of frames in user code: where the
// user's code started a goroutine.
func userFrame(frames []report.Frame) (report.Frame, bool) {
	for _, f := range frames {
		if isUserFile(f.File) {
			return f, true
		}
	}
	return report.Frame{}, false
}

// inUserCode reports whether a witness step happened in the user's code,
// not in GOROOT (the runtime, the testing harness) or generated code.
func inUserCode(st *report.Step) bool { return isUserFile(st.File) }

// userSteps returns the indices of the witness steps in user code.
// Witnesses hold every event up to the bug, most of them the test
// harness starting up: the user's steps tell the story.
func userSteps(f *report.Finding) []int {
	var out []int
	for i := range f.Witness {
		if inUserCode(&f.Witness[i]) {
			out = append(out, i)
		}
	}
	return out
}

// storySteps returns the witness steps in user code that tell the story:
// synchronisation and the finding's own accesses, without the reads and
// writes of other memory.
func storySteps(f *report.Finding) []int {
	access := map[int]bool{}
	for _, a := range f.Accesses {
		access[a.Event] = true
	}
	var out []int
	for _, i := range userSteps(f) {
		st := &f.Witness[i]
		if access[st.Event] || st.Op != "read" && st.Op != "write" {
			out = append(out, i)
		}
	}
	return out
}

// createdAt says where the goroutine of a was started, or "" when only
// the test harness started it.
func createdAt(a *report.Access, short func(string) string) string {
	if f, ok := userFrame(a.Created); ok {
		return "created at " + site(f.File, f.Line, short)
	}
	return ""
}

// transaction splits the accesses of an atomicity violation into those
// of the goroutine whose transaction is broken (the goroutine with the
// most accesses), in recorded order, and the others.
func transaction(f *report.Finding) (tx, others []int) {
	count := map[int]int{}
	best := 0
	for _, a := range f.Accesses {
		count[a.Goroutine]++
		if count[a.Goroutine] > count[best] {
			best = a.Goroutine
		}
	}
	for i, a := range f.Accesses {
		if a.Goroutine == best {
			tx = append(tx, i)
		} else {
			others = append(others, i)
		}
	}
	sort.SliceStable(tx, func(x, y int) bool { return f.Accesses[tx[x]].Event < f.Accesses[tx[y]].Event })
	return tx, others
}

// findingMessage describes access i of f for a diagnostic there: what
// happens at it and the other accesses with their places and goroutines.
func findingMessage(f *report.Finding, i int, short func(string) string) string {
	var b strings.Builder
	b.WriteString(report.Title(f))
	if f.Variable != "" {
		fmt.Fprintf(&b, " on %s", f.Variable)
	}
	b.WriteString(": ")
	if report.ObservedBlocking(f) {
		// Where each goroutine was left, this one's first.
		ss := report.BlockedSentences(f, short)
		if i < len(ss) {
			ss[0], ss[i] = ss[i], ss[0]
		}
		b.WriteString(strings.Join(ss, "; "))
		return b.String()
	}
	a := &f.Accesses[i]
	at := func(j int) string {
		o := &f.Accesses[j]
		return fmt.Sprintf("%s at %s", o.Op, site(o.File, o.Line, short))
	}
	self := fmt.Sprintf("%s by goroutine %d", a.Op, a.Goroutine)
	if c := createdAt(a, short); c != "" {
		self += " (" + c + ")"
	}
	if f.Kind == report.KindAtomicity {
		tx, others := transaction(f)
		inTx := false
		for _, j := range tx {
			inTx = inTx || j == i
		}
		var parts []string
		switch {
		case inTx:
			for _, j := range tx {
				if j != i {
					parts = append(parts, at(j))
				}
			}
			var between []string
			for _, j := range others {
				between = append(between, fmt.Sprintf("%s by goroutine %d", at(j), f.Accesses[j].Goroutine))
			}
			fmt.Fprintf(&b, "%s", self)
			if len(parts) > 0 {
				fmt.Fprintf(&b, " and %s", strings.Join(parts, " and "))
			}
			if len(between) > 0 {
				fmt.Fprintf(&b, " can have %s run between them", strings.Join(between, " and "))
			}
		default:
			for _, j := range tx {
				parts = append(parts, at(j))
			}
			fmt.Fprintf(&b, "%s can run between %s of goroutine %d", self, strings.Join(parts, " and "), f.Accesses[tx[0]].Goroutine)
		}
	} else {
		b.WriteString(self)
		for j := range f.Accesses {
			if j != i {
				fmt.Fprintf(&b, " and %s by goroutine %d", at(j), f.Accesses[j].Goroutine)
			}
		}
	}
	return b.String()
}
