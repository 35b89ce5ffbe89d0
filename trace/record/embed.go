// This file embeds the recording runtime's C source, which
// gocmd.PrepareToolchain compiles into the shadow GOROOT.

package record

import (
	"context"
	_ "embed"

	"github.com/seer-tools/seer/internal/gocmd"
)

//go:embed runtime/recorder.c
var recorderSource []byte

// PrepareToolchain returns the recording toolchain for the go command on
// PATH (gocmd.PrepareToolchain with this package's recorder), building
// the recorder and the shadow GOROOT into the cache directory on first
// use. cacheDir "" means the user cache directory.
func PrepareToolchain(ctx context.Context, cacheDir string) (*gocmd.Toolchain, error) {
	return gocmd.PrepareToolchain(ctx, cacheDir, nil, recorderSource, shadowFiles...)
}

// PrepareToolchainIn is PrepareToolchain for the Go that the go command
// runs in dir with the environment env (gocmd.PrepareToolchainIn): the
// toolchain Build records with there, the same shadow GOROOT and build
// cache, so that what the caller compiles with it (seer check's cache
// asks go list -export for build IDs) Build finds compiled.
func PrepareToolchainIn(ctx context.Context, cacheDir, dir string, env []string) (*gocmd.Toolchain, error) {
	return gocmd.PrepareToolchainIn(ctx, cacheDir, dir, env, recorderSource, shadowFiles...)
}
