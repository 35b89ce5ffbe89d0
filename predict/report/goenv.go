// This file implements where the Go installation and the module cache
// are, as go/build's Default context says (its defaultContext and
// defaultGOPATH), without importing go/build, which imports os/exec: the
// report stays free of process plumbing (deps_test.go at the root).

package report

import (
	"os"
	"path/filepath"
	"runtime"
)

var (
	// buildGOROOT is build.Default.GOROOT.
	buildGOROOT = defaultGOROOT()
	// buildGOPATH is build.Default.GOPATH.
	buildGOPATH = defaultGOPATH()
)

func defaultGOROOT() string {
	if goroot := runtime.GOROOT(); goroot != "" {
		return filepath.Clean(goroot)
	}
	return ""
}

func defaultGOPATH() string {
	if gopath := os.Getenv("GOPATH"); gopath != "" {
		return gopath
	}
	env := "HOME"
	if runtime.GOOS == "windows" {
		env = "USERPROFILE"
	} else if runtime.GOOS == "plan9" {
		env = "home"
	}
	if home := os.Getenv(env); home != "" {
		def := filepath.Join(home, "go")
		if filepath.Clean(def) == filepath.Clean(runtime.GOROOT()) {
			return "" // as go/build: never GOROOT
		}
		return def
	}
	return ""
}
