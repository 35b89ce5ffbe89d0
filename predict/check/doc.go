// Package check is seer's engine as its users meet it: record the tests of
// packages, predict from each recording, and report findings in source
// terms. `seer check`, `seer predict -json` and the language server all
// call it, so the command line and the editor always agree.
//
// It is the driver alone: the report it builds (report.Report), the
// sentences that tell a finding and every renderer of a report (text,
// JSON, SARIF, the witness page and text, the hover) are package
// predict/report's.
//
// # Entry points
//
//   - Run records and checks the tests of packages (Options).
//   - Predict reports the findings of one trace file (PredictOptions).
//   - Options.Replay confirms each race and deadlock by running its test
//     again under its witness (replay.go).
//   - HistoryBudget and HistoryCutNote: the clock history's share of the
//     memory budget, and the note when a run outgrew it.
//   - Options.PrePassBudget and CostCutNote: each run analysed up to the
//     events whose cost the analysis's first phase holds
//     (predict.EventsWithin), and the note when a run was cut there.
//   - Options.Explore runs each selected test up to N more times under
//     schedules the recorder steers, and reports the union of the runs'
//     findings, each with its origin (explore.go, explore_plan.go,
//     explore_partner.go, explore_nearmiss.go; ParseStrategies reads
//     -explore-strategies; NearMissTries bounds the runs aimed at one near
//     miss). A Steerer plans the same steered runs from recordings alone
//     (seer record -explore).
//
// # Pipeline
//
// For each package: record.Record runs the selected tests under the
// recording runtime; predict.Analyze finds the races and atomicity
// violations another schedule would show, each with a witness that the
// independent checker has re-validated; this package then keeps the
// findings that belong to user code (races inside the testing harness are
// not the user's), attributes each to the test whose goroutine tree holds
// its accesses, resolves positions and names through package static, and
// builds a report.Report. A recording that ended normally (or hung) is also
// searched for goroutines it left blocked (predict.ObservedBlocked,
// blocking.go): leaks, or the observed deadlock of a test that hung
// (timed out, or was ended at once because every goroutine had been
// blocked on synchronisation for Options.Hang), each re-checked by the
// witness checker and told by where each goroutine was left, or, for a
// run ended as hung, where the runtime found it waiting (hang.go); with
// Options.Leaks, in a run that ended normally, every goroutine of a test still alive at exit
// after goleak's grace is a leak (predict.ObservedLeft), placed where the
// runtime found it waiting. With Options.Replay, each race and deadlock is then
// confirmed (or not) by running its test again under its witness
// (replay.go).
//
// With Options.Explore, the first run of each pattern of tests is followed
// by up to N steered runs (explore.go): each is recorded, analysed as the
// first is, planned from and dropped before the next, and its findings
// join the report when no run before had them (by kind, test and sites);
// report.Exploration says how it went, with the found-vs-runs curve.
//
// Options.Procs packages are checked at once, as go test -p runs them,
// each within its share of the memory cap (a recording and an analysis
// can each take all of it; an analysis judges the room it may spend on
// steps side by side in that share while other packages are left,
// predict.Options.Sharing); the test binaries of the next few are built
// meanwhile, as many builds at a time, the first package's alone and the
// others' several to one go command (buildgroup.go), the source of a few
// packages is loaded at once (sourcegroup.go), and the report is in
// package order (Run, packages.go). Options.Shard checks one share of the packages, for
// a CI matrix.
//
// # go test's flags and cache
//
// Options.GoFlags reach the build, go list and the loading of the source;
// Options.Test holds the test binary's flags (-short, -failfast,
// -parallel), and -count and -cpu, each of whose runs is recorded on its
// own and whose findings are united (gotest.go). With Options.Cache, a
// package whose tests passed is answered from seer's cache of reports
// while its test binary, the flags, seer and what its tests read (the test
// log's environment variables and files) are unchanged, as go test's
// test cache answers (cache.go; Package.Cached).
//
// # Why no race
//
// With Options.WhyNoRace, the report also holds Ordered: for each pair of
// source lines whose accesses conflict (one goroutine's write against
// another's access, in one test) and that no race finding names, the
// closest such pair of the run with what orders it (predict.Why), and
// report.WhyNoRaceSentences words it, one sentence a rule. The editor shows it
// on hover (whynorace.go).
//
// # Options
//
// Options.Progress receives the stages (building, running, converting,
// analysing N events; the SAT stage is part of analysing; done, or cached)
// for editors to show, and, with Options.Live, the events recorded so far
// and each test as it ends, for a terminal (progress.go); cancelling the
// context stops the test process and the solver.
package check
