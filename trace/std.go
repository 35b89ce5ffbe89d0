// This file implements import and export of RAPID's STD text format
// (the format of the RAPID race-analysis framework of Mathur et al., used by
// the traces of "What happens-after the first race?", OOPSLA 2018): one
// event a line, "thread|op(operand)|location".

package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// STD layout: variables and locks get addresses in two disjoint regions so
// that no variable overlaps another and no lock is mistaken for memory.
const (
	stdVarBase  = 0x1000
	stdLockBase = 0x10000000

	// stdMaxLine bounds the length of a line.
	stdMaxLine = 1 << 20
)

// ReadSTD reads a trace in RAPID's STD format. Each non-blank line is
//
//	thread|op(operand)|location
//
// where op is r or w (operand: a variable), acq or rel (a lock), fork or
// join (a thread), begin or end (no operand, or "()"). The location is a
// decimal number; it may be omitted. Lines starting with '#' are comments.
//
// Threads become goroutines in order of first appearance (as the actor of a
// line or as the operand of a fork). A forked thread gets an OpStart, whose
// Peer is the forking goroutine, before its first event. Variables become
// ObjVar objects named after the operand, each 8 bytes at its own address;
// locks become ObjLock objects with OpLock/OpUnlock events carrying
// SyncAcquire/SyncRelease. Re-entrant acquisitions (a thread acquiring a
// lock it holds, as in traces of Java monitors) are folded: only the
// outermost acquire and release are kept. Each event's stack is a single
// frame whose Line is the location number.
//
// ReadSTD checks that the trace is one a program could have produced: a
// lock is acquired only when free and released only by its holder, a thread
// is forked at most once and before it acts, and no thread acts after it
// was joined. It rejects input with no event line (empty, or only blank and
// comment lines), binary data (naming the byte offset of the first byte that
// is not text) and lines longer than 1 MiB. Errors name the offending line
// and quote at most about 60 bytes of it.
func ReadSTD(r io.Reader) (*Trace, error) {
	p := &stdReader{
		b:       NewBuilder(Header{Format: "std"}),
		threads: make(map[string]GoID),
		vars:    make(map[string]ObjID),
		locks:   make(map[string]*stdLock),
		started: make(map[GoID]bool),
		forked:  make(map[GoID]bool),
		joined:  make(map[GoID]bool),
		acted:   make(map[GoID]bool),
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), stdMaxLine)
	var off, lineOff int64 // input offsets of the next line and this one
	sc.Split(func(data []byte, atEOF bool) (int, []byte, error) {
		n, tok, err := bufio.ScanLines(data, atEOF)
		if tok != nil {
			lineOff = off
		}
		off += int64(n)
		return n, tok, err
	})
	line, events := 0, 0
	for sc.Scan() {
		line++
		if i := binaryAt(sc.Bytes()); i >= 0 {
			return nil, fmt.Errorf("std: line %d: %w", line, &FormatError{Offset: lineOff + int64(i), Byte: sc.Bytes()[i]})
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if err := p.line(text); err != nil {
			return nil, fmt.Errorf("std: line %d: %v", line, err)
		}
		events++
	}
	if err := sc.Err(); err == bufio.ErrTooLong {
		return nil, fmt.Errorf("std: line %d: longer than %d bytes", line+1, stdMaxLine)
	} else if err != nil {
		return nil, fmt.Errorf("std: line %d: %v", line+1, err)
	}
	switch {
	case line == 0:
		return nil, fmt.Errorf("std: %w", ErrEmpty)
	case events == 0:
		return nil, fmt.Errorf("std: no events, only blank and comment lines")
	}
	t, err := p.b.Trace()
	if err != nil {
		return nil, fmt.Errorf("std: %v", err)
	}
	if n := len(t.Events); n >= 1<<16 && cap(t.Events)-n > n/8 {
		// Appends leave up to a quarter of the array unused, and the
		// events are most of what an analysis holds: give it back, now
		// that parsing (which held more) is over.
		t.Events = append(make([]Event, 0, n), t.Events...)
	}
	return t, nil
}

type stdLock struct {
	id     ObjID
	addr   uint64
	holder GoID // 0 when free
	depth  int  // re-entrant depth of the holder
}

type stdReader struct {
	b       *Builder
	threads map[string]GoID
	vars    map[string]ObjID
	locks   map[string]*stdLock
	started map[GoID]bool // forked threads whose OpStart was emitted
	forked  map[GoID]bool
	joined  map[GoID]bool
	acted   map[GoID]bool
}

