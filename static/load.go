// This file implements Load: type-checking packages and their tests with
// go/packages, choosing one variant of each package, building SSA, and
// indexing files and functions for the queries of the other files.

package static

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/seer-tools/seer/internal/gocmd"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// A Program is the static view of a set of packages, with their tests, at
// one version of their source. It answers the questions of seer's other
// parts about trace frames: where exactly an access is and what to call it
// (Access), whether the values a read returns can change control flow
// (ReadIrrelevant, ReadFlow), and which functions are transactions
// (AtomicFuncs).
//
// A Program never changes after Load and is safe for concurrent use.
type Program struct {
	Dir      string   // the directory the patterns were resolved in
	Patterns []string // the package patterns, as given to Load

	Fset *token.FileSet
	SSA  *ssa.Program

	// Errors lists the problems that made packages or files unusable
	// (syntax and type errors, missing packages). Queries about them
	// answer "unknown"; the rest of the Program works.
	Errors []string

	// LoadTime is how long Load took: go list, parsing and type-checking,
	// and building SSA.
	LoadTime time.Duration

	pkgs  []*pkg
	files map[string]*file // by cleaned absolute file name
	real  map[string]*file // by name with symbolic links resolved
	sizes types.Sizes

	// fingerprint identifies the source the Program was loaded from (see
	// cache.go).
	fingerprint *fingerprint

	mu    sync.Mutex
	funcs map[funcKey]*funcFacts // per-function analyses, built on demand

	directivesOnce sync.Once
	atomic         map[string]bool
	directiveDiags []Diagnostic
}

// A pkg is one analysed package: the variant with the most files (the one
// its test binary is built from) of each import path.
type pkg struct {
	path   string
	types  *types.Package
	info   *types.Info
	ssa    *ssa.Package
	syntax []*ast.File
	files  []*file

	varsOnce sync.Once
	vars     map[token.Pos][]*types.Var // local variables by declaring position

	captureOnce sync.Once
	capture     *captureFacts

	calleesOnce sync.Once
	callees     *callees // see callIndex
}

// A file is one Go source file of an analysed package.
type file struct {
	name   string
	pkg    *pkg
	ast    *ast.File
	tok    *token.File
	mapper *Mapper
	funcs  []funcNode // functions declared in the file, by start
}

// A funcNode is a function's syntax and its SSA function. For the body of
// a range-over-func loop the node is the *ast.RangeStmt and the lines are
// those of its body.
type funcNode struct {
	node       ast.Node // *ast.FuncDecl, *ast.FuncLit or *ast.RangeStmt
	fn         *ssa.Function
	start, end int // first and last line
}

// loadMode is what Load needs from go/packages: syntax and types of the
// named packages, types of their dependencies from export data.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedTypes | packages.NeedTypesSizes |
	packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// Load loads the packages that match patterns in dir, with their tests,
// and builds their SSA. Patterns are as for go test ("./bank", "./...").
// It fails only when nothing at all could be loaded; see Program.Errors.
//
// Loading is slow (go list, type checking): use a Cache to load each
// version of a package once. The go command runs with seer's own build
// cache (gocmd.GoEnv), so loading never writes to the user's GOCACHE.
func Load(ctx context.Context, dir string, patterns ...string) (*Program, error) {
	return LoadEnv(ctx, dir, nil, patterns...)
}

// LoadEnv is Load with env, extra environment (KEY=value) for the go
// command, added to this process's: the GOTOOLCHAIN or GOFLAGS a check of
// the module runs its go commands with, so that the source is loaded by
// the Go that builds it.
func LoadEnv(ctx context.Context, dir string, env []string, patterns ...string) (*Program, error) {
	return LoadEnvFlags(ctx, dir, env, nil, patterns...)
}

// LoadEnvFlags is LoadEnv with the go command's build flags
// (-tags=integration, -mod=vendor, ...): the files it loads are those the
// build of the test binary compiles.
func LoadEnvFlags(ctx context.Context, dir string, env, buildFlags []string, patterns ...string) (*Program, error) {
	start := time.Now()
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	l, err := loadPackages(ctx, dir, env, buildFlags, patterns)
	if err != nil {
		return nil, err
	}
	return l.program(patterns, l.initial, start)
}

// loaded is the outcome of one go/packages load: its packages and the
// source of every file it parsed.
type loaded struct {
	absDir  string
	initial []*packages.Package
	content map[string][]byte
}

