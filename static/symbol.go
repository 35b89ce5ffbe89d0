// This file implements the runtime's function symbol names: parsing the
// names a trace's frames carry (runtime.Frame.Function) and computing the
// name the runtime will show for a declared function.

package static

import (
	"fmt"
	"go/types"
	"strconv"
	"strings"
)

// A Symbol is a parsed runtime function name, such as
//
//	example.com/bank.(*Account).Deposit
//	example.com/bank.TestX.func1.2
//	example.com/bank.F[...].func1
//	example.com/bank.R-range1
//	example.com/na%2emes.init.0
//
// The runtime names a closure after the function that contains it, and
// names differently closures that the compiler inlined (TestX.func1 inlined
// into TestX makes the closures inside it TestX.TestX.func1.func2), so
// seer does not rely on closure numbers: it finds functions by file and
// line, and uses the symbol only for its package and for whether the frame
// is a closure or a declared function (see Program.Access).
type Symbol struct {
	// PkgPath is the import path of the function's package, unescaped
	// ("%2e" in the last element becomes ".").
	PkgPath string

	// Parts are the dot-separated parts after the package path, with
	// brackets and parentheses kept whole: "(*Account)", "Deposit";
	// "F[...]", "func1"; "glob", "", "func1".
	Parts []string
}

// ParseSymbol parses a runtime function name. It fails on names with no
// package path, such as those of STD traces.
func ParseSymbol(name string) (Symbol, error) {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return Symbol{}, fmt.Errorf("function name %q has no package", name)
	}
	dot += slash + 1
	path, err := unescapePath(name[:dot])
	if err != nil {
		return Symbol{}, fmt.Errorf("function name %q: %v", name, err)
	}
	parts := splitParts(name[dot+1:])
	if len(parts) == 0 || parts[0] == "" {
		return Symbol{}, fmt.Errorf("function name %q has no function", name)
	}
	return Symbol{PkgPath: path, Parts: parts}, nil
}

// splitParts splits s at the dots outside brackets and parentheses.
func splitParts(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case '.':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

// IsClosure reports whether the symbol names a function literal or the
// body of a range-over-func loop (a closure, as the runtime sees it),
// rather than a declared function, method or initializer.
func (s Symbol) IsClosure() bool {
	last := s.Parts[len(s.Parts)-1]
	if i := strings.LastIndex(last, "-range"); i >= 0 && isDigits(last[i+len("-range"):]) {
		return true
	}
	if strings.HasPrefix(last, "gowrap") || strings.HasPrefix(last, "deferwrap") {
		// The wrapper of "go f(x)" runs the go statement's call: it
		// belongs to the function that contains the statement.
		if len(s.Parts) == 1 {
			return false
		}
		return Symbol{s.PkgPath, s.Parts[:len(s.Parts)-1]}.IsClosure()
	}
	if len(s.Parts) == 1 {
		return false
	}
	if isDigits(last) {
		// "TestX.func1.2" (nested closure), but not "init.0" (the first
		// func init).
		return !(len(s.Parts) == 2 && s.Parts[0] == "init")
	}
	return strings.HasPrefix(last, "func") && isDigits(last[len("func"):])
}

// IsPackageInit reports whether the symbol names the package's variable
// initialization ("pkg.init"), as opposed to a func init ("pkg.init.0").
func (s Symbol) IsPackageInit() bool { return len(s.Parts) == 1 && s.Parts[0] == "init" }

func (s Symbol) String() string {
	return escapePath(s.PkgPath) + "." + strings.Join(s.Parts, ".")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// escapePath escapes an import path as the linker does in symbol names
// (cmd/internal/objabi.PathToPrefix): control characters, space, '%', '"',
// non-ASCII bytes, and '.' in the last element become "%xx".
func escapePath(path string) string {
	slash := strings.LastIndex(path, "/")
	var b strings.Builder
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c <= ' ' || c == '.' && i > slash || c == '%' || c == '"' || c >= 0x7f {
			fmt.Fprintf(&b, "%%%02x", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// unescapePath undoes escapePath.
func unescapePath(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		b.WriteByte(byte(c))
		i += 2
	}
	return b.String(), nil
}

// RuntimeName returns the name the runtime shows (runtime.Frame.Function)
// for the declared function or method fn: "pkg.F", "pkg.(*T).M", "pkg.T.M",
// and for generic code "pkg.F[...]", "pkg.(*T[...]).M". Func init has no
// name of its own (it is "pkg.init.N" by its position in the package): see
// Program.AtomicFuncs.
func RuntimeName(fn *types.Func) string {
	pkg := ""
	if fn.Pkg() != nil {
		pkg = escapePath(fn.Pkg().Path()) + "."
	}
	sig := fn.Type().(*types.Signature)
	if recv := sig.Recv(); recv != nil {
		t := recv.Type()
		ptr := false
		if p, ok := t.(*types.Pointer); ok {
			t, ptr = p.Elem(), true
		}
		name := "?"
		generic := false
		switch t := types.Unalias(t).(type) {
		case *types.Named:
			name = t.Obj().Name()
			generic = t.TypeParams().Len() > 0 || t.TypeArgs().Len() > 0
		case *types.Interface:
			name = "interface"
		}
		if generic {
			name += "[...]"
		}
		if ptr {
			name = "(*" + name + ")"
		}
		return pkg + name + "." + fn.Name()
	}
	name := fn.Name()
	if sig.TypeParams().Len() > 0 {
		name += "[...]"
	}
	return pkg + name
}
