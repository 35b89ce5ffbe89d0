// This file implements the text format of histories:
//
//	# store buffering
//	P0: w(x,1) r(y,0)
//	P1: w(y,1) r(x,0)
//
// one line per process, its name, a colon and its operations in program
// order; w(key,value) writes, r(key,value) reads, and an operation may
// carry its call and return times as w(x,1)@3-5. Keys are names, values
// are integers, every key holds 0 first. Blank lines and # comments are
// ignored.

package consistency

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Parse reads a history in the text format. name is used in error
// messages (file:line: what is wrong); every error is an *InputError.
// The history is validated (Validate) before it is returned.
func Parse(name string, r io.Reader) (*History, error) {
	h := New()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<30)
	errf := func(line int, format string, args ...any) error {
		return &InputError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	lineNo := 0
	for sc.Scan() {
		lineNo++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		colon := strings.IndexByte(text, ':')
		if colon < 0 {
			return nil, errf(lineNo, "want \"NAME: op op ...\", found no colon")
		}
		pname := strings.TrimSpace(text[:colon])
		if pname == "" {
			return nil, errf(lineNo, "missing process name before the colon")
		}
		if strings.ContainsAny(pname, " \t(),@") {
			return nil, errf(lineNo, "bad process name %q: no spaces, parentheses, commas or @", pname)
		}
		if i, ok := h.byName[pname]; ok {
			return nil, errf(lineNo, "process %s already has a line (line %d): one line per process", pname, h.procs[i].line)
		}
		p := h.process(pname)
		p.line = lineNo
		rest := text[colon+1:]
		for {
			rest = strings.TrimLeft(rest, " \t")
			if rest == "" {
				break
			}
			o, n, msg := parseOp(rest)
			if msg != "" {
				return nil, errf(lineNo, "process %s, operation %d: %s", pname, len(p.Ops), msg)
			}
			o.line = lineNo
			p.Ops = append(p.Ops, o)
			rest = rest[n:]
		}
	}
	if err := sc.Err(); err != nil {
		return nil, &InputError{File: name, Line: lineNo + 1, Msg: err.Error()}
	}
	if err := h.Validate(); err != nil {
		e := err.(*InputError)
		e.File = name
		return nil, e
	}
	return h, nil
}

// parseOp parses one operation at the start of s and returns it with the
// number of bytes it took, or a message saying what is wrong.
func parseOp(s string) (Op, int, string) {
	var o Op
	switch s[0] {
	case 'w':
		o.Kind = Write
	case 'r':
		o.Kind = Read
	default:
		return o, 0, fmt.Sprintf("want w(key,value) or r(key,value), found %q", word(s))
	}
	i := 1
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	skip()
	if i >= len(s) || s[i] != '(' {
		return o, 0, fmt.Sprintf("want ( after %c in %q", s[0], word(s))
	}
	i++
	skip()
	start := i
	for i < len(s) && !strings.ContainsRune(",() \t@", rune(s[i])) {
		i++
	}
	o.Key = s[start:i]
	if o.Key == "" {
		return o, 0, fmt.Sprintf("missing key in %q", word(s))
	}
	skip()
	if i >= len(s) || s[i] != ',' {
		return o, 0, fmt.Sprintf("want , after the key in %q", word(s))
	}
	i++
	skip()
	start = i
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	v, err := strconv.ParseInt(s[start:i], 10, 64)
	if err != nil {
		return o, 0, fmt.Sprintf("bad value in %q: want an integer", word(s))
	}
	o.Value = v
	skip()
	if i >= len(s) || s[i] != ')' {
		return o, 0, fmt.Sprintf("want ) after the value in %q", word(s))
	}
	i++
	if i < len(s) && s[i] == '@' {
		i++
		var t [2]int64
		for k := range t {
			start := i
			for i < len(s) && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			n, err := strconv.ParseInt(s[start:i], 10, 64)
			if err != nil {
				return o, 0, fmt.Sprintf("bad times in %q: want @call-return, two non-negative integers", word(s))
			}
			t[k] = n
			if k == 0 {
				if i >= len(s) || s[i] != '-' {
					return o, 0, fmt.Sprintf("bad times in %q: want @call-return", word(s))
				}
				i++
			}
		}
		if t[1] < t[0] {
			return o, 0, fmt.Sprintf("%q returns before it is called", word(s))
		}
		o.Call, o.Return, o.HasTime = t[0], t[1], true
	}
	if i < len(s) && s[i] != ' ' && s[i] != '\t' {
		return o, 0, fmt.Sprintf("want a space between operations, found %q", word(s[i:]))
	}
	return o, i, ""
}

// word is the start of s up to the next space, for messages.
func word(s string) string {
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		s = s[:i]
	}
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}
