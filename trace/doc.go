// Package trace records one run of a package's tests and gives it back as a
// Trace: the events every goroutine made, in Go terms, with symbolised
// stacks, for the analyses of package predict.
//
// # Recording
//
// Recording is package trace/record, so that what reads traces (the
// witness checker among them) links no process plumbing and no recorder.
// seer does not rewrite source. record.Record builds the test binary with -race,
// so that the compiler instruments every memory access and function entry
// in every package and the runtime and package sync annotate every
// synchronisation, and links it against seer's own implementation of the
// race runtime interface (record/runtime/recorder.c, the __tsan_* functions that
// runtime/race.go declares) in place of ThreadSanitizer's. That
// implementation records instead of detecting: each goroutine appends fixed
// records to chunks of a memory-mapped spool file, stamped from one global
// sequence counter, so that a test that panics, fails, hangs or is killed
// still leaves every complete record. The recorder gives back the pages
// of each 2 MiB of finished chunks as it goes (they stay in the file), so
// the test process does not hold its spool in memory. Fresh pages of the
// file cost the test more than writing them, so seer faults the spool's
// first pages in while the test starts (PrepareSpool), a helper thread of
// the recorder's faults in the regions ahead of its writers (recorder.c's
// "Faulting in ahead"), plain accesses take two words where they fit
// (R_READ2, R_WRITE2). The live converter can copy each finished chunk
// out and give its slot back for the recorder to write again
// (spool_drain.go, recorder.c's "Recycling"), but trace/record leaves that
// off (record.go's recycleSpool): a chunk written into a recycled slot is
// never counted finished, so its region is never given back.
// internal/gocmd's PrepareToolchain compiles the recorder
// with the system C compiler on first use and keeps a shadow GOROOT (links
// to the real one, the race .syso replaced, sync/cond.go annotated) and a
// GOCACHE of its own under the user cache directory: the user's tree,
// go.mod, GOROOT and GOCACHE are never touched. trace/record runs the binary,
// reads per-test results from -test.v, and converts the spool (ConvertLive).
//
// The recorder also steers: given a steering schedule (SEER_EXPLORE,
// explore.go), it delays goroutines, named by creation (GoPaths), at
// positions of their own, or runs PCT's priorities, for seer check
// -explore; only ever by delaying, at records of user code, and each wait
// bounded.
//
// The recorder also replays: given a witness schedule (SEER_REPLAY,
// replay.go), it makes the goroutines the schedule names, matched by
// creation, wait at gates until the schedule says it is their turn, and
// the run is recorded as any other, so that its own happens-before can
// confirm the witness's bug.
//
// # Conversion
//
// convert.go merges the goroutines' records by sequence number into one
// event list and symbolises program counters (inlined frames included).
// A map's update (an assignment, a delete or a clear, mapUpdateFunc)
// becomes a read of the map and then its write: the race runtime sees a
// map as its header alone, and the read keeps a map's updates in their
// order in any schedule that keeps each read's writer, as an iteration
// after them depends on all of them (classify.go).
// It runs while the test runs: the reader (spool.go) passes a sequence
// number on only once every record numbered below it is committed, which
// the recorder's busy marks let it tell (recorder.c, "Reading while
// recording"); an atomic that took effect but whose record the test
// process never committed (it ended while the thread was descheduled
// there) is read from the words its pending mark says are written, so
// that no value read is left without the store that wrote it. With tens
// of thousands of goroutines each holding an unfinished chunk, the reader
// reads their chunks through copies of the records committed and gives
// the mapping's pages back every few chunks it looks at, so that seer does
// not hold the spool's pages of every open chunk (spool_window.go). Until the
// test ends the reader's stages run at the lowest CPU
// priority, on cores the test leaves idle. Decoding and ordering the
// records runs on a goroutine of its own, and the allocation map on
// another (allocs.go), a few batches ahead of the conversion, which sees
// the records in the same order as a single walk would give them after
// the run (TestLiveConversion holds the two to the same bytes); the lookups the conversion
// makes for every event (goroutine, stack, allocation, global) have memos
// in front of their maps, and the synchronisation objects and latest
// releases at heap lives' first words are kept by life (sync_lives.go).
// After the run, when the test no longer competes for the cores, a
// goroutine faults the event table's pages (and the side log's blocks,
// local_side.go) in ahead of the conversion and
// a grown table is copied on two cores (prefault.go), and so is
// local.go's question of every event asked (local_parallel.go), with the
// objects the kept events name counted alongside (local_objects.go); the
// shared lives' spans and words' owners are found on two cores too
// (local_shared.go), and a large table's kept events are moved by the
// answers' bits (local_compact.go). A
// goroutine's stack is its function entries (the shadow stack) plus, for
// synchronisation and atomics, the frame-pointer chain that the recorder's
// trampolines capture, since package sync and the runtime have no entries.
// Heap memory is renamed by allocation lifetime, so memory the allocator
// reuses is never mistaken for shared (HeapLife tells an address's life,
// life.go: a buffered channel's slots share one). classify.go turns acquire and release
// on addresses back into Go operations (Mutex, RWMutex, channels, WaitGroup,
// Cond, Once, atomics) from the call stack at which they were made, so that
// the analyses reason about locks as locks; an annotation that matches no
// construct keeps a generic op and no happens-before edge is ever lost.
// atomic.go marks calls of //seer:atomic functions as transactions.
// runtimegs.go orders finalizers and cleanups as the race detector does
// (acquire everything done so far) and attributes them and the functions
// timers start to the test that caused them.
//
// Last, local.go leaves out the plain accesses to memory that no other
// goroutine touched (at trace addresses, so per allocation life), but for
// each goroutine's last event and last event in user code: no sound
// relation orders or reports anything through them, and on real test
// suites they are most of the events (nearly all of Go's race suite's:
// bench/RESULTS.md). So are the accesses of a heap life that go statements
// hand over, each goroutine that takes it over started after the last
// event of the one before on it (local_handoff.go): go statements and
// program order order them all. Heap objects are made only for the lives the trace keeps.
// While converting without the side log (a conversion that keeps replay
// positions), settle.go leaves out the local accesses of the lives the
// allocator has ended (handed their memory out again), so that the event
// table holds what the trace will keep plus the lives still running, not
// every event of the run; the trace is the same. Otherwise the accesses of
// a life one goroutine owns so far do not even enter the table:
// local_side.go holds them in a compact log, in trace order, and at the
// end puts into the table only those compactLocal keeps (their life became
// shared, or a goroutine's last events), where they were made; the
// conversion does not settle while the log runs (the log holds what settle
// would leave out, but for the lives it declines), and the log is
// compacted as lives end instead. The trace is the same. Where the log
// holds under an eighth of the events converted (judged at sideJudgeFirst
// events, then each time they double), local_side_stop.go puts all of it
// into the table there and the conversion goes on with the table alone,
// and still does not settle: settle could leave out only what the log
// would have held, under that eighth.
// local_lives.go keeps the owners of the words of the lives that several
// goroutines touched in one dense array, life by life, rather than in
// local.go's hash table of words (the same answers).
// locations.go groups a trace's accesses into locations (GroupAccesses)
// and keeps the last writer of their bytes (WriterMap), for predict and
// the witness checker alike; locations_lives.go keeps the bytes of small
// heap lives in one dense array, life by life, rather than in its hash
// table of addresses (the same locations).
// record.RecordOptions.KeepLocal keeps every event; record.RecordResult.Events and
// Trace.Local count the left-out ones. The table keeps its array, whose
// emptied tail is given back to the kernel (shrinkEvents): a copy would
// hold the events twice, and that moment would be the run's peak.
//
// park.go parks what an analysis will not read for a while (Trace.Park:
// the events past a prefix; Trace.ParkValues: the values), their whole
// pages written to an unlinked temporary file, by direct I/O where the
// file system has it (park_linux.go), and given back to the kernel, and
// read back in place by Parked.Restore (discard_linux.go gives the pages
// back). memlimit.go's SetMemoryLimit sets seer's Go memory limit plus the
// room past a compacted table's events given back (shrinkEvents), which
// the runtime counts as heap; its SetSpoolRoom sets the room left outside
// that limit for the spool's pages, past which the conversion reads the
// goroutines' open chunks through copies (spool_window.go).
//
// Every goroutine is attributed to the test whose testing.tRunner frame
// its stack shows, or to its creator's test; the testing harness's own
// goroutines belong to no test.
//
// # Files
//
// format.go, writer.go and reader.go define the versioned binary trace
// file (a few bytes per event on real traces: bench/RESULTS.md); a truncated or damaged
// file reads back as every complete event before the damage, with
// Trace.Truncated set; a recording that stopped at seer's event cap (or
// its spool filled) while the run went on is a whole file of the run's
// first events, with Header.Capped set. A file is read twice, first to count its events,
// so that they are decoded into one table of their number. Object names
// are kept apart from the objects (Trace.Names), so that the table of
// millions of objects holds no pointer for the collector to scan. std.go reads and writes RAPID's STD text format.
// dump.go prints a trace one event per line (seer trace dump).
package trace
