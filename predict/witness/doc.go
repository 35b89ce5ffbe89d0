// Package witness is seer's independent witness checker: it decides
// whether a schedule that an analysis claims (a Schedule: a prefix of the
// observed run, less some goroutines' suffixes, then a witness sequence)
// is feasible for the program that recorded a trace, and whether it shows
// the property claimed (a data race, an atomicity violation, a
// lock-order deadlock, goroutines all blocked on locks, unbuffered
// channels, buffered ones (full or empty: the ring model of bufchan.go,
// BufChans, which predict judges by too), WaitGroups and Conds (blocking.go; a read lock behind a
// waiting writer: rwmutex.go), goroutines the run left blocked, a send left
// without its only receiver by a select's other case (leak.go), a
// send, receive or select whose partner another goroutine took, left
// waiting while its test returns (leak_selectstuck.go, Kind StuckLeak), a
// misuse that panics (misuse.go), or a read that sees a store of nil,
// its critical section moved after the store's: a nil dereference or an
// index out of range (nilderef.go)). A rendezvous on an unbuffered
// channel may pair a receive with another send than in the run when the
// caller says the receive's value decides nothing (partner.go,
// Checker.ValueFree); a goroutine may be claimed blocked in a select when
// the caller lists the select's other cases with the places of their
// partners (select.go, Checker.SelectCases).
//
// Feasibility is that of Şerbănuţă, Chen and Roşu, "Maximal Causal
// Models for Sequentially Consistent Systems" (RV 2012), Theorem 2: a
// schedule is feasible iff it is a consistent extended interleaving
// prefix of the observed trace. Every goroutine runs a prefix of its
// observed events; each read sees, byte by byte, the writer it saw in the
// run (except a goroutine's last event, whose value may differ, and the
// reads the caller relaxes, see Checker.Relax); locks are exclusive
// (shared mode excepted); every other synchronisation acquires what it
// acquired in the run; a goroutine starts after its go statement and a
// join comes after the joined goroutine's events.
//
// The package imports the trace model and nothing of seer's analyses
// (predict's vector clocks, causality graphs, SAT encoding, layers):
// `go list -deps` shows it, and a test keeps it so. What it trusts from
// an analysis is only the set of relaxed reads, the receives whose value
// is free and the other cases of selects. The location grouping it
// uses is trace.GroupAccesses, a function of the trace alone.
//
// A checker is built once per trace (NewChecker, index.go: one replay of
// the run into per-goroutine, per-location and per-lock indices); each
// Check then costs what the schedule leaves out of the run and its
// witness, not the length of the trace (check.go, prefix.go).
package witness