func (p *stdReader) line(text string) error {
	fields := strings.Split(text, "|")
	if len(fields) < 2 || len(fields) > 3 {
		return fmt.Errorf("want thread|op(operand)|location, got %s", quote(text))
	}
	thread := strings.TrimSpace(fields[0])
	if !stdName(thread) {
		return fmt.Errorf("bad thread name %s", quote(thread))
	}
	op, arg, err := stdOp(strings.TrimSpace(fields[1]))
	if err != nil {
		return err
	}
	loc := 0
	if len(fields) == 3 {
		s := strings.TrimSpace(fields[2])
		if s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return fmt.Errorf("bad location %s (want a non-negative number)", quote(s))
			}
			loc = n
		}
	}
	g := p.thread(thread, 0)
	if p.joined[g] {
		return fmt.Errorf("thread %s acts after it was joined", clip(thread))
	}
	stack := p.b.Stacks().Push(0, Frame{Line: loc})
	if p.forked[g] && !p.started[g] {
		p.started[g] = true
		parent := p.b.t.Goroutines[g].Parent
		p.b.Add(Event{Op: OpStart, G: g, Peer: int32(parent), Stack: stack})
	}
	p.acted[g] = true
	switch op {
	case "r", "w":
		if arg == "" {
			return fmt.Errorf("%s needs a variable", op)
		}
		id, ok := p.vars[arg]
		if !ok {
			addr := uint64(stdVarBase + 8*len(p.vars))
			id = p.b.Object(ObjVar, addr, 8, arg)
			p.vars[arg] = id
		}
		o := ObjID(id)
		e := Event{Op: OpRead, G: g, Obj: o, Addr: p.b.t.Objects[o].Addr, Size: 8, Stack: stack}
		if op == "w" {
			e.Op = OpWrite
		}
		p.b.Add(e)
	case "acq", "rel":
		if arg == "" {
			return fmt.Errorf("%s needs a lock", op)
		}
		l, ok := p.locks[arg]
		if !ok {
			addr := uint64(stdLockBase + 8*len(p.locks))
			l = &stdLock{id: p.b.Object(ObjLock, addr, 8, arg), addr: addr}
			p.locks[arg] = l
		}
		if op == "acq" {
			switch {
			case l.holder == g:
				l.depth++ // re-entrant: folded
			case l.holder != 0:
				return fmt.Errorf("acq(%s) while thread %s holds it", clip(arg), clip(p.name(l.holder)))
			default:
				l.holder, l.depth = g, 1
				p.b.Add(Event{Op: OpLock, Sync: SyncAcquire, G: g, Obj: l.id, Addr: l.addr, Stack: stack})
			}
		} else {
			if l.holder != g {
				return fmt.Errorf("rel(%s) by thread %s, which does not hold it", clip(arg), clip(p.name(g)))
			}
			l.depth--
			if l.depth == 0 {
				l.holder = 0
				p.b.Add(Event{Op: OpUnlock, Sync: SyncRelease, G: g, Obj: l.id, Addr: l.addr, Stack: stack})
			}
		}
	case "fork":
		if arg == "" {
			return fmt.Errorf("fork needs a thread")
		}
		if !stdName(arg) {
			return fmt.Errorf("bad thread name %s", quote(arg))
		}
		if arg == thread {
			return fmt.Errorf("thread %s forks itself", clip(arg))
		}
		if c, ok := p.threads[arg]; ok {
			if p.forked[c] {
				return fmt.Errorf("thread %s forked twice", clip(arg))
			}
			return fmt.Errorf("thread %s forked after it appeared", clip(arg))
		}
		c := p.thread(arg, g)
		p.forked[c] = true
		p.b.Add(Event{Op: OpGo, G: g, Peer: int32(c), Stack: stack})
	case "join":
		if arg == "" {
			return fmt.Errorf("join needs a thread")
		}
		c, ok := p.threads[arg]
		if !ok {
			return fmt.Errorf("join of unknown thread %s", clip(arg))
		}
		if c == g {
			return fmt.Errorf("thread %s joins itself", clip(arg))
		}
		for _, l := range p.locks {
			if l.holder == c {
				return fmt.Errorf("join of thread %s, which still holds a lock", clip(arg))
			}
		}
		p.joined[c] = true
		p.b.Add(Event{Op: OpJoin, G: g, Peer: int32(c), Stack: stack})
	case "begin", "end":
		if arg != "" {
			return fmt.Errorf("%s takes no operand", op)
		}
		e := Event{Op: OpTxBegin, G: g, Stack: stack}
		if op == "end" {
			e.Op = OpTxEnd
		}
		p.b.Add(e)
	default:
		return fmt.Errorf("unknown operation %s", quote(op))
	}
	return nil
}

