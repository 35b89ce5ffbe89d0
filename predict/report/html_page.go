// This file implements the page that WitnessHTML writes: the finding's
// story in words above the picture (html.go lays it out), and the SVG.

package report

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// pageCSS styles the page, light and dark (a browser's dark scheme, or a
// VS Code webview's dark theme, which sets body.vscode-dark).
const pageCSS = `
:root { --fg:#1f2328; --muted:#59636e; --bg:#ffffff; --lane:#f6f8fa; --lane-bug:#fff1f0;
  --box:#ffffff; --edge:#8c959f; --bug:#cf222e; --bug-fill:#ffebe9; --sync:#0969da;
  --reorder:#9a6700; --reorder-fill:#fff8c5; --recorded:#8c959f; --section:#ddf4ff; --band:#eaeef2; }
@media (prefers-color-scheme: dark) { body:not(.vscode-light) { --fg:#e6edf3; --muted:#9198a1; --bg:#0d1117;
  --lane:#151b23; --lane-bug:#2a1618; --box:#0d1117; --edge:#6e7681; --bug:#ff7b72; --bug-fill:#3c1618;
  --sync:#4493f8; --reorder:#d29922; --reorder-fill:#3a2e00; --recorded:#6e7681; --section:#0c2d4b; --band:#212830; } }
body.vscode-dark, body.vscode-high-contrast { --fg:#e6edf3; --muted:#9198a1; --bg:#0d1117;
  --lane:#151b23; --lane-bug:#2a1618; --box:#0d1117; --edge:#6e7681; --bug:#ff7b72; --bug-fill:#3c1618;
  --sync:#4493f8; --reorder:#d29922; --reorder-fill:#3a2e00; --recorded:#6e7681; --section:#0c2d4b; --band:#212830; }
body { margin:0; padding:16px 24px; background:var(--bg); color:var(--fg);
  font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size:20px; margin:0 0 4px; }
code, .mono { font-family:ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; }
.meta, .note { color:var(--muted); margin:0 0 8px; }
ul { margin:4px 0 10px; padding-left:20px; }
li.bug { color:var(--bug); }
li.reordered { color:var(--reorder); }
figure { margin:12px 0 0; }
figcaption { color:var(--muted); margin-top:8px; }
.legend span { display:inline-block; margin-right:16px; }
.legend i { display:inline-block; width:22px; height:0; margin-right:6px; vertical-align:middle; border-top:2px solid; }
.legend i.box { height:10px; border:2px solid var(--bug); background:var(--bug-fill); width:16px; }
.legend i.sec { height:10px; border:1px solid var(--reorder); background:var(--reorder-fill); width:16px; }
svg { display:block; font-family:ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size:12px; }
svg text { fill:var(--fg); }
.lane-bg { fill:var(--lane); }
.lifeline { stroke:var(--edge); stroke-dasharray:2 4; }
.lane-name { font-weight:bold; font-size:13px; }
.lane-created, .step-no, .site, .band text, .ends { fill:var(--muted); }
.ends { paint-order:stroke; stroke:var(--bg); stroke-width:4px; }
.step-no { font-size:11px; }
.band rect { fill:var(--band); }
.ends-line { stroke:var(--edge); stroke-dasharray:6 4; }
.step rect { fill:var(--box); stroke:var(--edge); }
.step .site { font-size:11px; }
.step.sync rect { stroke:var(--sync); }
.step.bug rect { fill:var(--bug-fill); stroke:var(--bug); stroke-width:2.5; }
.step.bug .what, .step.bug .tag { fill:var(--bug); font-weight:bold; }
.step.ghost rect { fill:none; stroke:var(--reorder); stroke-dasharray:5 3; }
.step.ghost text { fill:var(--muted); }
.section { fill:var(--section); stroke:var(--sync); stroke-width:1; opacity:.8; }
.section.reordered { fill:var(--reorder-fill); stroke:var(--reorder); stroke-width:1.5; opacity:1; }
.section.open { stroke-dasharray:4 3; }
.arrow { fill:none; stroke-width:1.6; }
.arrow.hb { stroke:var(--sync); }
.arrow.witness-order { stroke:var(--reorder); stroke-width:2.6; }
.arrow.recorded-order { stroke:var(--recorded); stroke-dasharray:6 4; }
.arrow.conflict { stroke:var(--bug); stroke-width:2; stroke-dasharray:3 3; }
.label { font-size:11px; paint-order:stroke; stroke:var(--bg); stroke-width:4px; stroke-linejoin:round; }
.label.hb { fill:var(--sync); }
.label.witness-order { fill:var(--reorder); font-weight:bold; }
.label.recorded-order { fill:var(--muted); }
.label.conflict { fill:var(--bug); font-weight:bold; }
.head-hb { fill:var(--sync); } .head-witness-order { fill:var(--reorder); }
.head-recorded-order { fill:var(--recorded); } .head-conflict { fill:var(--bug); }
`

