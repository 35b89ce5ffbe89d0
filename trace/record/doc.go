// Package record records one run of a package's tests as a trace: it
// builds the test binary with -race against the recording toolchain
// (internal/gocmd's shadow GOROOT, whose race runtime is the recorder in
// runtime/recorder.c, embedded here), runs the selected tests with the
// recorder spooling their events, reads per-test results from -test.v,
// and converts the spool while the test runs (trace.ConvertLive). It also
// runs a test under a witness schedule (RecordOptions.Replay), which the
// recorder enforces, and under a steering schedule (RecordOptions.Explore,
// explore.go) that delays goroutines for seer check -explore. Package trace describes the recorder and the trace;
// this package is the half of recording that starts processes, kept apart
// so that what only reads traces links none of it.
//
// Entry points:
//
//   - Record builds and runs a package's tests under the recorder and
//     gives a RecordResult: the Trace, each test's TestResult, the run's
//     Outcome, the stack of a panic that ended it, and whether the event
//     cap (RecordOptions.MaxEvents, DefaultMaxEvents) cut it. The recorder
//     stops at the cap itself (EventCapEnv; recorder.c, "Stopping at the
//     event cap"), once the records it has numbered surely make that many
//     events, rather than record what the converter never reads; so it
//     does with the atomics the converter ignores by their frames
//     (sync.Map's, Cond's: AtomicDropEnv; recorder.c, "atomics the
//     converter drops").
//   - Build builds the test binary once (a Binary); Binary.Run records
//     one run of it and Binary.Tests lists its tests: seer check runs one
//     Binary for each of its runs and for each witness it replays. It
//     links without DWARF (linkflags.go), into a kept binary that the go
//     command links again only when it is not up to date (bincache.go),
//     and takes the package as the caller's go list resolved it
//     (RecordOptions.Listed, listed.go). BuildGroup builds the binaries
//     of several packages with one go command, each into the kept
//     binary Build uses (buildgroup.go).
//   - PrepareToolchain prepares the recording toolchain with this
//     package's recorder; BytesPerEvent is the memory budget of one event.
//   - RecordOptions.Hang: a run whose goroutines have all been blocked on
//     synchronisation that long (DefaultHang, 1 s), with no timer pending
//     but the test's -timeout, is ended at once rather than at -timeout,
//     by a watcher that the shadow GOROOT adds to the runtime
//     (runtime/hangwatch.go.in, which says why the test is sound; hang.go
//     reads its report): RecordResult.Hang gives each goroutine's wait
//     (HangWait) and the outcome is Go's "all goroutines are asleep". The
//     same file tells the recorder where a goroutine's state is kept, so
//     that a replay does not count the time the goroutine whose step it
//     waits for sleeps or waits on a timer's channel.
//   - RecordResult.Left, with RecordOptions.Left: the goroutines still
//     alive when the test binary exited after its last test, once
//     goleak's grace (about 0.43 s of retries) has passed, each with its
//     state, its stack and whether the runtime's leak detection proved it
//     blocked on an object that no live goroutine can reach (an exit hook
//     in the same runtime file).
//   - A second runtime file (runtime/timerctx.go.in, timerctx.go) tells
//     the recorder the pc with which the runtime makes a timer context,
//     so that one a goroutine made, running a timer itself on the system
//     stack, is the runtime's and never calls back into Go from there.
//
// A package that does not build gives a *gocmd.BuildFailure.
package record
