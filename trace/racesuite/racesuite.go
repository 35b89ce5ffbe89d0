// Package racesuite copies the Go toolchain's own race tests
// ($GOROOT/src/runtime/race/testdata) into a module of their own, the
// yardstick that seer's tests and benchmarks record and score. The cgo and
// synctest tests are left out: they need cgo or a GOEXPERIMENT.
package racesuite

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// ErrMissing is returned when this GOROOT has no race tests.
var ErrMissing = errors.New("no race tests in this GOROOT")

// Copy writes the race tests and a go.mod (module racetest, whose go line
// is the toolchain's language version) into dir.
func Copy(dir string) error {
	src := filepath.Join(runtime.GOROOT(), "src", "runtime", "race", "testdata")
	files, err := filepath.Glob(filepath.Join(src, "*_test.go"))
	if err != nil || len(files) == 0 {
		return ErrMissing
	}
	for _, f := range files {
		switch filepath.Base(f) {
		case "cgo_test.go", "cgo_test_main.go", "synctest_test.go":
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	out, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return err
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "go")
	if parts := strings.Split(v, "."); len(parts) > 2 {
		v = parts[0] + "." + parts[1]
	}
	return os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module racetest\n\ngo "+v+"\n"), 0o644)
}
