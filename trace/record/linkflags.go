// This file implements the link flags of a recorded test binary: it is
// linked without DWARF (-ldflags=-w), as go test links the binaries it
// runs (go test adds -s -w), because nothing reads it: the runtime
// symbolises stacks from the pcln table, and seer reads only the ELF
// symbol table (the globals that name accesses, replay's functions), which
// -w keeps and -s would drop. Writing the DWARF is a large share of
// linking, which every seer check does for every package (bench/RESULTS.md,
// "seer check's builds without DWARF").

package record

import "strings"

// noDWARF is the linker flag that leaves out the DWARF sections.
const noDWARF = "-w"

// withoutDWARF returns the go command's build flags goFlags with -w added
// to the linker's flags. goflags is the GOFLAGS the go command applies
// before them (gocmd.Toolchain.GOFLAGS). The user's linker flags are kept
// as they are: -w joins a single -ldflags=value of goFlags that is not
// per-package (pattern=value), and when the linker flags come from GOFLAGS,
// or from several or per-package -ldflags, they are left alone (one more
// -ldflags would replace them for the package, not add to them).
func withoutDWARF(goFlags []string, goflags string) []string {
	if strings.Contains(goflags, "ldflags") {
		return goFlags // however GOFLAGS spells or quotes it
	}
	at := -1
	for i, f := range goFlags {
		if !isLdflags(f) {
			continue
		}
		if at >= 0 {
			return goFlags // several: leave them as they are
		}
		at = i
	}
	if at < 0 {
		return append(goFlags[:len(goFlags):len(goFlags)], "-ldflags="+noDWARF)
	}
	name, value, ok := strings.Cut(goFlags[at], "=")
	if !ok {
		return goFlags // -ldflags VALUE as two words
	}
	if v := strings.TrimSpace(value); v != "" && !strings.HasPrefix(v, "-") {
		return goFlags // pattern=value: for some packages only
	}
	out := append([]string(nil), goFlags...)
	out[at] = name + "=" + strings.TrimSpace(noDWARF+" "+value)
	return out
}

// isLdflags reports whether the go command's argument f is its -ldflags
// flag (-ldflags=v, --ldflags=v, or -ldflags followed by its value).
func isLdflags(f string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
	return strings.HasPrefix(f, "-") && name == "ldflags"
}
