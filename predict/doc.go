// Package predict finds the concurrency bugs that other schedules of a
// recorded run would show (data races, atomicity violations, deadlocks,
// goroutine leaks, and misuse of channels, WaitGroups and mutexes) and
// proves each one with a witness schedule that an independent checker
// (package witness) re-checks.
//
// This file implements nothing; it explains the design.
//
// # Entry points
//
//   - Analyze(ctx, t, opts) runs the whole analysis of one trace and
//     returns a Result: the Findings, each with its witness (Finding's
//     Prefix, Stops and Witness; Finding.Schedule expands them), and the
//     Stats, a funnel row per layer in the order the layers run
//     (Stats.Print writes the table seer predict -stats shows). Options
//     select the analysis, the kinds and the limits; Options.WhileWhole
//     runs the caller's own walk of the whole trace beside the first
//     passes (analyze_whole.go).
//   - EventsWithin(t, PrePassShare(mem)) is how many of t's events the
//     analysis's first phase holds within mem bytes, by what its events
//     cost (prepass_cap.go): seer predict's cap under -maxmem.
//   - CheckWitness(t, f, opts) re-checks one finding's witness with the
//     independent checker, as Analyze does before it reports anything;
//     CheckWitnesses(t, fs, opts) checks several against one checker.
//   - ObservedBlocked(t, hung) returns the goroutines the recorded run
//     itself left blocked (leaks, or the observed deadlock of a run that
//     hung), ObservedBlockedContext the same until ctx is done;
//     BlockedIn(t, i) names the call a goroutine blocks in.
//   - Why(ctx, t, pairs, opts) answers, for conflicting accesses that are
//     not reported, the rule that orders them in every schedule
//     (Ordering, OrderEdge, OrderRule).
//   - HappensBefore(t, a, b) asks the run's own happens-before, locks
//     included: what confirms a replayed witness.
//
// # Finding kinds
//
// Finding.Kind is one of:
//
//   - KindRace ("race"): two conflicting accesses of different goroutines
//     that a schedule runs back to back (race_shb.go, race_syncp.go,
//     race_reversal.go, then race_ucg.go and the solver, solve_*.go);
//   - KindAtomicity ("atomicity"): an unserializable three-access pattern
//     of a transaction and a remote access (candidates.go, the UCG and
//     the solver);
//   - KindDeadlock ("deadlock"): a lock-order deadlock
//     (deadlock_lockorder.go), a channel or Cond deadlock
//     (deadlock_channel.go), a WaitGroup or RWMutex one
//     (deadlock_waitgroup.go, deadlock_rwmutex.go), a taken channel
//     partner (deadlock_partner.go), its victim waiting in a select that
//     can never proceed (deadlock_select.go), or the observed deadlock of a run
//     that hung (leak_observed.go);
//   - KindLeak ("leak"): a goroutine the run left blocked when its test
//     returned (leak_observed.go), or that another schedule leaves blocked
//     on a send after a select's other case (leak_select.go), or on a
//     send or receive whose partner another goroutine took, or in a
//     select that can never proceed, while its test returns
//     (leak_selectstuck.go);
//   - KindSendOnClosed, KindCloseOfClosed, KindNegativeWaitGroup,
//     KindWaitGroupReuse and KindUnlockOfUnlocked: an operation that
//     panics or throws in the real program (misuse.go);
//   - KindNilDeref ("nil-dereference"): a read of a pointer or interface
//     that another order of critical sections lets see another
//     goroutine's store of nil, and whose goroutine then dereferences it
//     (nilderef.go; given Options.NilStore and NilUse, the static half);
//     KindIndexOutOfRange ("index-out-of-range") the same with a slice
//     set to nil and then indexed, KindNilMapWrite ("nil-map-write") with
//     a map set to nil and then assigned an entry.
//
// # Files
//
// Files are named by the layer they belong to: ctp*.go, memory.go and
// relevance.go build the concurrent trace program and the pre-passes;
// clock_*.go the vector clocks, their passes and the record of their
// rises; candidates.go the candidates and the cheap filters; race_*.go
// the race layers; solve_*.go the witness's shape and its search;
// deadlock_*.go, leak_*.go, misuse*.go and nilderef.go the layers after
// the races, section_move.go the schedule that moves a goroutine's
// critical section after another's, which the last two share;
// cut.go the lock rule those layers close their cuts under, and key.go
// the key they deduplicate by; cone_readfrom.go the read-from filter that
// drops race and waitgroup-reuse candidates the cone would refuse,
// before the cone is made, and cone_lockread.go the one that drops race
// candidates a lock and a read's observed writer order; why.go the answer to "why no race";
// analyze.go the pipeline that runs them, and api.go its types.
//
// # Background
//
// A recorded run is one interleaving. A race detector such as
// ThreadSanitizer reports the races that this interleaving shows, ordering
// everything by the run's own happens-before: a mutex released by one
// goroutine and taken by another orders all that came before the release,
// even when the two critical sections touched unrelated data and could as
// well have run the other way round. Predictive analysis asks instead which
// bugs some other schedule of the same program, forced by nothing but the
// run's own observations, would show.
//
// "Forced by nothing but observations" is made exact by the maximal causal
// model (Şerbănuţă, Chen and Roşu, "Maximal Causal Models for Sequentially
// Consistent Systems"): a schedule is feasible for every program that could
// have produced the run iff each goroutine does a prefix of what it did,
// every read sees what it saw (except that a goroutine's last read may see
// something else, after which it is not followed further), and the serial
// specifications of locks and other objects hold (their Theorem 2). seer
// judges reads by their writer, not their value (plain accesses carry no
// values in a recording), keeps every non-lock synchronisation as it was
// observed (a receive takes the same send), and keeps locks as locks.
// Optionally, reads that static analysis proves cannot change control flow
// (Options.ControlIrrelevant) may see any writer, as in RVPredict, once
// that answer is closed over read-from (relevance.go): a read whose value
// reaches a write (Options.Feeds) that a relevant read observed is
// relevant too.
//
// # Layers
//
// A race is proved by the cheapest sound layer that can, each building a
// witness rather than searching for one, and only what none of them
// proves goes on to the UCG and the solver (race_layers.go):
//
//   - schedulable happens-before (Mathur, Kini and Viswanathan, OOPSLA
//     2018): one vector-clock pass, locks in observed order plus read-from,
//     checks each access against the latest access of every other
//     goroutine at every site (FastTrack's epochs, one per site), so that
//     every pair of sites SHB leaves unordered is found with its closest
//     pair. The witness is the pair's SHB-downward closure in observed
//     order, then the pair. These races are observed: the run's own
//     happens-before, which SHB contains, leaves them unordered too.
//     Its pass is skipped on a trace whose every conflicting pair one
//     edge of the fixed synchronisation orders (a channel operation, an
//     atomic, go, join: race_handoff.go; the store of those edges per
//     pair of goroutines, race_handoff_hops.go; the accesses it reads,
//     race_handoff_accesses.go; the probe of the trace's first events
//     that answers no early, race_handoff_probe.go), where it could find
//     nothing;
//   - sync-preserving races (Mathur, Pavlogiannis and Viswanathan, POPL
//     2021): the causal cone closed under "of two acquires of a lock in
//     the set, the earlier one's release is too"; the witness keeps the
//     observed order of synchronisation and drops what the pair does not
//     need;
//   - synchronisation-reversal races (Shi, Mathur and Pavlogiannis, PLDI
//     2024, OSR): the optimistic lock closure, where a section held at the
//     race stays open and the others of its lock close, scheduled so that
//     the open one runs last;
//   - the UCG and the solver (below) for the rest, with the sampled
//     representatives of each pair of sites.
//
// Each layer works on every pair of sites the earlier ones left, so a
// pair of sites that a simpler sound relation proves is never lost to
// sampling: the differential test (race_layers_test.go) checks on thousands of
// random traces that seer's pairs of sites contain SHB's and those of a
// brute-force sync-preserving closure, and the oracle test measures what
// share of all predictable races seer finds on small traces. The SHB and
// HB those compare against share the passes' clock code, so a naive oracle
// that shares none of it (naive_oracle_test.go: dense vector clocks from
// the definitions) checks the passes' orderings, the baselines' races and
// the SHB layer's counts (naive_diff_test.go).
//
// # The pipeline
//
// Analyze follows the Universal Causality Graph paper (Kahlon and Wang),
// whose Table 1 funnel it also reports (Stats):
//
//  1. The concurrent trace program (ctp.go, UCG §2, Definition 1): each
//     goroutine's events as a straight-line program; fixed orderings are
//     program order, go → start, join, and every synchronisation that is
//     not a lock, with ThreadSanitizer's meaning (an acquire is ordered
//     after the latest release on its address and every release-merge
//     since; atomics by read-from over their exact per-address order,
//     where a plain write over an atomic variable ends the chain: the
//     atomic load after it reads the plain write's value and acquires no
//     earlier release, so the run's own happens-before, as seer computes
//     it, leaves such a load unordered with the atomics before the write).
//     Locks stay locks: critical sections may be reordered. A mutex used
//     in a way no critical section explains (unlocked by another goroutine)
//     is kept in observed order instead, which is sound.
//
//  2. Pre-passes (trace.GroupAccesses, memory.go, relevance.go, clock_pass.go, clock_vc.go,
//     clock_layer.go, clock_arena.go, clock_rises.go, history_cut.go): accesses are grouped into locations (an
//     open-addressing table: real runs touch millions of addresses; the
//     grouping and the read-from need the events alone, so they run on a
//     second goroutine while the CTP is built);
//     locations touched by one goroutine or never written are dropped; the
//     last writer of each byte is kept per page, so that a multi-megabyte
//     copy costs one step per page. Control relevance is closed over
//     read-from. One replay computes vector clocks for must-happen-before; a
//     second adds the read-from of every read whose writer a witness keeps
//     (the "causal cone", which is schedulable happens-before with locks
//     left out). The second runs only once a candidate survives the filters
//     of step 3: most runs have none, and it costs more than the first
//     (every read of a shared location joins its writer's clock). The
//     replays use persistent sparse clocks, a shared base and a small delta
//     (a long delta that a stored clock shares is kept as a middle layer
//     rather than copied when the goroutine's clock next grows);
//     a join is skipped when the receiver already knows the event
//     (FastTrack's epochs), and release-merges are joined lazily, one per
//     goroutine. What is kept is each clock's history as the rises of its
//     components, so that memory follows what changed: thousands of
//     goroutines cost little unless they all talk to all (then every exact
//     history is Θ(events × goroutines) and this is what it costs). Bases
//     are made in an arena that the replay sweeps between events: it knows
//     every place it holds a clock, and a base no longer held gives its
//     storage to the next. When they do all talk to all, a goroutine whose
//     clock holds a quarter of all goroutines keeps a dense mirror of it
//     (Mattern's clock beside the persistent one, clock_mirror.go), so that a join
//     reads its source once instead of merging two unrelated bases (a base
//     made from a mirror over half of whose goroutines are non-zero is
//     kept as its copy, an int32 a goroutine, clock_base_dense.go); a base
//     is tagged with the goroutine and position that made it, and a clock
//     that knows the next event of that goroutine holds it (the epoch rule
//     again). The must-happen-before pass also asks whether every read
//     the cone keeps already knows its writer: then the cone's clocks are
//     its own and the second replay is not run. The cone's closures
//     (solve_plan.go) read a goroutine's whole clock once, and for the
//     release-acquire events they reach only what rose at them, which the
//     pass keeps. An acquire of a clock that a goroutine stored when
//     nothing had risen yet at its event joins only what rose in that
//     goroutine's log since the receiver last heard of it, passing over
//     the rises that came from a releaser the receiver already knows
//     (clock_journal.go: the idea of tree clocks, Mathur, Pavlogiannis,
//     Tunç and Viswanathan, ASPLOS 2022, taken from the history the pass
//     logs; a receiver whose tries keep failing skips a few,
//     clock_journal_backoff.go), and a pass drops an address's clock after the address's
//     last event and a goroutine's after its last (clock_drop.go); the
//     SHB passes fold an address's pending release-merges once many
//     goroutines' are pending (clock_fold.go), and spill idle addresses'
//     clocks and old read-from snapshots past Options.SHBBudget
//     (clock_spill.go, clock_spill_snap.go). On a trace of a quarter of
//     a million events or more, must-happen-before's history is made in
//     a temporary file mapped into memory, whose pages go back to the
//     kernel as it is made and when the cone is built, a reader faulting
//     back what it reads (clock_rises_file.go), and so is the pass's log
//     of rises the history is indexed from (clock_rises_log_file.go),
//     outside the heap the Go memory limit counts; when the history's budget
//     cuts the trace, the events after the cut wait in a file while the
//     prefix is analysed (analyzePrefix, trace.Trace.Park, written on a
//     goroutine beside the prefix's analysis, history_cut_park.go), the history
//     being indexed on a second goroutine beside the prefix's pre-passes,
//     which read none of it (history_cut.go; beside what is left of the
//     SHB pass first, when that runs beside the must-happen-before pass,
//     analyze_beside.go), and a large
//     trace's values wait in one while the whole trace's SHB and
//     must-happen-before passes run, which read none (analyze_values.go,
//     trace.Trace.ParkValues). The must-happen-before and
//     SHB passes and the causal cone's count events per chain of
//     goroutines, not per goroutine (clock_chain.go): a goroutine that
//     starts knowing all an ended one published continues its component,
//     and riseLog's get, each and cursor translate a chain's count back
//     to goroutines (the cone's closures read through them:
//     clock_chain_cone.go). The
//     passes and the other long loops ask the context every 256 steps
//     (stop.go), so that a signal stops seer at once.
//
//  3. Candidates (candidates.go, UCG §3.1): races are conflicting pairs
//     (different goroutines, overlapping bytes, a write, not both atomic;
//     a plain access against an atomic one counts); atomicity violations
//     are the five unserializable three-access patterns between two
//     consecutive accesses to a location inside one transaction (begin ..
//     end, or optionally a critical section) and a remote access. Pairs
//     are counted per class of accesses through the lockset filter and the
//     must-happen-before filter by two-pointer sweeps, so that a hot
//     location does not mean a quadratic enumeration. A few representative
//     event pairs (triples) per pair (triple) of source sites go on.
//
//  4. The witness's shape (solve_plan.go): the events a witness cannot do
//     without are the causal cone of the bug events (soundness of
//     predictive analyses, §5.1, Definition 10). If the cone of one bug
//     event holds the other, the candidate is dead. Goroutines that may
//     run on are extended to release the locks they hold. The last
//     causality barrier (UCG §4) is a lock-free point per goroutine with no
//     cone edge from one goroutine's suffix into another's prefix; found
//     with the cone clocks, it generalises the paper's two-goroutine
//     Algorithm 2 to any number.
//
//  5. Universal Causality Graphs (race_ucg.go, UCG §3, Algorithm 1) on the
//     suffixes after the barrier (Theorem 4), sixty-four candidates to a
//     graph with one label bit each (§3.5), causality chains through any
//     number of goroutines (§3.4). A cycle on a candidate's edges rules it
//     out. A property test checks that chopping never changes a verdict
//     and that sharing a graph gives each candidate its own verdict.
//
//  6. Witnesses (solve_encode.go, solve_gini.go): the window after the barrier is
//     encoded for gini (github.com/go-air/gini): fixed orderings are edges,
//     choices are pair literals (lock mutual exclusion; read-from
//     preservation for every read before a bug event in its goroutine).
//     Transitivity is lazy: solve, take one true literal per clause, look
//     for a cycle, forbid it, repeat. An acyclic choice sorted
//     topologically (observed order breaking ties) after the prefix, and
//     followed by the bug events, is the witness schedule. A finding keeps
//     the prefix as a description (Finding.Prefix and Stops: the observed
//     run up to an index, each goroutine up to its barrier) and lists only
//     the window and the bug events (Witness); Finding.Schedule expands it.
//
//  7. The checker (package witness, which imports trace and nothing of
//     this package: go list -deps shows it) re-checks each witness
//     against the serial specifications with code of its own; what it
//     takes from the analysis is only the set of relaxed reads. The observed run is consistent, so the prefix is checked
//     through the events it leaves out and what depends on them, and the
//     window is replayed from the state after the prefix: the cost per
//     finding follows the witness, not the trace. A rejected witness is a
//     bug in seer: Analyze returns an error rather than a report.
//
// # Deadlocks
//
// Lock-order deadlocks (deadlock_lockorder.go) reuse both passes' clocks: the
// cycles of the lock-order graph (a goroutine holds l while acquiring m;
// write-write and read-write conflicts only), less those a common gate
// lock guards and those whose acquires must-happen-before orders, are
// proved as Tunç, Mathur, Pavlogiannis and Viswanathan's sync-preserving
// deadlocks (PLDI 2023): the closure of the events before the blocked
// acquires, under the causal cone and the lock closure of the
// sync-preserving layer, run in observed order, stops every goroutine of
// the cycle holding its lock and about to take the next one's. The
// checker's Kind Deadlock re-checks it, with no goroutine of the cycle
// allowed to read another writer last (its next event must be the
// observed acquire).
//
// SPDOffline (deadlock_spd.go, the same paper's §5) runs after it and
// proves the lock-order deadlocks its budgets leave (cycles through more
// than maxCycle locks, instances after the first MaxTries of a class): a
// node per abstract acquire (goroutine, lock, mode, site, held locks and
// their sites), its cycles as abstract patterns, and per pattern one
// monotone sweep whose sync-preserving closure grows incrementally, so
// each pattern costs time linear in the trace; its funnel row is
// "deadlock-spd".
//
// Channel deadlocks (deadlock_channel.go) are the same closure with one acquire
// replaced by an operation on an unbuffered channel that its goroutine
// begins while holding a lock, whose rendezvous partner took that lock
// before its own operation in the run (or took another lock that a
// third goroutine holds while it takes the first). The cut is then
// extended, every other goroutine as far as the closure allows, and the
// finding is made only if at its end every goroutine of the run has
// ended, does not yet exist, is the harness's or the runtime's and never
// touches what is waited on, or waits at its next event under the serial
// specifications (a lock held in a conflicting mode; an unbuffered
// channel, not closed, whose partner operation is nobody's next event;
// a buffered one full for a send, empty for a receive, by the checker's
// ring model, witness.BufChans).
// Within the maximal
// causal model that state has no way out: the test never returns. The
// checker re-checks it as a blocking claim (witness/blocking.go). The
// same claim covers a Cond.Wait whose waking Signal another schedule runs
// before the Wait's critical section (a Wait not in a loop over its
// condition): the waiter then registers after its only wake-up. Two more
// shapes make the same claim: a WaitGroup.Wait made under a lock that
// the goroutine of one of its Dones takes first (deadlock_waitgroup.go),
// and a recursive RLock with another goroutine's Lock of the same
// RWMutex in between (deadlock_rwmutex.go): RWMutex prefers writers, so
// the waiting writer blocks the inner RLock, which the checker's
// RWMutex rule (witness/rwmutex.go) re-checks. A recursive RLock is no
// section of its own: the outer read section spans it
// (ctp_sections.go). And a taken partner (deadlock_partner.go): on an
// unbuffered channel with several senders or receivers, another
// goroutine's operation takes the partner a goroutine had in the run,
// the one re-paired rendezvous of the witness (witness/partner.go),
// allowed only for a receive whose value static analysis proves decides
// nothing (Options.RecvValueFree; the checker trusts it through
// Checker.ValueFree, as it trusts relaxed reads). The goroutine left
// waiting may be in a select (deadlock_select.go) when static analysis
// lists the select's other cases with every place that could complete
// them (Options.SelectCases; the checker trusts it through
// Checker.SelectCases) and none of those places can run.
//
// Observed blocking (leak_observed.go): goroutines of a test that the run never
// saw end, reported as leaks (or, when the run hung, as an observed
// deadlock) at the blocking call when their last event shows it. The
// trace holds no event of an operation that never completed, so
// prediction of leaks (a goroutine left blocked while the test returns,
// in another schedule) needs more than the run shows for receives and
// selects: what a goroutine does after a case it did not take is not in
// the trace. One shape is predicted (leak_select.go), with a static half:
// an unbuffered send whose value a select received in the run, and a
// schedule (the closure of the events before the send and before the
// select) after which the select's other case, a time.After timer or a
// default, is ready and the sender has not begun its send; package
// static (through Options.SelectLeak) proves that the select is the
// channel's only receive, so that the sender then waits for ever. The
// checker's Kind SelectLeak re-checks the trace's half. A second shape
// (leak_selectstuck.go) is the taken partner's schedule whose victim,
// not the test's own goroutine, waits on a plain send or receive
// (deadlock_partner.go) or in a select that can never proceed
// (deadlock_select.go) while
// the test's own goroutine has ended or returned (every event of it with
// a frame of the user's code is in the schedule): a leak, not a
// deadlock, since the test returns; the checker's Kind StuckLeak
// re-checks it as a blocking claim in which the returned test goroutine
// is held to what a harness goroutine is.
//
// # Misuse
//
// The operations that panic or throw in a Go program (misuse.go): a send
// on a closed channel, a second close, a WaitGroup counter taken below
// zero, an Add at zero concurrent with a Wait, an unlock of an unlocked
// mutex. Each is a schedule, built as the deadlock layer builds its cut,
// after which the failing operation is its goroutine's next step and its
// primitive's state (the close in the cut, the counter summed over the
// cut, the lock's operations in it) makes it fail. The checker's misuse
// kinds re-check the state from the primitives' serial specifications.
// No Done of a WaitGroup is tried when every Done can be paired with its
// own unit of an Add that must happen before it (misuse_wgcover.go: the
// Add-before-go idiom), since then no schedule takes the counter below
// zero.
// An observed misuse whose panic the program recovered (its goroutine
// went on to its end, or the run passed) is not reported
// (misuse_recovered.go). A send inside a critical section that the run
// ran before the closer's (a Send under the mutex Close closes under,
// with no check of a closed flag inside the section) gets the schedule
// that moves its section after the closer's (misuse_reorder.go), every
// moved read keeping its writer, as the nil dereference's does
// (section_move.go). A close of a closed channel is predicted only in
// traces that hold both closes: the runtime panics before it records a second one (a run that
// died of it is reported from the panic's stack, by package check).
//
// # Two cores
//
// Analyze runs what does not depend on each other on goroutines of its
// own (analyze.go): the SHB layer's passes beside the must-happen-before
// pass (below a million events; beyond, only when the room under the Go
// memory limit is at least what is live as they start, in the
// analysis's share of the limit when several share it (Options.Sharing),
// analyze_beside.go, and otherwise SHB runs first), the access classes and the lockset
// filter on whichever of the two finishes first below a million events
// and after both beyond (a cut history's prefix, which runs no pass,
// makes them beside its wait for the history's index), and the deadlock,
// blocking, leak and misuse
// layers beside the race layers once must-happen-before is done; the
// witnesses are checked on GOMAXPROCS goroutines. A panic on any of them
// panics again on Analyze's own goroutine (analyze.go's goroutine); a panic
// leaves Analyze only once every goroutine it started has ended and its
// arena is freed (analyze_panic.go). Each part writes only its own
// results, which join in a fixed order, so the report is the same however
// they are scheduled: what they share is read-only once made (sites are
// interned when the CTP is built; the cone is made once, by whichever
// needs it first; scratch is per engine copy, engine.fork).
//
// # A budget for the history
//
// Everything the analysis keeps follows the trace's size but one thing:
// the must-happen-before pass's history, which grows with how many
// components of a clock rise at each event (tens, when thousands of
// goroutines all talk to all through channels). Options.HistoryBudget
// bounds its log (seer check and seer predict give it a tenth of
// -maxmem). A pass that outgrows it stops at event n, and Analyze goes on
// with the trace's first n events (trace.Trace.Prefix), itself a run of
// the program: the stopped pass's clocks are the prefix's (its CTP keeps
// the whole trace's observed locks in observed order), and every layer
// after SHB runs on the prefix. The SHB layer keeps no history and has
// already run on the whole trace: its findings are reported as they are,
// and the prefix's layers skip their pairs of sites, so that the report
// never holds less than SHB proves of the whole trace. Stats.HistoryCut
// says where the cut fell, and seer check puts a note on that test.
//
// The SHB layer's own memory does not follow the trace's size either, but
// what is in use at once: a clock per synchronisation address (a buffered
// channel's slots, each a clock of every goroutine when all talk to all),
// which share bases where a goroutine released several of them between
// two flattenings (clock_vc.go's flattens), and its table of each location's
// latest accesses, kept in pools without pointers, so that the collector,
// which runs often when the heap nears its limit, does not scan them
// (race_shb_table.go). When tens of thousands of goroutines all talk to
// all, clock bases of that many entries are most of the peak, and most
// are held by idle channels alone: Options.SHBBudget (zero, no bound,
// in seer check and seer predict for now: spilling as it stands costs
// more than it saves, bench/RESULTS.md) bounds the bases and the
// addresses' clocks the SHB passes hold; past it, the clocks of the
// addresses idle longest go to a temporary file and are read back, with
// the same components, at their address's next use (clock_spill.go), as
// do the deltas of the read-from snapshots written longest ago, on their
// bases (clock_spill_snap.go), so that the layer proves the same races
// under any budget (TestSpillSameSHB; the differential test runs it
// under one byte). Without a budget, an address's pending release-merges
// (a WaitGroup that tens of thousands of goroutines call Done on) are
// folded into its clock once 64 goroutines' are pending, rather than
// held until the next acquire, and a merge that no acquire reads is not
// kept at all (clock_fold.go, TestFoldPendingSameSHB).
//
// Nor does the SHB layer's time per access follow the number of
// goroutines that ever touched the location: the groups of goroutines
// done with it that an access knows move into a batch guarded by that
// access, which a later access passes over when it knows the guard, and
// those it does not know into a bag of groups that touch the same words
// the same ways, which a later access passes over when it cannot conflict
// with them (race_shb_fold.go; TestSHBBatchesLikeFlat checks it against
// the check of every group on pools of thousands of goroutines). At a
// location crowded with long-lived goroutines that will touch it again
// (a pool's workers), their open groups wait in bags by masks too,
// guarded like batches (race_shb_open.go).
//
// # Soundness first
//
// Every filter before the solver only removes candidates that no witness
// can show: the lockset filter (two critical sections of one lock cannot
// be open together), must-happen-before (fixed orderings hold in every
// witness), the cone (a kept read needs its writer), and the UCG (every
// edge, seed or induced, holds in every witness; a goroutine that may grow
// is never assumed to keep a section open). The solver then looks for a
// schedule in a restricted space (the prefix in observed order, sections
// closed when possible), which can miss bugs but not invent them, and the
// checker guards the rest. An exhaustive explorer written from the
// definitions (oracle_test.go) checks on thousands of random traces that
// every finding is real, and logs how many of the real ones seer finds.
//
// # Why no race
//
// Why (why.go) answers the converse question for a pair of conflicting
// accesses that is not reported: the rule that orders them in every
// schedule of the model above, a lock both hold or the shortest chain of
// must-happen-before edges (program order, go, join, non-lock
// synchronisation, and the read-from of reads their goroutine goes on
// after, and, when that is not enough, the sync-preserving lock rule one
// level deep), with as few edges between goroutines as there are. It
// claims nothing it cannot show: a pair that only the solver rules out
// gets no reason, and the exhaustive oracle checks on random traces that
// no pair with a reason races.
//
// # Baselines
//
// Options.Analysis selects "hb" (ThreadSanitizer's happens-before, locks
// in observed order) or "shb" (Mathur, Kini and Viswanathan's schedulable
// happens-before, which adds read-from) instead; they report every pair
// their relation leaves unordered, without witnesses, to compare against.
// HB is sound only for the first race of a run; SHB for all. Both check
// each access during one pass against the SHB layer's table of latest
// accesses (race_shb_table.go) and keep no clock history, so that they
// stay within the memory the SHB layer needs; the tests' reference for
// them and for the SHB layer is the way they were computed before, a
// sweep of pairs of access classes over the pass's whole history
// (race_baseline_test.go). The shb baseline and the SHB layer keep
// read-modify-write chains transitive and observed locks in their total
// order (clock_pass.go's serial mode), without which SHB reports pairs no
// witness can show.
//
// # Findings
//
// Findings are deduplicated by source sites (Trace.Site: file, line and
// function): one per pair of sites for races, per triple for atomicity,
// with Count saying how many event pairs (triples) at those sites passed
// the cheap filters. A finding is Predicted when the run did not show it
// as it was: for a race, when its accesses are ordered by the run's own
// happens-before (race_observed.go asks this with one bit per finding instead
// of a third clock pass).
package predict
