// Package static is seer's view of the source code behind a trace. It
// answers questions that the recorded run cannot:
//
//   - Where exactly is an access, and what do people call the memory?
//     A trace frame gives a function and a line; Program.Access gives the
//     expression ("acct.balance" in "acct.balance += n") and a name
//     ("x (captured by the closure at line 17)").
//   - Can the value a read returns change what its goroutine does next?
//     Program.ReadIrrelevant and Program.ReadFlow let the predictor drop
//     the read-from constraints of reads that cannot.
//   - Does a receive's value decide anything? Program.RecvValueFree says
//     when it does not (discarded, or of a zero-sized type), so that a
//     predicted schedule may let the receive take another send.
//   - What could complete a select's other cases? Program.SelectCases
//     lists each case with every place that operates on its channel,
//     when the channel never escapes, whether it is made in the select's
//     function or comes in through a parameter or a capture whose every
//     origin is known (a select that can never proceed).
//   - Which functions are transactions? Program.AtomicFuncs lists those
//     marked //seer:atomic, and Program.DirectiveErrors the directives in
//     the wrong place.
//   - How does a byte offset, a go/token position, a line and column and
//     an LSP position relate? Mapper converts between all of them.
//   - What happens after a schedule the run did not take?
//     Program.SelectLeak proves a select the only receive of its channel
//     (a predicted leak); Program.NilStore that a write stores nil, and
//     Program.NilUse that the value a read returns is dereferenced or
//     indexed at once, unchecked and unrecovered (a predicted nil
//     dereference or index out of range, nilderef.go).
//
// A Program is built by Load from golang.org/x/tools/go/packages (with
// tests) and golang.org/x/tools/go/ssa, once per version of the source; a
// Cache keeps it while the files are unchanged. A Program never changes
// and may be queried from many goroutines.
//
// # Positions
//
// Every conversion between coordinates is in mapper.go; nothing else in
// seer counts bytes, lines or UTF-16 units. There are two vocabularies:
//
//   - Position and Range are the Language Server Protocol's: zero-based
//     line, zero-based character counted in UTF-16 code units. They have
//     the fields of go.lsp.dev/protocol's types, and lsp/ converts them
//     field by field.
//   - Point and Span carry every coordinate at once: byte offset,
//     one-based line and one-based byte column (what go/token, the
//     compiler, trace.Frame and error messages use) and the LSP Position.
//     Sites and diagnostics are Spans, so each consumer takes the
//     coordinates it needs without converting again.
//
// Lines end at "\n" only, as in go/token and gopls; a "\r" before it is
// part of the line's text (an LSP character past the end of a line stops
// before it). A rune outside
// the Basic Multilingual Plane is two UTF-16 units, each byte of invalid
// UTF-8 one. An LSP character past the end of a line means its end, as
// the protocol says; a line past the end of the file is an error (the
// file has changed since the trace was recorded).
//
// # From frames to functions
//
// A frame names its function as the runtime does (runtime.Frame.Function):
// "example.com/bank.(*Account).Deposit", "example.com/bank.TestX.func1",
// "example.com/bank.F[...]", "example.com/na%2emes.init.0" (the linker
// escapes dots in the last element of the import path). Closure numbers
// are not reliable: when the compiler inlines a function, the closures in
// it are renamed after their new home ("R.R.Seq.func2.R-range1.func3"),
// and a closure defined in an inlined function is reported at its own
// lines under its caller's name. So seer resolves a frame by its file and
// line (resolve.go): the symbol gives the package, and whether the frame
// is a closure (a function literal or the body of a range-over-func loop)
// or a declared function; the syntax around the line then gives the
// function. When function literals share a line, all of them are
// candidates. The tests check this against the frames of a real run.
//
// # Accesses
//
// The race runtime records a memory access for every load and store the
// compiler instruments, and it instruments all of them except those whose
// address is in the goroutine's stack frame or in a closure's read-only
// captured variables (cmd/compile's IsSanitizerSafeAddr). In SSA terms
// (access.go):
//
//	instruction                    access
//	*x (UnOp MUL), implicit too    read of x's memory
//	*x = v (Store)                 write
//	m[k] (Lookup), len(m)          read of the map
//	m[k] = v (MapUpdate), delete   write of the map
//	range over a map (Range)       read of the map
//	copy(dst, src)                 write of dst's elements, read of src's
//	append(s, v...)                write of s's elements (secondary), read of v's
//	string(b) (Convert)            read of b's elements
//
// minus the accesses to local variables that stay in the frame (an Alloc
// that go/ssa could not lift but that does not escape) and to variables
// captured by value. go/ssa treats captured variables alike whether the
// compiler copies them into the closure or shares them, so capture.go
// implements the compiler's rule (cmd/compile/internal/escape: at most 128
// bytes, address never taken, not reassigned after the first capture);
// the tests compare it with the compiler's own decisions (-m=2). Where
// seer cannot tell, it assumes an access: a phantom access only makes a
// line more ambiguous, or its reads more relevant.
//
// Each instruction carries the position of one designated token of its
// expression (the variable's identifier, a field's selector, the "[" of
// an index, the "*" of a dereference, the ":" of a literal's element, the
// "(" of a call); nodes.go maps it back to the whole expression, which
// gives the Site's Range and, printed as go/types prints expressions, its
// Name. A Site's Object identifies the memory independently of variable
// names ("example.com/bank.Account.balance"), so that the two accesses of
// a race can be matched.
//
// A line may have several accesses of one kind: "total := x + y" reads x
// and y; "v := s[i]" reads s (a package variable) and s[i]. The trace does
// not say which one it recorded, so Access takes a hint: the Object of
// the other access of the finding, the number of bytes accessed, or the
// other access's name. Without a decisive hint a line whose candidates all
// name the same memory is exact, and any other gives its statement and a
// name listing the candidates ("x or y"). The element writes of append
// are secondary: "s = append(s, v)" is about s unless a hint says
// otherwise.
//
// # Control relevance
//
// The predictor looks for another order of the recorded events that is
// feasible. Under the maximal causal model (Şerbănuţă, Chen and Roşu,
// "Maximal Causal Models for Sequentially Consistent Systems", RV 2012),
// with its control-flow abstraction (Huang, Meredith and Roşu, "Maximal
// Sound Predictive Race Detection with Control Flow Abstraction", PLDI
// 2014), only the reads whose values can change the goroutine's control
// flow must read the same values as in the recorded run; the others may
// read anything. relevance.go decides this per read, forward along SSA
// def-use chains (through phis, conversions, arithmetic, comparisons,
// field and element extraction, and local variables that the values are
// stored in). A read is relevant as soon as a value it produced can reach
// a branch, an index, a slice bound, an address or a dereference, a
// divisor or shift count, a channel operation, a select, a call (any
// argument of any call but len, cap, min, max, real, imag and complex), a
// go or defer statement, a return, a panic, a type assertion, a closure,
// or a local variable whose address escapes.
//
// A value that reaches a store to memory (a package variable, a field
// through a pointer, a map, a variable captured from an enclosing
// function) does not make the read relevant by itself: the store is a
// write event of the trace, and a read that later reads from it is judged
// on its own. But the written value depends on the read, so the
// predictor must not let a read see another value when a write it feeds
// is the one a relevant read observed: ReadFlow lists those writes
// (Writes) for that closure. ReadIrrelevant is the line-level summary:
// true only when every read of the line is irrelevant in this sense.
//
// Some copies happen without events: when append grows a slice, the
// runtime copies the old elements into a new array that no write event
// describes, so a line with append is always relevant. A read seer cannot
// place, or a line it does not know, is relevant.
//
// # Transactions
//
// A function or method whose doc comment has the line //seer:atomic
// (exactly: no space after the slashes, no arguments) is a transaction:
// the predictor checks each call of it for atomicity as a whole.
// AtomicFuncs keys them by the runtime's name, as trace frames show it
// ("pkg.(*T).M", "pkg.F[...]", "pkg.init.1"). A //seer:atomic anywhere
// else (on a variable, a type, an interface method, inside a body,
// separated from its function by a blank line), with arguments, twice,
// or a misspelt //seer: directive is a Diagnostic.
//
// # Loading
//
// Load asks go/packages for the named packages with their tests, and
// keeps one variant of each import path: the one with the most files
// (the test variant, which the test binary is built from). Dependencies
// come from export data. SSA is built with debug information (DebugRef
// instructions tie values to expressions) and without instantiating
// generics: generic code is analysed once, in its generic form, which
// is what its source positions describe. LoadEnv is Load with extra
// environment for the go command (the check's GOTOOLCHAIN), so the module
// is loaded by the Go that builds it; a package whose only errors are
// go/types' "requires newer Go version" (a go 1.27 module, a seer built
// with Go 1.26) is type-checked in full and kept (goversion.go).
// LoadEach makes the Programs of several packages, each as Load makes it
// of that package alone, from one go/packages load (loadeach.go): seer
// check loads the source of a few packages at a time so.
// Loading takes far longer with a cold build cache than with a warm one,
// since go list compiles the export data of the dependencies (times:
// bench/RESULTS.md, "Figures once in comments").
//
// A Cache keys Programs by directory and patterns and reuses one while
// the content of its Go files, of its module's go.mod and go.sum, and the
// set of Go files in its package directories are unchanged; concurrent
// requests share one load.
//
// # Limits
//
// Files are read as the race build of the test binary sees them (the
// load adds -race, as record.Build compiles: a file for the race tag is
// loaded, its !race twin is not), cgo-generated files are not analysed, and
// unsaved editor buffers are not loaded (their positions would not match
// the recorded binary anyway). New packages matched by a "..." pattern
// after a load are not noticed until another file changes.
package static
