// This file implements `seer version`.

package main

import (
	"flag"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/seer-tools/seer/trace"
)

var _ = register(&command{
	name:      "version",
	usageLine: "version",
	short:     "print seer's version and trace format",
	long: `
Version prints seer's module version (or the VCS revision it was built
from), the Go toolchain it was built with, and the trace format version it
reads and writes.`,
	flags: flag.NewFlagSet("version", flag.ContinueOnError),
	run: func(c *command, args []string) int {
		if !c.parse(args) {
			return 2
		}
		fmt.Printf("seer %s (%s, %s/%s, trace format %d)\n", version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, trace.FormatVersion)
		return 0
	},
})

// version is the module version seer was installed at, the VCS revision of
// a build from a clone, or "devel".
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	return "devel " + rev
}