var arrowClasses = []string{"hb", "witness-order", "recorded-order", "conflict"}

// writePage writes the page of f, whose picture is p.
func writePage(b *bytes.Buffer, f *Finding, p *picture, opts HTMLOptions) {
	title := f.Kind.heading()
	if f.Variable != "" {
		title += " on " + f.Variable
	}
	test := f.Test
	if test == "" {
		test = "the test"
	}
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n")
	b.WriteString("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\"/>\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n")
	fmt.Fprintf(b, "<meta name=\"generator\" content=\"seer witness\"/>\n<title>seer witness: %s (%s)</title>\n", esc(title), esc(test))
	fmt.Fprintf(b, "<style>%s</style>\n</head>\n", pageCSS)
	fmt.Fprintf(b, "<body data-kind=\"%s\" data-predicted=\"%t\">\n<header>\n", esc(string(f.Kind)), f.Predicted)
	fmt.Fprintf(b, "<h1>%s", esc(f.Kind.heading()))
	if f.Variable != "" {
		fmt.Fprintf(b, " on <code>%s</code>", esc(f.Variable))
	}
	b.WriteString("</h1>\n")
	meta := []string{Verdict(f), test}
	if f.Package != "" {
		meta = append(meta, f.Package)
	}
	if f.Count > 1 {
		meta = append(meta, fmt.Sprintf("%d times", f.Count))
	}
	fmt.Fprintf(b, "<p class=\"meta\">%s</p>\n<ul class=\"accesses\">\n", esc(strings.Join(meta, " · ")))
	for k, a := range f.Accesses {
		at := position(a.File, a.Line, opts.Rel)
		if a.File != "" && a.Column > 0 {
			at = fmt.Sprintf("%s:%d", at, a.Column)
		}
		fmt.Fprintf(b, "<li class=\"bug\">#%d %s by goroutine %d at <code>%s</code></li>\n", k+1, esc(a.Op), a.Goroutine, esc(at))
	}
	b.WriteString("</ul>\n<p>A schedule of the same test that seer's independent checker replayed: each goroutine runs what it ran in the recorded run, in the same order, and every read sees the write it saw there, up to the finding's accesses (red). ")
	if prefix := PrefixPhrase(f, opts.Rel); prefix != "" {
		fmt.Fprintf(b, "It starts from %s (the grey band); the steps below follow, ", esc(prefix))
	} else {
		b.WriteString("The steps below are the whole schedule, ")
	}
	b.WriteString("time running downwards, one column per goroutine.</p>\n")
	if sentences := ReorderedSentences(f, opts.Rel); len(sentences) > 0 {
		b.WriteString("<ul class=\"reordered\">\n")
		for _, s := range sentences {
			fmt.Fprintf(b, "<li class=\"reordered\">%s.</li>\n", esc(capitalizeFirst(s)))
		}
		b.WriteString("</ul>\n")
	}
	if p.left > 0 {
		fmt.Fprintf(b, "<p class=\"note\">%s inside library calls, the runtime and the test harness are left out; step numbers count them.</p>\n", esc(plural(p.left, "step")))
	}
	b.WriteString("</header>\n<figure>\n")
	writeSVG(b, f, p, opts)
	b.WriteString("<figcaption class=\"legend\">")
	drawn := p.drawn()
	for _, e := range legend {
		if drawn[e.mark] {
			b.WriteString(e.html)
		}
	}
	b.WriteString("</figcaption>\n</figure>\n</body>\n</html>\n")
}

