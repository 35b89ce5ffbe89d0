// This file tests the witness picture's legend: it names what the picture
// draws and nothing else (issue 29: it promised reordered critical
// sections and their arrows in pictures that had none).

package report

import (
	"regexp"
	"strings"
	"testing"
)

// auditFinding is examples/bank's predicted race in TestAudit, as seer
// check -json reported it (paths moved under /src/bank and /goroot): the
// critical section the witness runs first is in the grey band, and the
// other one comes after the finding's write, so the picture draws no
// critical section and no arrow between sections.
func auditFinding(t *testing.T) *Finding {
	t.Helper()
	return findingFixture(t, "testdata/audit-race.json")
}

// The legend's text for each mark.
var legendText = map[string]string{
	markAccess:           "the finding's accesses",
	"hb":                 "release → acquire",
	markReorderedSection: "critical section run in another order",
	"witness-order":      "the witness's order",
	"recorded-order":     "the recorded run's order",
	"conflict":           "the conflict",
}

// svgMarks returns the marks the page's SVG draws, read from its markup.
func svgMarks(page string) map[string]bool {
	svg := page[strings.Index(page, "<svg"):strings.Index(page, "</svg>")]
	got := map[string]bool{}
	if strings.Contains(svg, "data-bug-access=") {
		got[markAccess] = true
	}
	if strings.Contains(svg, `class="section reordered`) {
		got[markReorderedSection] = true
	}
	for _, m := range regexp.MustCompile(`class="arrow ([a-z-]+)"`).FindAllStringSubmatch(svg, -1) {
		got[m[1]] = true
	}
	return got
}

func TestWitnessHTMLLegendNamesWhatIsDrawn(t *testing.T) {
	cases := []struct {
		name string
		f    *Finding
		want []string // the marks the legend must name, in its order
	}{
		{"reordered race", &witnessReport("/src/bank").Findings[0], []string{markAccess, markReorderedSection, "witness-order", "recorded-order", "conflict"}},
		{"reordered sections in the band", auditFinding(t), []string{markAccess, "conflict"}},
		{"atomicity violation", withdrawFinding(t), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			page := string(WitnessHTML(c.f, htmlOptions()))
			caption := page[strings.Index(page, `<figcaption class="legend">`):strings.Index(page, "</figcaption>")]
			drawn := svgMarks(page)
			var named []string
			for _, e := range legend {
				if strings.Contains(caption, legendText[e.mark]) {
					named = append(named, e.mark)
				}
				if strings.Contains(caption, legendText[e.mark]) != drawn[e.mark] {
					t.Errorf("legend names %q: %v; the picture draws it: %v", legendText[e.mark], strings.Contains(caption, legendText[e.mark]), drawn[e.mark])
				}
			}
			if c.want != nil && strings.Join(named, ",") != strings.Join(c.want, ",") {
				t.Errorf("legend names %v, want %v", named, c.want)
			}
		})
	}
}
