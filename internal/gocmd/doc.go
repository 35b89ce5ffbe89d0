// Package gocmd is seer's plumbing around the go command: the recording
// toolchain, the processes seer starts, its temporary directories and the
// go command's build errors. It knows nothing of traces; trace/record
// builds and runs test binaries with it, and static and lsp use its
// environment, temporary directories and error parsing.
//
// Entry points:
//
//   - PrepareToolchain returns the recording Toolchain for the go command
//     on PATH: a shadow GOROOT in which the race runtime is seer's recorder
//     (compiled from the C source the caller passes) and a GOCACHE of
//     seer's own, built once under CacheDir. Toolchain.Env is the
//     environment of a go command that builds against it. A ShadowFile
//     is a Go file the shadow GOROOT adds to a standard package (the
//     hang watcher of trace/record, in package runtime), left out on a
//     Go release that lacks what it uses.
//   - PrepareToolchainIn is PrepareToolchain for the Go the go command
//     runs in a module's directory (SelectGo: GOTOOLCHAIN, go.mod's
//     toolchain and go lines), one shadow per Go version; a Go seer cannot
//     record with (older than MinGoVersion, another platform, a race
//     runtime interface the recorder does not define) is refused with an
//     *UnsupportedGoError. FetchToolchain makes a Go version runnable.
//   - GoEnv is the environment of a go command run against the real
//     GOROOT (go list, go/packages) with seer's own GOCACHE.
//   - RunOwned runs a command as a process that dies with seer, and stops
//     its process group when the context is done.
//   - TempDir makes a temporary directory that the next seer removes if
//     this one dies without removing it.
//   - ParseBuildError and ParseBuildErrors read the positioned errors of
//     go build output; a BuildFailure is a test binary that did not build.
package gocmd