// The legend's entries, each shown only when the picture draws its mark
// (issue 29: the legend named reordered critical sections and their
// arrows in pictures that had none, as when they ran in the grey band).
// A mark is an arrow's class or one of these.
const (
	markAccess           = "access"            // a box of the finding's accesses
	markReorderedSection = "reordered-section" // a critical section run in another order
)

var legend = []struct{ mark, html string }{
	{markAccess, "<span><i class=\"box\"></i>the finding's accesses</span>"},
	{"hb", "<span><i style=\"border-color:var(--sync)\"></i>release → acquire</span>"},
	{markReorderedSection, "<span><i class=\"sec\"></i>critical section run in another order</span>"},
	{"witness-order", "<span><i style=\"border-color:var(--reorder)\"></i>the witness's order</span>"},
	{"recorded-order", "<span><i style=\"border-color:var(--recorded);border-top-style:dashed\"></i>the recorded run's order</span>"},
	{"conflict", "<span><i style=\"border-color:var(--bug);border-top-style:dotted\"></i>the conflict</span>"},
}

// drawn returns the legend's marks that the picture draws.
func (p *picture) drawn() map[string]bool {
	d := map[string]bool{}
	for _, bx := range p.boxes {
		if bx.access != "" {
			d[markAccess] = true
		}
	}
	for _, s := range p.sections {
		if s.reordered {
			d[markReorderedSection] = true
		}
	}
	for _, a := range p.arrows {
		d[a.class] = true
	}
	return d
}

// geometry of the picture p.
type geometry struct {
	top, width, height int
}

func (g geometry) laneX(k int) int  { return svgGutter + k*svgLaneW }
func (g geometry) boxX(k int) int   { return g.laneX(k) + (svgLaneW-svgBoxW)/2 }
func (g geometry) rowY(row int) int { return g.top + row*svgRowH }

