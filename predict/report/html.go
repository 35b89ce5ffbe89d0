// This file implements WitnessHTML: a finding's witness schedule as a
// picture, for `seer witness -html`, the editors' "Show witness schedule"
// and anyone who opens the file in a browser. The page is self-contained
// (inline CSS and SVG, no script, nothing fetched: its Content Security
// Policy forbids it) so that it opens the same from a file, a VS Code
// webview or a CI artifact.
//
// The picture is a swimlane diagram:
//
//	lanes        one column per goroutine, headed by where it was created
//	rows         time runs downwards: one row per step of the witness in
//	             user code (step numbers are the witness's, so the steps
//	             the runtime and the test harness take leave gaps)
//	prefix band  the recorded events the witness starts from, when any
//	bug accesses the finding's accesses, red, with data-bug-access="op",
//	             joined by a red dashed line
//	sections     a tinted bracket around each critical section (lock to
//	             unlock in one goroutine); amber when the witness runs it
//	             in another order than the recorded run (data-reordered)
//	sync arrows  release to acquire between goroutines: unlock to lock,
//	             send to receive, go to the goroutine's first step, Done
//	             to Wait, ... matched by object name (class "arrow hb")
//	reordering   for each reordered lock, an amber arrow from the end of
//	             the section the witness runs first to the section it
//	             overtook, and a grey dashed arrow the other way: the
//	             order of the recorded run
//	held back    a reordered section that the witness never reaches (it
//	             would run after the bug) is drawn as a dashed ghost below
//	             the last step of its lane
//	legend       names only the marks the picture draws: reordered
//	             sections that ran in the grey band, or after the
//	             finding, have no mark there (the sentences above the
//	             picture say which they are)
//
// Labels are clipped to the box; each element's <title> holds the whole
// text (and the source line when HTMLOptions.Source gives it).

package report

