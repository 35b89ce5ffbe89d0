// This file implements the //seer:atomic directive: finding the functions
// it marks as transactions, and reporting directives in the wrong place.

package static

import (
	"go/ast"
	"go/types"
	"sort"
	"strconv"
	"strings"
)

// AtomicDirective is the directive that marks a function or method as a
// transaction: every call of it is checked for atomicity as a whole. It
// must be a line of the declaration's doc comment, alone:
//
//	// Transfer moves n from a to b.
//	//
//	//seer:atomic
//	func Transfer(a, b *Account, n int) { ... }
const AtomicDirective = "//seer:atomic"

// A Diagnostic is a problem with the source that seer reports to the
// user, such as a misplaced directive.
type Diagnostic struct {
	File    string
	Range   Span
	Code    string // a stable category: "directive"
	Message string // lower-case, no final period, as gopls and go vet write them
}

// AtomicFuncs returns the functions marked //seer:atomic, keyed by the
// name the runtime gives them in trace frames: "pkg/path.F",
// "pkg/path.(*T).M", "pkg/path.T.M", "pkg/path.F[...]" for generic code,
// "pkg/path.init.0" for the first func init, with the linker's escaping of
// the import path ("example.com/na%2emes.F"). Use IsAtomic to look up a
// name in either form. The map is the caller's.
func (p *Program) AtomicFuncs() map[string]bool {
	p.directives()
	out := make(map[string]bool, len(p.atomic))
	for k := range p.atomic {
		out[k] = true
	}
	return out
}

// IsAtomic reports whether the function a trace frame names (Frame.Func,
// with or without the linker's escaping) is marked //seer:atomic.
func (p *Program) IsAtomic(funcName string) bool {
	p.directives()
	if p.atomic[funcName] {
		return true
	}
	// Unescaped, the package path may end at any dot of its last
	// element ("example.com/seer.data.F").
	slash := strings.LastIndex(funcName, "/")
	for i := slash + 1; i < len(funcName); i++ {
		if funcName[i] == '.' && p.atomic[escapePath(funcName[:i])+funcName[i:]] {
			return true
		}
	}
	return false
}

// DirectiveErrors returns the misused seer directives of the Program's
// files: //seer:atomic anywhere but in a function declaration's doc
// comment, with arguments, or twice; and unknown //seer: directives.
func (p *Program) DirectiveErrors() []Diagnostic {
	p.directives()
	return append([]Diagnostic(nil), p.directiveDiags...)
}

// directives scans every file once.
func (p *Program) directives() {
	p.directivesOnce.Do(func() {
		p.atomic = make(map[string]bool)
		for _, q := range p.pkgs {
			inits := 0
			for _, fi := range q.files {
				p.scanDirectives(q, fi, &inits)
			}
		}
		sort.Slice(p.directiveDiags, func(i, j int) bool {
			a, b := p.directiveDiags[i], p.directiveDiags[j]
			if a.File != b.File {
				return a.File < b.File
			}
			return a.Range.Start.Offset < b.Range.Start.Offset
		})
	})
}

func (p *Program) scanDirectives(q *pkg, fi *file, inits *int) {
	report := func(c *ast.Comment, msg string) {
		span, err := fi.mapper.PosSpan(fi.tok, c.Pos(), c.End())
		if err != nil {
			return
		}
		p.directiveDiags = append(p.directiveDiags, Diagnostic{File: fi.name, Range: span, Code: "directive", Message: msg})
	}

	// Directives in function declarations' doc comments.
	inDoc := make(map[*ast.Comment]bool)
	for _, decl := range fi.ast.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := ""
		if obj, ok := q.info.Defs[fd.Name].(*types.Func); ok {
			name = RuntimeName(obj)
			if fd.Recv == nil && fd.Name.Name == "init" {
				name = escapePath(q.path) + ".init." + strconv.Itoa(*inits)
				*inits++
			}
		}
		if fd.Doc == nil {
			continue
		}
		seen := false
		for _, c := range fd.Doc.List {
			if !isSeerDirective(c.Text) {
				continue
			}
			inDoc[c] = true
			if msg := checkDirectiveText(c.Text); msg != "" {
				report(c, msg)
				continue
			}
			if seen {
				report(c, "duplicate //seer:atomic in the doc comment of "+fd.Name.Name)
				continue
			}
			seen = true
			if name != "" {
				p.atomic[name] = true
			}
		}
	}

	// Everything else is misplaced.
	for _, cg := range fi.ast.Comments {
		for _, c := range cg.List {
			if !isSeerDirective(c.Text) || inDoc[c] {
				continue
			}
			if msg := checkDirectiveText(c.Text); strings.HasPrefix(msg, "unknown") {
				report(c, msg)
				continue
			}
			report(c, "//seer:atomic must be in the doc comment of a function declaration"+placeOf(fi.ast, cg, c))
		}
	}
}

// isSeerDirective reports whether a comment is a //seer: directive (no
// space after the slashes, as with //go: directives).
func isSeerDirective(text string) bool { return strings.HasPrefix(text, "//seer:") }

// checkDirectiveText returns what is wrong with the text of a directive,
// or "".
func checkDirectiveText(text string) string {
	text = strings.TrimRight(text, " \t\r")
	if text == AtomicDirective {
		return ""
	}
	if rest, ok := strings.CutPrefix(text, AtomicDirective); ok && (rest[0] == ' ' || rest[0] == '\t') {
		return "//seer:atomic takes no arguments (found " + strings.TrimSpace(rest) + ")"
	}
	name, _, _ := strings.Cut(text, " ")
	return "unknown directive " + name + " (seer knows only //seer:atomic)"
}

// placeOf says where a misplaced directive is, for the message.
func placeOf(f *ast.File, cg *ast.CommentGroup, c *ast.Comment) string {
	for _, decl := range f.Decls {
		if decl.Pos() <= c.Pos() && c.End() <= decl.End() {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Body != nil && d.Body.Lbrace < c.Pos() {
					return ", not inside a function body"
				}
				return ""
			case *ast.GenDecl:
				return ", not on a " + d.Tok.String() + " declaration"
			}
		}
		if gd, ok := decl.(*ast.GenDecl); ok && gd.Doc == cg {
			return ", not on a " + gd.Tok.String() + " declaration"
		}
	}
	// A comment group separated from the next declaration by a blank
	// line is not its doc comment.
	for _, decl := range f.Decls {
		if decl.Pos() > cg.End() {
			if fd, ok := decl.(*ast.FuncDecl); ok && fd.Doc == nil {
				return " (a blank line separates it from func " + fd.Name.Name + ")"
			}
			break
		}
	}
	return ""
}
