package report

import (
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// htmlOptions are the tests' options: base names, and the fixtures'
// GOROOT (/goroot) as the harness besides the real one.
func htmlOptions() HTMLOptions {
	return HTMLOptions{Harness: func(file string) bool {
		return strings.HasPrefix(file, "/goroot/") || defaultHarness(file)
	}}
}

// withdrawFinding is examples/bank's atomicity violation in TestWithdraw,
// as seer check -json reported it (paths moved under /src/bank).
func withdrawFinding(t *testing.T) *Finding {
	t.Helper()
	return findingFixture(t, "testdata/withdraw-atomicity.json")
}

// findingFixture reads one finding as seer check -json writes it.
func findingFixture(t *testing.T, path string) *Finding {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f Finding
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

// The picture of the small race of witnessReport, byte for byte.
func TestWitnessHTMLGolden(t *testing.T) {
	f := &witnessReport("/src/bank").Findings[0]
	got := WitnessHTML(f, htmlOptions())
	golden := "testdata/witness.html"
	if *update {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("WitnessHTML differs from %s (go test -run TestWitnessHTMLGolden -update rewrites it):\n%s", golden, got)
	}
}

// An element of the page: its name and attributes.
type element struct {
	name  string
	attrs map[string]string
}

// elements parses page as XML (the page is well-formed: its markup is
// all WitnessHTML's) and returns its elements in order.
func elements(t *testing.T, page []byte) []element {
	t.Helper()
	// The doctype is HTML's, not XML's.
	body := strings.TrimPrefix(string(page), "<!DOCTYPE html>\n")
	d := xml.NewDecoder(strings.NewReader(body))
	d.Strict = true
	var out []element
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			e := element{name: se.Name.Local, attrs: map[string]string{}}
			for _, a := range se.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			out = append(out, e)
		}
	}
}

func hasClass(e element, class string) bool {
	for _, c := range strings.Fields(e.attrs["class"]) {
		if c == class {
			return true
		}
	}
	return false
}

func TestWitnessHTMLStructure(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         *Finding
		lanes     []string // goroutines, in column order
		accesses  []string // data-bug-access, in witness order
		hb        int      // release → acquire arrows
		reordered bool
		heldBack  int
	}{
		{"race", &witnessReport("/src/bank").Findings[0], []string{"10", "9"}, []string{"write", "read"}, 0, true, 1},
		{"atomicity", withdrawFinding(t), []string{"13", "12"}, []string{"read", "write", "read"}, 2, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := WitnessHTML(tc.f, htmlOptions())
			var lanes, accesses []string
			arrows := map[string]int{}
			sections, reorderedSections, heldBack, steps := 0, 0, 0, map[string]string{}
			for _, e := range elements(t, page) {
				switch {
				case e.name == "g" && hasClass(e, "lane"):
					lanes = append(lanes, e.attrs["data-goroutine"])
				case e.name == "g" && hasClass(e, "step"):
					if a, ok := e.attrs["data-bug-access"]; ok {
						accesses = append(accesses, a)
						if !hasClass(e, "bug") {
							t.Errorf("access step %v is not highlighted", e.attrs)
						}
					}
					if e.attrs["data-held-back"] == "true" {
						heldBack++
					} else {
						steps[e.attrs["data-step"]] = e.attrs["data-goroutine"]
					}
				case e.name == "path" && hasClass(e, "arrow"):
					for _, c := range arrowClasses {
						if hasClass(e, c) {
							arrows[c]++
						}
					}
				case e.name == "rect" && hasClass(e, "section"):
					sections++
					if _, ok := e.attrs["data-reordered"]; ok {
						reorderedSections++
					}
				}
			}
			if strings.Join(lanes, " ") != strings.Join(tc.lanes, " ") {
				t.Errorf("lanes %v, want one per goroutine: %v", lanes, tc.lanes)
			}
			if strings.Join(accesses, " ") != strings.Join(tc.accesses, " ") {
				t.Errorf("data-bug-access %v, want %v", accesses, tc.accesses)
			}
			if arrows["conflict"] != len(tc.accesses)-1 {
				t.Errorf("%d conflict arrows, want %d", arrows["conflict"], len(tc.accesses)-1)
			}
			if arrows["hb"] != tc.hb {
				t.Errorf("%d release → acquire arrows, want %d", arrows["hb"], tc.hb)
			}
			if heldBack != tc.heldBack {
				t.Errorf("%d held-back sections, want %d", heldBack, tc.heldBack)
			}
			if tc.reordered {
				if arrows["witness-order"] == 0 || arrows["recorded-order"] == 0 {
					t.Errorf("no arrows for the reordered sections: %v", arrows)
				}
				if reorderedSections != 2 {
					t.Errorf("%d reordered sections, want both", reorderedSections)
				}
			} else if arrows["witness-order"]+arrows["recorded-order"]+reorderedSections > 0 {
				t.Errorf("reordering drawn for a finding without any: %v", arrows)
			}
			// Every step in user code is drawn, in its goroutine's lane.
			for i, s := range tc.f.Witness {
				g, ok := steps[itoa(i+1)]
				if StoryStep(&s) && (!ok || g != itoa(s.Goroutine)) {
					t.Errorf("step %d (%s) is not in goroutine %d's lane", i+1, StepText(&s), s.Goroutine)
				}
			}
			// Self-contained: nothing to fetch, no script.
			for _, bad := range []string{"<script", "http://", "https://", "src=", "@import", "url(http"} {
				text := strings.ReplaceAll(string(page), `xmlns="http://www.w3.org/2000/svg"`, "")
				if strings.Contains(text, bad) {
					t.Errorf("the page holds %q: it must be self-contained", bad)
				}
			}
		})
	}
}

// Text from the finding is escaped, however it reads.
func TestWitnessHTMLEscapes(t *testing.T) {
	f := witnessReport("/src/bank").Findings[0]
	f.Variable = `m["<b>&"]`
	f.Witness = append([]Step(nil), f.Witness...)
	f.Witness[4].Text = `writes m["<script>"]`
	page := string(WitnessHTML(&f, HTMLOptions{}))
	if strings.Contains(page, "<script>") || strings.Contains(page, "<b>") {
		t.Errorf("unescaped text in the page")
	}
	if !regexp.MustCompile(`m\[&#34;&lt;b&gt;&amp;&#34;\]`).MatchString(page) {
		t.Errorf("the variable's name is not in the page, escaped")
	}
}
