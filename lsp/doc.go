// Package lsp is seer's language server: `seer serve` speaks the Language
// Server Protocol over standard input and output, and puts seer's
// predicted concurrency bugs (data races, atomicity violations,
// deadlocks, leaks and misuses of channels, WaitGroups and mutexes) where
// Go programmers read code.
//
// # What the editor shows
//
// A code lens above each test function ("seer: predict", and "seer:
// explore" beside it) and on the package clause of each _test.go file
// ("seer: predict all tests") runs the seer.predict command. The server records the test under seer's
// race runtime and analyses the recording with check.Run, in the
// background, reporting progress (building, running, reading the trace,
// analysing N events) as a cancellable work-done progress, or with messages when the
// client has none. When it ends, each finding becomes one warning
// diagnostic at each of its accesses, with source "seer", the finding's
// kind as its code ("race", "atomicity", "deadlock", ...: every kind
// docs/findings.md lists) and a link to its documentation. The first access carries
// the finding; the others say "(see details)". Each message names the
// variable, the other access and the goroutines, and says whether the
// run showed the bug (observed) or seer predicted it; related
// information points to the other access, to where the goroutines were
// created and to each critical section whose order the witness changes,
// with the sentence that `seer check` prints for it ("in the recorded run
// goroutine 9's critical section on a.mu at bank.go:22 ran before
// goroutine 10's at :32; the witness runs goroutine 10's first, and
// nothing else orders them", check.Reorderings), which clients without
// related information get in the message.
// Hover on an access tells that happens-before story in full, with the
// first steps of the witness schedule. Hover on an access that another
// goroutine's access conflicts with, and that has no finding, answers
// "why no race here?" with the rules that order the two in every
// schedule (check.Ordered; never a diagnostic). Quick fixes jump to the other
// access, open the whole witness schedule (a read-only text file, one
// column per goroutine), or re-run the prediction. A test that does not
// build gets error diagnostics at its compiler errors instead.
//
// Recording happens only when the user asks, through a lens or a quick
// fix, or on save when the "seer.runOnSave" setting is on, and only for
// files inside a workspace folder once symbolic links are resolved (a
// link out of the workspace does not count). Without a folder (no
// rootUri, rootPath or workspaceFolders) the server records and analyses
// nothing, and says so once.
//
// # Commands
//
//	seer.predict {uri, test?, explore?}
//	                                record and analyse test (all tests of
//	                                uri's package without one); answers
//	                                {findings, predicted, tests, cancelled?,
//	                                error?} when the prediction ends;
//	                                explore (the "seer: explore" lens) adds
//	                                check.Options.Explore steered runs (the
//	                                "explore" setting, 20 when 0), reports
//	                                "run i of N: k findings so far", and a
//	                                cancel once they began keeps what the
//	                                finished runs found (cancelled: true)
//	seer.showOtherAccess {finding, access}
//	seer.showWitness {finding, access}
//	                                open the other access, or the witness
//	                                document, with window/showDocument when
//	                                the client supports it (else a message);
//	                                both answer {uri, range?} so that an
//	                                editor plugin can open it itself
//	seer.showWitness {finding, access, html: true}
//	                                the witness as a picture instead
//	                                (report.WitnessHTML), written to an
//	                                .html file and not shown: answers
//	                                {uri, html} for a webview or a browser
//
// Finding ids are the server's and change when a test is re-run.
//
// # Layers
//
// As in gopls, handlers are thin and the work is in pure functions that
// tests call without a connection:
//
//	stream.go    framing; answers malformed messages instead of dying
//	handler.go   the handler chain: cancellation, ordering, recovery
//	serve.go     Serve and the server's state
//	general.go, text.go, lens.go, command.go, hover.go, action.go,
//	unimplemented.go
//	             protocol methods (every method of protocol.Server)
//	job.go, progress.go, results.go
//	             predictions in the background and what they leave
//	store.go     results, findings and marks (positioned diagnostics)
//	diagnostics.go, witness.go, lines.go, config.go
//	             pure functions: positions, documents, line maps, settings
//
// Every sentence the server shows of a finding (diagnostic messages, the
// hover, the witness document) is package predict/report's.
//
// All position conversion goes through static.Mapper: the line and byte
// column of a recorded access become an LSP range (UTF-16) in the text
// the run recorded, and lineMap carries that range to the text the
// editor shows now.
//
// # Concurrency
//
// jsonrpc2 reads messages one at a time; the handler chain runs each
// request in its own goroutine but starts it only when the previous one
// has answered, so protocol methods see the session in order. A
// prediction can take minutes: seer.predict starts a job, calls releaseQueue
// so that later requests go on, and answers when the job ends (or is
// cancelled by $/cancelRequest). Jobs run check.Run one at a time
// (Options.MaxRuns); a new prediction of the same scope cancels the old
// one. All state is under server.mu; notifications leave, in order, from
// one goroutine, so no one waits on the client while holding the lock.
//
// # Positions that move
//
// A finding is positioned in the content the run recorded, which need not
// be what the editor shows: the user may have unsaved edits when the run
// starts, or edit while it runs, or after. The server snapshots the
// package's files when a run starts and maps recorded lines to current
// ones by comparing the two versions line by line from both ends
// (lineMap): lines outside the changed region move by the change in line
// count, and diagnostics on changed lines are dropped rather than
// guessed. Each didChange edit moves the stored diagnostics the same way,
// and so does closing a buffer without saving, and so does a change on
// disk to a file that is not open, which clients that support dynamic
// registration report through didChangeWatchedFiles (watch.go); a deleted
// file loses its diagnostics. Re-running a test replaces
// that test's diagnostics; a file left with none is sent [] (not null).
//
// # Protocol defects
//
// go.lsp.dev/protocol v0.12.0 with go.lsp.dev/jsonrpc2 v0.10.0 has
// defects that the server works around:
//   - protocol.CancelHandler ignores numeric $/cancelRequest ids (it
//     expects int32 and gets float64): the handler chain handles
//     $/cancelRequest itself.
//   - jsonrpc2.Conn closes the connection when a handler returns an
//     error, and panics when it then records an error of another type:
//     the handler chain logs errors and returns none.
//   - jsonrpc2's stream fails, and the connection closes, on any message
//     that is not valid JSON-RPC: stream.go answers a parse error and
//     reads on. It also answers a request whose method name is empty,
//     which jsonrpc2 takes for a response and drops.
//   - There is no UnimplementedServer: every method is implemented.
//   - protocol.ServerHandler answers params that do not decode with an
//     error that has lost its code (0, where InvalidParams is due):
//     handler.go gives such answers the code InvalidParams.
//   - protocol.ServerHandler answers a parse error, not "method not
//     found", for an unknown method without params, and rejects shutdown
//     and exit with "params": null: handler.go answers those itself.
//   - TextDocumentContentChangeEvent.Range is not a pointer, so a
//     whole-document change cannot be told from an insertion at 0:0:
//     didChange is decoded by the server.
//   - A nil slice is sent as null: diagnostics, lenses and actions are
//     always non-nil slices.
//   - window/showDocument is not on protocol.Client, and conn.Call never
//     returns once the connection is gone: the server calls conn.Call
//     itself, with contexts that end with the connection, and only when
//     the client announced support.
//   - ProgressToken marshals only through a pointer: progress params are
//     always sent as pointers.
//
// # Configuration
//
// The server asks for the "seer" section of each workspace folder
// (workspace/configuration) after initialize and whenever
// didChangeConfiguration arrives; clients without that request can send
// the section in initializationOptions or in didChangeConfiguration's
// settings. See Config.
package lsp