import (
	"bytes"
	"fmt"
	"html"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HTMLOptions control WitnessHTML. The zero value is usable.
type HTMLOptions struct {
	// Rel shortens file names for the reader (default filepath.Base).
	Rel func(file string) string
	// Source returns the text of a line of a file, shown in the step's
	// tooltip; nil or "" for none.
	Source func(file string, line int) string
	// Harness reports whether a step at file is outside the user's code
	// (the runtime, the testing package, _testmain.go): such steps are
	// left out of the picture. The default leaves out files under
	// GOROOT and files that are not absolute; "" (STD traces) is kept.
	Harness func(file string) bool
}

// The picture's geometry, in SVG user units (CSS pixels).
const (
	svgGutter = 56  // step numbers, left of the first lane
	svgLaneW  = 380 // a lane's width: a box, and room between for arrows
	svgBoxW   = 224 // a step's box
	svgBoxH   = 40
	svgRowH   = 56 // a row: a box and the gap below it
	svgHeadH  = 54 // lane headers
	svgBandH  = 36 // the prefix band
	svgLabel  = 30 // characters of a label that fit in a box
)

// WitnessHTML renders f's witness schedule as a self-contained HTML page
// with the swimlane picture described above. It is a pure function of f
// and opts: the same finding gives the same bytes.
func WitnessHTML(f *Finding, opts HTMLOptions) []byte {
	if opts.Rel == nil {
		opts.Rel = filepath.Base
	}
	if opts.Harness == nil {
		opts.Harness = defaultHarness
	}
	p := layoutWitness(f, opts)
	var b bytes.Buffer
	writePage(&b, f, p, opts)
	return b.Bytes()
}

func defaultHarness(file string) bool {
	if file == "" {
		return false
	}
	if !filepath.IsAbs(file) || strings.HasSuffix(file, "_testmain.go") {
		return true
	}
	goroot := strings.TrimSuffix(buildGOROOT, "/")
	return goroot != "" && strings.HasPrefix(file, goroot+"/")
}

// A picture is the laid-out witness.
type picture struct {
	lanes    []lane
	laneOf   map[int]int // goroutine → lane
	boxes    []box       // steps, then ghosts
	sections []section
	arrows   []arrow
	rows     int // rows of boxes
	prefix   bool
	left     int // witness steps left out
	lastRow  int // the last step's row (ghosts go below it)
}

type lane struct {
	g       int
	created string // "bank_test.go:15", or ""
	bug     bool   // holds one of the finding's accesses
}

// A box is a step of the witness (step ≥ 0) or a ghost: a reordered
// section's lock that the witness does not reach (step < 0).
type box struct {
	step   int // index in f.Witness, or -1
	lane   int
	row    int
	op     string
	text   string // "writes a.note"
	site   string // "bank.go:21"
	title  string // the tooltip
	event  int
	access string // the access's op when this is one of the finding's accesses
	object string
	file   string
	line   int
}

type section struct {
	lane, from, to int // rows
	open           bool
	object         string
	site           string
	reordered      bool
}

type arrow struct {
	class    string // "hb", "witness-order", "recorded-order", "conflict"
	from, to int    // boxes
	label    string // on the picture
	title    string // the tooltip, if not label
	object   string
}

// releases says which operations an acquire can follow in another
// goroutine: the edges drawn as sync arrows.
var releases = map[string][]string{
	"lock":            {"unlock", "runlock"},
	"rlock":           {"unlock"},
	"recv":            {"send", "close"},
	"wait":            {"done", "add"},
	"cond-wait":       {"signal", "broadcast"},
	"once-check":      {"once-done"},
	"atomic-load":     {"atomic-store", "atomic-rmw"},
	"atomic-rmw":      {"atomic-store", "atomic-rmw"},
	"acquire":         {"release", "release-merge", "release-acquire"},
	"release-acquire": {"release", "release-merge", "release-acquire"},
	"join":            {"end"},
}

func layoutWitness(f *Finding, opts HTMLOptions) *picture {
	p := &picture{laneOf: map[int]int{}, prefix: f.PrefixEnd > 0}
	accessOp := map[int]string{}
	for _, a := range f.Accesses {
		accessOp[a.Event] = a.Op
	}
	addLane := func(g int) int {
		if k, ok := p.laneOf[g]; ok {
			return k
		}
		p.laneOf[g] = len(p.lanes)
		p.lanes = append(p.lanes, lane{g: g})
		return len(p.lanes) - 1
	}
	// Steps.
	boxOfStep := map[int]int{}
	for i := range f.Witness {
		s := &f.Witness[i]
		op, bug := accessOp[s.Event]
		if !bug && (opts.Harness(s.File) || !StoryStep(s)) {
			p.left++
			continue
		}
		k := addLane(s.Goroutine)
		if bug {
			p.lanes[k].bug = true
		}
		text := StepText(s)
		site := position(s.File, s.Line, opts.Rel)
		title := fmt.Sprintf("step %d: goroutine %d %s at %s", i+1, s.Goroutine, text, site)
		if opts.Source != nil {
			if src := strings.TrimSpace(opts.Source(s.File, s.Line)); src != "" {
				title += "\n" + src
			}
		}
		boxOfStep[i] = len(p.boxes)
		p.boxes = append(p.boxes, box{step: i, lane: k, row: p.rows, op: s.Op, text: text, site: site, title: title, event: s.Event, access: op, object: s.Object, file: s.File, line: s.Line})
		p.rows++
	}
	p.lastRow = p.rows - 1
	for _, a := range f.Accesses {
		addLane(a.Goroutine)
	}
	for k := range p.lanes {
		p.lanes[k].created = createdSite(f, p.lanes[k].g, opts)
	}

	// Critical sections: each lock with the unlock of its object that
	// follows in its goroutine.
	for bi := range p.boxes {
		b := &p.boxes[bi]
		if b.op != "lock" && b.op != "rlock" {
			continue
		}
		unlock := map[string]string{"lock": "unlock", "rlock": "runlock"}[b.op]
		sec := section{lane: b.lane, from: b.row, to: p.lastRow, open: true, object: b.object, site: b.site}
		for _, c := range p.boxes[bi+1:] {
			if c.step >= 0 && c.lane == b.lane && c.op == unlock && c.object == b.object {
				sec.to, sec.open = c.row, false
				break
			}
		}
		p.sections = append(p.sections, sec)
	}

	// Release → acquire between goroutines, matched by object name, and
	// go statements to their goroutine's first step.
	for bi := range p.boxes {
		b := &p.boxes[bi]
		if b.step < 0 {
			continue
		}
		from, label := -1, ""
		if b.op == "start" || b.isFirstOfLane(p, bi) {
			if gb := p.goBox(b.lane); gb >= 0 && gb < bi {
				from, label = gb, "go"
			}
		}
		if rel, ok := releases[b.op]; ok && b.object != "" {
			for ci := bi - 1; ci >= 0; ci-- {
				if c := &p.boxes[ci]; c.object == b.object && contains(rel, c.op) {
					if c.lane != b.lane {
						from, label = ci, b.object
					}
					break
				}
			}
		}
		if from >= 0 {
			title := "release → acquire: " + p.boxes[from].text + " before " + b.text
			p.arrows = append(p.arrows, arrow{class: "hb", from: from, to: bi, label: label, object: b.object, title: title})
		}
	}

	// The reordered critical sections, one group per lock (as in
	// ReorderedSentences): the section the witness runs first, after the
	// ones the recorded run ran before it.
	for _, g := range reorderedGroups(f) {
		first := g[len(g)-1]
		fb := p.findLock(first)
		if fb < 0 {
			continue // the witness does not show it: the sentence tells it
		}
		end := fb
		for si := range p.sections {
			s := &p.sections[si]
			if s.lane == p.boxes[fb].lane && s.from == p.boxes[fb].row {
				s.reordered = true
				if !s.open {
					end = p.boxAt(s.lane, s.to)
				}
			}
		}
		for _, other := range g[:len(g)-1] {
			ob := p.findLock(other)
			if ob < 0 {
				ob = p.ghost(f, other, opts)
			}
			for si := range p.sections {
				s := &p.sections[si]
				if s.lane == p.boxes[ob].lane && s.from == p.boxes[ob].row {
					s.reordered = true
				}
			}
			obj := first.Object
			if obj == "" {
				obj = "the lock"
			}
			p.arrows = append(p.arrows,
				arrow{class: "witness-order", from: end, to: ob, label: "witness order: " + obj, object: first.Object,
					title: "the witness releases " + obj + " here before this section acquires it"},
				arrow{class: "recorded-order", from: ob, to: fb, label: "recorded order", object: first.Object,
					title: "in the recorded run this section ran first"})
		}
	}

	// The conflict: the finding's accesses, in witness order.
	prev := -1
	for bi := range p.boxes {
		if p.boxes[bi].access == "" {
			continue
		}
		if prev >= 0 {
			title := "conflicting accesses"
			if f.Variable != "" {
				title += " to " + f.Variable
			}
			p.arrows = append(p.arrows, arrow{class: "conflict", from: prev, to: bi, label: "conflict", object: f.Variable, title: title})
		}
		prev = bi
	}
	// A sync arrow that a reordering arrow draws already goes.
	drawn := map[[2]int]bool{}
	for _, a := range p.arrows {
		if a.class == "witness-order" {
			drawn[[2]int{a.from, a.to}] = true
		}
	}
	arrows := p.arrows[:0]
	for _, a := range p.arrows {
		if a.class != "hb" || !drawn[[2]int{a.from, a.to}] {
			arrows = append(arrows, a)
		}
	}
	p.arrows = arrows
	return p
}

// isFirstOfLane reports whether box bi is its lane's first step.
func (b *box) isFirstOfLane(p *picture, bi int) bool {
	for ci := 0; ci < bi; ci++ {
		if p.boxes[ci].lane == b.lane {
			return false
		}
	}
	return true
}

// goBox returns the box of the go statement that started the goroutine
// of lane k, or -1.
func (p *picture) goBox(k int) int {
	name := fmt.Sprintf("goroutine %d", p.lanes[k].g)
	for ci := range p.boxes {
		if c := &p.boxes[ci]; c.op == "go" && c.object == name {
			return ci
		}
	}
	return -1
}

// findLock returns the box of the step that is the reordered lock s, or -1.
func (p *picture) findLock(s Sync) int {
	k, ok := p.laneOf[s.Goroutine]
	if !ok {
		return -1
	}
	for bi := range p.boxes {
		b := &p.boxes[bi]
		if b.lane == k && b.op == s.Op && b.step >= 0 && b.file == s.File && b.line == s.Line {
			return bi
		}
	}
	return -1
}

// boxAt returns the box in lane k at row.
func (p *picture) boxAt(k, row int) int {
	for bi := range p.boxes {
		if p.boxes[bi].lane == k && p.boxes[bi].row == row {
			return bi
		}
	}
	return -1
}

// ghost adds a box for a reordered section that the witness does not
// reach, below the last step, and its open section.
func (p *picture) ghost(f *Finding, s Sync, opts HTMLOptions) int {
	k, ok := p.laneOf[s.Goroutine]
	if !ok {
		k = len(p.lanes)
		p.laneOf[s.Goroutine] = k
		p.lanes = append(p.lanes, lane{g: s.Goroutine, created: createdSite(f, s.Goroutine, opts)})
	}
	verb := map[string]string{"lock": "locks", "rlock": "read-locks"}[s.Op]
	if verb == "" {
		verb = s.Op
	}
	text := strings.TrimSpace(verb + " " + s.Object)
	site := position(s.File, s.Line, opts.Rel)
	title := fmt.Sprintf("held back: goroutine %d %s at %s, after the witness's end; the recorded run ran this section first", s.Goroutine, text, site)
	bi := len(p.boxes)
	p.boxes = append(p.boxes, box{step: -1, lane: k, row: p.rows, op: s.Op, text: text, site: site, title: title, event: -1, object: s.Object, file: s.File, line: s.Line})
	p.sections = append(p.sections, section{lane: k, from: p.rows, to: p.rows, open: true, object: s.Object, site: site})
	p.rows++
	return bi
}

// reorderedGroups splits f.Reordered into its locks' groups, each ending
// with the operation the witness runs first (see ReorderedSentences).
func reorderedGroups(f *Finding) [][]Sync {
	var out [][]Sync
	marked := false
	for _, s := range f.Reordered {
		marked = marked || s.First
	}
	start := 0
	for k := range f.Reordered {
		if !f.Reordered[k].First && (marked || k < len(f.Reordered)-1) {
			continue
		}
		if k > start {
			out = append(out, f.Reordered[start:k+1])
		}
		start = k + 1
	}
	return out
}

// createdSite says where goroutine g was created, from an access of
// its, in user code; "" when unknown or only the harness created it.
func createdSite(f *Finding, g int, opts HTMLOptions) string {
	for _, a := range f.Accesses {
		if a.Goroutine != g {
			continue
		}
		for _, fr := range a.Created {
			if !opts.Harness(fr.File) && fr.File != "" {
				return position(fr.File, fr.Line, opts.Rel)
			}
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clipText shortens s to n characters with an ellipsis.
func clipText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

var esc = html.EscapeString

func itoa(n int) string { return strconv.Itoa(n) }