// thread returns the goroutine of the named thread, adding it (with the
// given parent) on first appearance.
func (p *stdReader) thread(name string, parent GoID) GoID {
	if g, ok := p.threads[name]; ok {
		return g
	}
	g := p.b.Goroutine(parent, 0)
	p.b.SetGoroutine(g, "", name)
	p.threads[name] = g
	return g
}

func (p *stdReader) name(g GoID) string {
	return p.b.t.Goroutines[g].Func
}

// stdOp splits "op(arg)" or "op" into its parts.
func stdOp(s string) (op, arg string, err error) {
	i := strings.IndexByte(s, '(')
	if i < 0 {
		if !stdName(s) {
			return "", "", fmt.Errorf("bad operation %s", quote(s))
		}
		return s, "", nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", "", fmt.Errorf("bad operation %s: missing ')'", quote(s))
	}
	op = strings.TrimSpace(s[:i])
	arg = strings.TrimSpace(s[i+1 : len(s)-1])
	if !stdName(op) {
		return "", "", fmt.Errorf("bad operation %s", quote(s))
	}
	if arg != "" && !stdName(arg) {
		return "", "", fmt.Errorf("bad operand %s", quote(arg))
	}
	return op, arg, nil
}

// stdName reports whether s is a usable name: non-empty, no separators.
func stdName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case c == '|' || c == '(' || c == ')' || c <= ' ' || c == 0x7f:
			return false
		}
	}
	return true
}

// WriteSTD writes t in RAPID's STD format. STD has reads, writes, locks,
// fork, join and transaction boundaries, and nothing else, so the export
// keeps exactly that:
//
//   - plain reads and writes become r/w on "V<object id>" (or, for an
//     access with no object, "A<hex address>"); partial overlaps between
//     different objects are lost;
//   - Lock/Unlock become acq/rel on "L<object id>"; RLock/RUnlock also
//     become acq/rel, which loses the shared mode (readers become mutually
//     exclusive, and a run where two readers overlapped exports to a trace
//     that ReadSTD rejects as a lock taken while held);
//   - go becomes fork, join stays join, transaction begin/end stay;
//   - goroutine start and end, channel operations, WaitGroup, Once, Cond,
//     atomics and generic acquire/release are NOT written: STD cannot say
//     "ordered after the latest release on this address", and writing them
//     as locks would give them the wrong meaning. Tools reading the export
//     therefore see fewer orderings than the Go run had.
//
// Threads are named "T<goroutine id>"; the location is the line of the
// event's site (see Trace.Site).
func WriteSTD(w io.Writer, t *Trace) error {
	bw := bufio.NewWriter(w)
	for i := range t.Events {
		e := &t.Events[i]
		var op, arg string
		switch e.Op {
		case OpRead, OpWrite:
			op = "r"
			if e.Op == OpWrite {
				op = "w"
			}
			if e.Obj != 0 {
				arg = fmt.Sprintf("V%d", e.Obj)
			} else {
				arg = fmt.Sprintf("A%x", e.Addr)
			}
		case OpLock, OpRLock:
			op, arg = "acq", fmt.Sprintf("L%d", e.Obj)
		case OpUnlock, OpRUnlock:
			op, arg = "rel", fmt.Sprintf("L%d", e.Obj)
		case OpGo:
			op, arg = "fork", fmt.Sprintf("T%d", e.Peer)
		case OpJoin:
			op, arg = "join", fmt.Sprintf("T%d", e.Peer)
		case OpTxBegin:
			op = "begin"
		case OpTxEnd:
			op = "end"
		default:
			continue
		}
		line := t.Site(e).Line
		if arg == "" {
			fmt.Fprintf(bw, "T%d|%s()|%d\n", e.G, op, line)
		} else {
			fmt.Fprintf(bw, "T%d|%s(%s)|%d\n", e.G, op, arg, line)
		}
	}
	return bw.Flush()
}