// loadPackages loads patterns in dir with go/packages (loadMode, with
// tests), the go command with seer's build cache, env and buildFlags.
func loadPackages(ctx context.Context, dir string, env, buildFlags []string, patterns []string) (*loaded, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// go list -export builds the export data of dependencies: into
	// seer's build cache, never the user's, and with its work directory
	// in one of seer's temporary directories, removed however it ends.
	tmp, removeTmp, err := gocmd.TempDir("seer-load-")
	if err != nil {
		return nil, err
	}
	defer removeTmp()
	var contentMu sync.Mutex
	content := make(map[string][]byte)
	cfg := &packages.Config{
		Context: ctx,
		Mode:    loadMode,
		Dir:     absDir,
		Env:     append(gocmd.GoEnv("", append(os.Environ(), env...)), "GOTMPDIR="+tmp),
		Tests:   true,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			contentMu.Lock()
			content[filename] = src
			contentMu.Unlock()
			return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		},
	}
	cfg.BuildFlags = raceBuild(buildFlags)
	initial, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, fmt.Errorf("loading %s in %s: %v", strings.Join(patterns, " "), absDir, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &loaded{absDir: absDir, initial: initial, content: content}, nil
}

// program builds the Program of patterns from initial, the packages of
// the load that the patterns name (with their test variants). start is
// when loading began (Program.LoadTime).
func (l *loaded) program(patterns []string, initial []*packages.Package, start time.Time) (*Program, error) {
	absDir, content := l.absDir, l.content
	p := &Program{
		Dir:      absDir,
		Patterns: patterns,
		files:    make(map[string]*file),
		funcs:    make(map[funcKey]*funcFacts),
		real:     make(map[string]*file),
	}
	chosen := choosePackages(initial, &p.Errors)
	if len(chosen) == 0 {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("loading %s: %s", strings.Join(patterns, " "), p.Errors[0])
		}
		return nil, fmt.Errorf("no packages match %s in %s", strings.Join(patterns, " "), absDir)
	}
	p.Fset = chosen[0].Fset
	p.sizes = chosen[0].TypesSizes
	if p.sizes == nil {
		p.sizes = types.SizesFor("gc", runtime.GOARCH)
	}

	prog, ssaPkgs := ssautil.Packages(chosen, ssa.GlobalDebug)
	prog.Build()
	p.SSA = prog

	for i, lp := range chosen {
		sp := ssaPkgs[i]
		if sp == nil {
			continue
		}
		q := &pkg{
			path:   lp.PkgPath,
			types:  lp.Types,
			info:   lp.TypesInfo,
			ssa:    sp,
			syntax: lp.Syntax,
		}
		for _, f := range lp.Syntax {
			tf := p.Fset.File(f.FileStart)
			if tf == nil {
				continue
			}
			name := filepath.Clean(tf.Name())
			src, ok := content[tf.Name()]
			if !ok || len(src) != tf.Size() {
				continue // not parsed from a file (cgo output, say)
			}
			fi := &file{name: name, pkg: q, ast: f, tok: tf, mapper: NewMapper(name, src)}
			q.files = append(q.files, fi)
			p.files[name] = fi
			if real, err := filepath.EvalSymlinks(name); err == nil {
				p.real[real] = fi
			}
		}
		q.indexFuncs(prog)
		p.pkgs = append(p.pkgs, q)
	}
	p.fingerprint = takeFingerprint(chosen, content)
	p.LoadTime = time.Since(start)
	return p, nil
}

// choosePackages picks, for each import path, the variant of the package
// to analyse: the one with the most files (the test variant, which has
// the _test.go files too) among those without errors. Test mains are
// dropped. Problems are appended to errs.
func choosePackages(initial []*packages.Package, errs *[]string) []*packages.Package {
	best := make(map[string]*packages.Package)
	var order []string
	for _, lp := range initial {
		if lp.Name == "main" && strings.HasSuffix(lp.ID, ".test") {
			continue // the generated test main
		}
		acceptTooNew(lp)
		if len(lp.Errors) > 0 || lp.IllTyped || lp.Types == nil {
			for _, e := range lp.Errors {
				*errs = append(*errs, e.Error())
			}
			if len(lp.Errors) == 0 {
				*errs = append(*errs, fmt.Sprintf("%s: not type-checked", lp.ID))
			}
			continue
		}
		cur, ok := best[lp.PkgPath]
		if !ok {
			order = append(order, lp.PkgPath)
		}
		if !ok || len(lp.Syntax) > len(cur.Syntax) {
			best[lp.PkgPath] = lp
		}
	}
	*errs = dedup(*errs)
	out := make([]*packages.Package, 0, len(order))
	for _, path := range order {
		out = append(out, best[path])
	}
	return out
}