func writeSVG(b *bytes.Buffer, f *Finding, p *picture, opts HTMLOptions) {
	g := geometry{top: svgHeadH + 12}
	if p.prefix {
		g.top += svgBandH
	}
	g.width = svgGutter + len(p.lanes)*svgLaneW + 16
	g.height = g.top + p.rows*svgRowH + 8
	fmt.Fprintf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"witness schedule, one column per goroutine, time downwards\">\n",
		g.width, g.height, g.width, g.height)
	b.WriteString("<defs>\n")
	for _, c := range arrowClasses {
		fmt.Fprintf(b, "<marker id=\"head-%s\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path class=\"head-%s\" d=\"M0,0 L10,5 L0,10 z\"/></marker>\n", c, c)
	}
	b.WriteString("</defs>\n")

	// Lanes, their headers and lifelines.
	for k, l := range p.lanes {
		x := g.laneX(k)
		cx := x + svgLaneW/2
		class := "lane"
		if l.bug {
			class += " bug"
		}
		fmt.Fprintf(b, "<g class=\"%s\" data-goroutine=\"%d\">", class, l.g)
		fmt.Fprintf(b, "<rect class=\"lane-bg\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\" rx=\"8\"/>", x+4, svgLaneW-8, g.height)
		fmt.Fprintf(b, "<line class=\"lifeline\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", cx, svgHeadH, cx, g.height-4)
		fmt.Fprintf(b, "<text class=\"lane-name\" x=\"%d\" y=\"22\" text-anchor=\"middle\">goroutine %d</text>", cx, l.g)
		if l.created != "" {
			fmt.Fprintf(b, "<text class=\"lane-created\" x=\"%d\" y=\"40\" text-anchor=\"middle\">created at %s</text>", cx, esc(clipText(l.created, svgLabel)))
		}
		b.WriteString("</g>\n")
	}
	// The time axis.
	fmt.Fprintf(b, "<text class=\"step-no\" x=\"%d\" y=\"22\" text-anchor=\"end\">step</text>", svgGutter-10)
	fmt.Fprintf(b, "<text class=\"step-no\" x=\"%d\" y=\"40\" text-anchor=\"end\">time ↓</text>\n", svgGutter-10)
	if p.prefix {
		y := svgHeadH + 4
		fmt.Fprintf(b, "<g class=\"band\"><title>%s</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>",
			esc("the witness starts from "+PrefixPhrase(f, opts.Rel)), svgGutter, y, len(p.lanes)*svgLaneW, svgBandH-8)
		fmt.Fprintf(b, "<text x=\"%d\" y=\"%d\">as recorded, up to event %d</text></g>\n",
			svgGutter+10, y+18, f.PrefixEnd)
	}
	// Where the witness ends, when held-back sections follow.
	if p.lastRow+1 < p.rows {
		y := g.rowY(p.lastRow+1) - (svgRowH-svgBoxH)/2
		fmt.Fprintf(b, "<line class=\"ends-line\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", svgGutter, y, g.width-16, y)
		fmt.Fprintf(b, "<text class=\"ends\" x=\"%d\" y=\"%d\" text-anchor=\"end\">the witness ends here; below, what it holds back</text>\n", g.width-20, y-4)
	}
	// Critical sections.
	for _, s := range p.sections {
		class := "section"
		if s.reordered {
			class += " reordered"
		}
		if s.open {
			class += " open"
		}
		y := g.rowY(s.from) - 6
		h := (s.to-s.from)*svgRowH + svgBoxH + 12
		what := "critical section"
		if s.object != "" {
			what += " on " + s.object
		}
		what += " from " + s.site
		if s.open {
			what += ", still held where the witness ends"
		}
		if s.reordered {
			what += "; run in another order than in the recorded run"
		}
		fmt.Fprintf(b, "<rect class=\"%s\" data-object=\"%s\"", class, esc(s.object))
		if s.reordered {
			fmt.Fprintf(b, " data-reordered=\"%s\"", esc(s.object))
		}
		fmt.Fprintf(b, " x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"10\"><title>%s</title></rect>\n", g.boxX(s.lane)-7, y, svgBoxW+14, h, esc(what))
	}
	// Arrows, under the boxes; their labels go on top.
	var labels []labelAt
	for _, a := range p.arrows {
		d, lx, ly := arrowPath(g, &p.boxes[a.from], &p.boxes[a.to], bulge[a.class])
		ly = freeSpot(labels, lx, ly, a.label)
		fmt.Fprintf(b, "<path class=\"arrow %s\" data-from-step=\"%d\" data-to-step=\"%d\"", a.class, p.boxes[a.from].step+1, p.boxes[a.to].step+1)
		if a.class == "witness-order" || a.class == "recorded-order" {
			fmt.Fprintf(b, " data-reordered=\"%s\"", esc(a.object))
		}
		title := a.title
		if title == "" {
			title = a.label
		}
		fmt.Fprintf(b, " d=\"%s\" marker-end=\"url(#head-%s)\"><title>%s</title></path>\n", d, a.class, esc(title))
		labels = append(labels, labelAt{lx, ly, a.class, a.label})
	}
	// Steps.
	for _, bx := range p.boxes {
		x, y := g.boxX(bx.lane), g.rowY(bx.row)
		class := "step op-" + bx.op
		switch {
		case bx.step < 0:
			class += " ghost"
		case bx.access != "":
			class += " bug"
		case bx.op != "read" && bx.op != "write":
			class += " sync"
		}
		fmt.Fprintf(b, "<g class=\"%s\" data-goroutine=\"%d\" data-op=\"%s\"", class, p.lanes[bx.lane].g, esc(bx.op))
		if bx.step >= 0 {
			fmt.Fprintf(b, " data-step=\"%d\" data-event=\"%d\"", bx.step+1, bx.event)
		} else {
			b.WriteString(" data-held-back=\"true\"")
		}
		if bx.access != "" {
			fmt.Fprintf(b, " data-bug-access=\"%s\"", esc(bx.access))
		}
		fmt.Fprintf(b, "><title>%s</title>", esc(bx.title))
		fmt.Fprintf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\"/>", x, y, svgBoxW, svgBoxH)
		fmt.Fprintf(b, "<text class=\"what\" x=\"%d\" y=\"%d\">%s</text>", x+10, y+17, esc(clipText(bx.text, svgLabel-3)))
		fmt.Fprintf(b, "<text class=\"site\" x=\"%d\" y=\"%d\">%s</text>", x+10, y+32, esc(clipText(bx.site, svgLabel)))
		if bx.access != "" {
			fmt.Fprintf(b, "<text class=\"tag\" x=\"%d\" y=\"%d\" text-anchor=\"end\">#%d</text>", x+svgBoxW-8, y+17, accessNumber(f, bx.event))
		} else if bx.step < 0 {
			fmt.Fprintf(b, "<text class=\"tag\" x=\"%d\" y=\"%d\" text-anchor=\"end\">later</text>", x+svgBoxW-8, y+17)
		}
		b.WriteString("</g>\n")
		if bx.step >= 0 {
			fmt.Fprintf(b, "<text class=\"step-no\" x=\"%d\" y=\"%d\" text-anchor=\"end\">%d</text>\n", svgGutter-10, y+svgBoxH/2+4, bx.step+1)
		}
	}
	for _, l := range labels {
		fmt.Fprintf(b, "<text class=\"label %s\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", l.class, l.x, l.y, esc(l.text))
	}
	b.WriteString("</svg>\n")
}