func dedup(list []string) []string {
	seen := make(map[string]bool)
	out := list[:0]
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// indexFuncs records, for each file of q, its functions with their SSA
// functions: declared functions and methods, function literals, bodies of
// range-over-func loops, and function literals in package-level variable
// initializers.
func (q *pkg) indexFuncs(prog *ssa.Program) {
	byNode := make(map[ast.Node]*ssa.Function)
	var addAnon func(fn *ssa.Function)
	addAnon = func(fn *ssa.Function) {
		for _, anon := range fn.AnonFuncs {
			if anon.Syntax() != nil {
				byNode[anon.Syntax()] = anon
			}
			addAnon(anon)
		}
	}
	for _, f := range q.syntax {
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			obj, ok := q.info.Defs[fd.Name].(*types.Func)
			if !ok {
				continue
			}
			fn := prog.FuncValue(obj)
			if fn == nil || fn.Syntax() != fd {
				continue // no body
			}
			byNode[fd] = fn
			addAnon(fn)
		}
	}
	if init := q.ssa.Func("init"); init != nil {
		addAnon(init)
	}

	for _, fi := range q.files {
		ast.Inspect(fi.ast, func(n ast.Node) bool {
			fn, ok := byNode[n]
			if !ok {
				return true
			}
			start, end := n.Pos(), n.End()
			if rs, ok := n.(*ast.RangeStmt); ok {
				start, end = rs.Body.Lbrace, rs.Body.End()
			}
			fi.funcs = append(fi.funcs, funcNode{
				node:  n,
				fn:    fn,
				start: fi.tok.Line(start),
				end:   fi.tok.Line(end - 1),
			})
			return true
		})
		sort.SliceStable(fi.funcs, func(i, j int) bool { return fi.funcs[i].node.Pos() < fi.funcs[j].node.Pos() })
	}
}

// lookupFile returns the analysed file named name (an absolute path, as
// in trace frames).
func (p *Program) lookupFile(name string) (*file, bool) {
	if name == "" {
		return nil, false
	}
	if fi, ok := p.files[filepath.Clean(name)]; ok {
		return fi, true
	}
	if real, err := filepath.EvalSymlinks(name); err == nil {
		if fi, ok := p.real[real]; ok {
			return fi, true
		}
	}
	return nil, false
}

// Mapper returns the Mapper for the content of the named file as it was
// analysed, or nil if the file is not part of the Program.
func (p *Program) Mapper(filename string) *Mapper {
	if fi, ok := p.lookupFile(filename); ok {
		return fi.mapper
	}
	return nil
}

// Files returns the names of the analysed files, sorted.
func (p *Program) Files() []string {
	names := make([]string, 0, len(p.files))
	for n := range p.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// localVars returns the local variables declared at pos with the given
// name, for an Alloc or FreeVar of q's SSA (both carry their variable's
// position). There is one, except for the variable of a type switch,
// which has one per clause, all at the position of the switch's name.
func (q *pkg) localVars(pos token.Pos, name string) []*types.Var {
	q.varsOnce.Do(func() {
		q.vars = make(map[token.Pos][]*types.Var)
		for id, obj := range q.info.Defs {
			if v, ok := obj.(*types.Var); ok && !v.IsField() && v.Parent() != q.types.Scope() {
				q.vars[id.Pos()] = append(q.vars[id.Pos()], v)
			}
		}
		for _, obj := range q.info.Implicits {
			if v, ok := obj.(*types.Var); ok {
				q.vars[v.Pos()] = append(q.vars[v.Pos()], v)
			}
		}
	})
	var out []*types.Var
	for _, v := range q.vars[pos] {
		if v.Name() == name {
			out = append(out, v)
		}
	}
	return out
}

// localVar returns the first of localVars.
func (q *pkg) localVar(pos token.Pos, name string) *types.Var {
	if vs := q.localVars(pos, name); len(vs) > 0 {
		return vs[0]
	}
	return nil
}

// raceBuild returns buildFlags with -race, once and last: the
// test binaries seer records are race builds (record.Build), so the files
// a load must see are those the race build tag selects (a test file that
// calls runtime.RaceDisable type-checks only with it), and the export
// data go list builds is then the build's own. -race is spelled one way
// (-race=true, -race=1, --race become -race; -race=false cannot be had), so
// a Cache keys one Program whichever spelling the flags had.
func raceBuild(buildFlags []string) []string {
	out := make([]string, 0, len(buildFlags)+1)
	for _, f := range buildFlags {
		if name, _, _ := strings.Cut(f, "="); name == "-race" || name == "--race" {
			continue
		}
		out = append(out, f)
	}
	return append(out, "-race")
}