// bulge is how far each kind of arrow leaves its box sideways before it
// turns, so that arrows between the same boxes part.
var bulge = map[string]int{"hb": 40, "witness-order": 60, "recorded-order": 60, "conflict": 80}

// freeSpot moves a label's baseline down until it overlaps none of the
// labels placed (widths estimated from the 11px monospace font).
func freeSpot(placed []labelAt, x, y int, text string) int {
	w := func(s string) int { return utf8.RuneCountInString(s)*7 + 6 }
	for try := 0; try < 8; try++ {
		clear := true
		for _, l := range placed {
			if abs(l.y-y) < 13 && abs(l.x-x)*2 < w(l.text)+w(text) {
				clear = false
				break
			}
		}
		if clear {
			return y
		}
		y += 13
	}
	return y
}

// A labelAt is an arrow's label, placed.
type labelAt struct {
	x, y  int
	class string
	text  string
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// arrowPath is the path of an arrow from box a to box c, with the point
// its label goes at: a curve between the boxes' facing sides, or an arc
// on the right when both are in one lane.
func arrowPath(g geometry, a, c *box, bend int) (d string, lx, ly int) {
	ay, cy := g.rowY(a.row)+svgBoxH/2, g.rowY(c.row)+svgBoxH/2
	switch {
	case a.lane == c.lane:
		x := g.boxX(a.lane) + svgBoxW
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", x, ay, x+bend, ay, x+bend, cy, x+2, cy)
		return d, x + bend*3/4, (ay+cy)/2 + 4
	case a.lane < c.lane:
		ax, cx := g.boxX(a.lane)+svgBoxW, g.boxX(c.lane)
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", ax, ay, ax+bend, ay, cx-bend, cy, cx-1, cy)
		return d, (ax + cx) / 2, (ay+cy)/2 - 4
	default:
		ax, cx := g.boxX(a.lane), g.boxX(c.lane)+svgBoxW
		d = fmt.Sprintf("M%d,%d C%d,%d %d,%d %d,%d", ax, ay, ax-bend, ay, cx+bend, cy, cx+1, cy)
		return d, (ax + cx) / 2, (ay+cy)/2 - 4
	}
}

func accessNumber(f *Finding, event int) int {
	for k, a := range f.Accesses {
		if a.Event == event {
			return k + 1
		}
	}
	return 0
}

func capitalizeFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
