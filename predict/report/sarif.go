// This file implements WriteSARIF: a report as a SARIF 2.1.0 log, the
// format code scanning services (GitHub's among them) and SARIF viewers
// read. The mapping:
//
//	finding                  result (ruleId = its kind)
//	its accesses             locations, and relatedLocations 1..n that the
//	                         message links to
//	goroutine creation,      relatedLocations
//	reordered sections
//	witness schedule         one codeFlow, a threadFlow per goroutine; each
//	                         step's executionOrder is its place in the
//	                         witness, the finding's accesses are essential
//	predicted, count, test   properties
//	finding kind             a rule, documented from Explain
//
// Files under the module root are named relative to it, with uriBaseId
// %SRCROOT%; columns are UTF-16 code units, as SARIF's default columnKind
// says.

package report

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// SARIF identifies the format WriteSARIF writes.
const (
	SARIFVersion = "2.1.0"
	SARIFSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	// InformationURI is seer's home page, the tool's informationUri.
	InformationURI = "https://github.com/seer-tools/seer"
)

// SARIFOptions control WriteSARIF.
type SARIFOptions struct {
	// Root is the directory that artifact URIs are relative to (the
	// module's root, where code scanning checks the repository out). Files
	// outside it get absolute file: URIs.
	Root string
	// Version is seer's version, the driver's version.
	Version string
}

// The SARIF 2.1.0 objects WriteSARIF uses, with the properties it sets.
type (
	sarifLog struct {
		Schema  string     `json:"$schema"`
		Version string     `json:"version"`
		Runs    []sarifRun `json:"runs"`
	}
	sarifRun struct {
		Tool               sarifTool                   `json:"tool"`
		OriginalURIBaseIDs map[string]sarifArtifactLoc `json:"originalUriBaseIds,omitempty"`
		ColumnKind         string                      `json:"columnKind"`
		Results            []sarifResult               `json:"results"`
	}
	sarifTool struct {
		Driver sarifDriver `json:"driver"`
	}
	sarifDriver struct {
		Name           string      `json:"name"`
		Version        string      `json:"version,omitempty"`
		InformationURI string      `json:"informationUri"`
		Rules          []sarifRule `json:"rules"`
	}
	sarifRule struct {
		ID                   string          `json:"id"`
		Name                 string          `json:"name"`
		ShortDescription     sarifText       `json:"shortDescription"`
		FullDescription      sarifText       `json:"fullDescription"`
		Help                 sarifText       `json:"help"`
		HelpURI              string          `json:"helpUri"`
		DefaultConfiguration sarifRuleConfig `json:"defaultConfiguration"`
		Properties           map[string]any  `json:"properties,omitempty"`
	}
	sarifRuleConfig struct {
		Level string `json:"level"`
	}
	sarifText struct {
		Text     string `json:"text"`
		Markdown string `json:"markdown,omitempty"`
	}
	sarifResult struct {
		RuleID              string            `json:"ruleId"`
		RuleIndex           int               `json:"ruleIndex"`
		Level               string            `json:"level"`
		Message             sarifText         `json:"message"`
		Locations           []sarifLocation   `json:"locations"`
		RelatedLocations    []sarifLocation   `json:"relatedLocations,omitempty"`
		CodeFlows           []sarifCodeFlow   `json:"codeFlows,omitempty"`
		PartialFingerprints map[string]string `json:"partialFingerprints"`
		Properties          map[string]any    `json:"properties"`
	}
	sarifLocation struct {
		ID               *int                   `json:"id,omitempty"`
		PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
		Message          *sarifText             `json:"message,omitempty"`
	}
	sarifPhysicalLocation struct {
		ArtifactLocation sarifArtifactLoc `json:"artifactLocation"`
		Region           *sarifRegion     `json:"region,omitempty"`
	}
	sarifArtifactLoc struct {
		URI       string `json:"uri"`
		URIBaseID string `json:"uriBaseId,omitempty"`
	}
	sarifRegion struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
		EndLine     int `json:"endLine,omitempty"`
		EndColumn   int `json:"endColumn,omitempty"`
	}
	sarifCodeFlow struct {
		Message     sarifText         `json:"message"`
		ThreadFlows []sarifThreadFlow `json:"threadFlows"`
	}
	sarifThreadFlow struct {
		ID        string                    `json:"id"`
		Message   sarifText                 `json:"message"`
		Locations []sarifThreadFlowLocation `json:"locations"`
	}
	sarifThreadFlowLocation struct {
		Location       sarifLocation `json:"location"`
		ExecutionOrder int           `json:"executionOrder"`
		Importance     string        `json:"importance"`
	}
)

// srcRoot is the uriBaseId of files under SARIFOptions.Root.
const srcRoot = "%SRCROOT%"

// WriteSARIF writes rep as a SARIF 2.1.0 log with one run, one result per
// finding.
func WriteSARIF(w io.Writer, rep *Report, opts SARIFOptions) error {
	s := &sarifWriter{root: opts.Root, lines: map[string][]string{}}
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "seer",
			Version:        opts.Version,
			InformationURI: InformationURI,
		}},
		ColumnKind: "utf16CodeUnits",
		Results:    []sarifResult{},
	}
	if opts.Root != "" {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(opts.Root)}
		run.OriginalURIBaseIDs = map[string]sarifArtifactLoc{srcRoot: {URI: strings.TrimSuffix(u.String(), "/") + "/"}}
	}
	index := map[Kind]int{}
	for _, kind := range Kinds() {
		index[kind] = len(run.Tool.Driver.Rules)
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(kind))
	}
	for i := range rep.Findings {
		f := &rep.Findings[i]
		k, ok := index[f.Kind]
		if !ok { // a kind Explain does not document yet
			k = len(run.Tool.Driver.Rules)
			index[f.Kind] = k
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleFor(f.Kind))
		}
		run.Results = append(run.Results, s.result(f, k, run.Tool.Driver.Rules[k].DefaultConfiguration.Level))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: SARIFSchema, Version: SARIFVersion, Runs: []sarifRun{run}})
}

// sarifRuleFor documents a finding kind from its Explain text: the title
// is the short description, the first paragraph the full one, the whole
// text the help.
func sarifRuleFor(kind Kind) sarifRule {
	r := sarifRule{
		ID:                   string(kind),
		Name:                 kind.ruleName(),
		HelpURI:              DocURL + "#" + string(kind),
		DefaultConfiguration: sarifRuleConfig{Level: kind.level()},
		Properties:           map[string]any{"tags": []string{"concurrency", "correctness"}, "precision": "very-high", "problem.severity": kind.level()},
	}
	text, ok := Explain(kind)
	if !ok {
		r.ShortDescription = sarifText{Text: string(kind)}
		r.FullDescription = r.ShortDescription
		r.Help = r.ShortDescription
		return r
	}
	title, body, _ := strings.Cut(text, "\n")
	title = strings.TrimPrefix(title, "# ")
	if _, t, ok := strings.Cut(title, ": "); ok {
		title = t
	}
	body = strings.TrimSpace(body)
	first, _, _ := strings.Cut(body, "\n\n")
	r.ShortDescription = sarifText{Text: capitalize(title)}
	r.FullDescription = sarifText{Text: strings.Join(strings.Fields(first), " ")}
	r.Help = sarifText{Text: body, Markdown: body}
	return r
}

type sarifWriter struct {
	root  string
	lines map[string][]string // a file's lines, nil when unreadable
}

func (s *sarifWriter) result(f *Finding, rule int, level string) sarifResult {
	r := sarifResult{
		RuleID:    string(f.Kind),
		RuleIndex: rule,
		Level:     level,
		Properties: map[string]any{
			"predicted": f.Predicted,
			"verdict":   Verdict(f),
			"count":     f.Count,
		},
	}
	if f.Test != "" {
		r.Properties["test"] = f.Test
	}
	if f.Confirmed != "" {
		r.Properties["confirmed"] = f.Confirmed // seer check -replay
		r.Properties["replay"] = f.Replay
	}
	if f.Package != "" {
		r.Properties["package"] = f.Package
	}
	// The accesses: locations, and related locations 1..n that the
	// message links to.
	var links []string
	for k := range f.Accesses {
		a := &f.Accesses[k]
		what := fmt.Sprintf("%s by goroutine %d", a.Op, a.Goroutine)
		loc := s.location(a.File, a.Line, a.Column, a.EndLine, a.EndColumn, what)
		r.Locations = append(r.Locations, loc)
		id := k + 1
		loc.ID = &id
		r.RelatedLocations = append(r.RelatedLocations, loc)
		links = append(links, fmt.Sprintf("[%s](%d) by goroutine %d", a.Op, id, a.Goroutine))
	}
	what := Title(f)
	on := ""
	if f.Variable != "" {
		on = " on " + f.Variable
	}
	how := Verdict(f)
	if f.Test != "" {
		how += " in " + f.Test
	}
	if f.Count > 1 {
		how += fmt.Sprintf(", %d times", f.Count)
	}
	r.Message = sarifText{Text: fmt.Sprintf("%s%s: %s (%s)", what, on, joinAnd(links), how)}

	// Where the goroutines were created, and the sections the witness
	// reorders.
	next := len(f.Accesses) + 1
	seen := map[int]bool{}
	for k := range f.Accesses {
		a := &f.Accesses[k]
		c, ok := userCreated(a)
		if seen[a.Goroutine] || !ok {
			continue
		}
		seen[a.Goroutine] = true
		loc := s.location(c.File, c.Line, 0, 0, 0, fmt.Sprintf("goroutine %d is created here", a.Goroutine))
		id := next
		next++
		loc.ID = &id
		r.RelatedLocations = append(r.RelatedLocations, loc)
	}
	for k := range f.Reordered {
		sy := &f.Reordered[k]
		msg := fmt.Sprintf("goroutine %d's %s of %s, which the recorded run ran first", sy.Goroutine, sy.Op, sy.Object)
		if sy.First {
			msg = fmt.Sprintf("goroutine %d's %s of %s, which the witness runs first", sy.Goroutine, sy.Op, sy.Object)
		}
		loc := s.location(sy.File, sy.Line, 0, 0, 0, msg)
		id := next
		next++
		loc.ID = &id
		r.RelatedLocations = append(r.RelatedLocations, loc)
	}
	if flow, ok := s.codeFlow(f); ok {
		r.CodeFlows = []sarifCodeFlow{flow}
	}
	r.PartialFingerprints = map[string]string{"seerFinding/v1": s.fingerprint(f)}
	return r
}

// codeFlow is f's witness: a threadFlow per goroutine with a step in
// source files, each step at its place in the witness (executionOrder).
func (s *sarifWriter) codeFlow(f *Finding) (sarifCodeFlow, bool) {
	access := map[int]string{}
	for _, a := range f.Accesses {
		access[a.Event] = a.Op
	}
	var order []int
	flows := map[int]*sarifThreadFlow{}
	for k := range f.Witness {
		st := &f.Witness[k]
		if st.File == "" || st.Line <= 0 {
			continue
		}
		importance := "unimportant"
		text := fmt.Sprintf("goroutine %d %s", st.Goroutine, StepText(st))
		switch {
		case access[st.Event] != "":
			importance = "essential"
			text += " (the " + f.Kind.word() + "'s " + access[st.Event] + ")"
		case st.Within != "":
		case st.Op != "read" && st.Op != "write":
			importance = "important"
		}
		tf := flows[st.Goroutine]
		if tf == nil {
			tf = &sarifThreadFlow{ID: fmt.Sprintf("goroutine %d", st.Goroutine), Message: sarifText{Text: s.goroutineWords(f, st.Goroutine)}}
			flows[st.Goroutine] = tf
			order = append(order, st.Goroutine)
		}
		tf.Locations = append(tf.Locations, sarifThreadFlowLocation{
			Location:       s.location(st.File, st.Line, 0, 0, 0, text),
			ExecutionOrder: k + 1,
			Importance:     importance,
		})
	}
	if len(order) == 0 {
		return sarifCodeFlow{}, false
	}
	var msg strings.Builder
	msg.WriteString("The witness schedule: ")
	if prefix := PrefixPhrase(f, s.rel); prefix != "" {
		fmt.Fprintf(&msg, "%s, then ", prefix)
	}
	fmt.Fprintf(&msg, "%s, numbered by executionOrder (steps outside source files are not shown).", plural(len(f.Witness), "step"))
	sentences := append(RepairedSentences(f, s.rel), ReorderedSentences(f, s.rel)...)
	if leak := LeakSentence(f, s.rel); leak != "" {
		sentences = append([]string{leak}, sentences...) // what a predicted leak's schedule does
	}
	for _, sentence := range sentences {
		fmt.Fprintf(&msg, " %s.", capitalize(sentence))
	}
	flow := sarifCodeFlow{Message: sarifText{Text: msg.String()}}
	for _, g := range order {
		flow.ThreadFlows = append(flow.ThreadFlows, *flows[g])
	}
	return flow, true
}

// goroutineWords describes goroutine g of f for its threadFlow.
func (s *sarifWriter) goroutineWords(f *Finding, g int) string {
	for k := range f.Accesses {
		if a := &f.Accesses[k]; a.Goroutine == g {
			if c, ok := userCreated(a); ok {
				return fmt.Sprintf("goroutine %d, created at %s:%d", g, s.rel(c.File), c.Line)
			}
			return fmt.Sprintf("goroutine %d, the test's own", g)
		}
	}
	return fmt.Sprintf("goroutine %d", g)
}

// userCreated returns the go statement in user code that started the
// goroutine of a; none for the test's own goroutine, which the testing
// package starts.
func userCreated(a *Access) (Frame, bool) {
	goroot := filepath.Join(buildGOROOT, "src") + string(filepath.Separator)
	for _, c := range a.Created {
		if filepath.IsAbs(c.File) && !strings.HasPrefix(c.File, goroot) && filepath.Base(c.File) != "_testmain.go" {
			return c, true
		}
	}
	return Frame{}, false
}

// Verdict says whether f was predicted or observed.
func Verdict(f *Finding) string {
	if f.Predicted {
		return "predicted"
	}
	return "observed"
}

// location is a physical location (a message alone for STD traces, whose
// locations are numbers). Columns are byte columns; SARIF's are UTF-16.
func (s *sarifWriter) location(file string, line, col, endLine, endCol int, msg string) sarifLocation {
	loc := sarifLocation{Message: &sarifText{Text: msg}}
	if file == "" {
		loc.Message.Text = fmt.Sprintf("%s (location %d)", msg, line)
		return loc
	}
	region := &sarifRegion{StartLine: line}
	if col > 0 {
		region.StartColumn = s.column(file, line, col)
		if endLine > 0 && endCol > 0 {
			region.EndLine = endLine
			region.EndColumn = s.column(file, endLine, endCol)
		}
	}
	loc.PhysicalLocation = &sarifPhysicalLocation{ArtifactLocation: s.artifact(file), Region: region}
	return loc
}

// artifact names file relative to the root when it is under it.
func (s *sarifWriter) artifact(file string) sarifArtifactLoc {
	if s.root != "" {
		if r, err := filepath.Rel(s.root, file); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return sarifArtifactLoc{URI: (&url.URL{Path: filepath.ToSlash(r)}).EscapedPath(), URIBaseID: srcRoot}
		}
	}
	return sarifArtifactLoc{URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}).String()}
}

// rel shortens a file name for messages.
func (s *sarifWriter) rel(file string) string {
	if s.root != "" {
		if r, err := filepath.Rel(s.root, file); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return file
}

// column converts a one-based byte column of a line to UTF-16 code units,
// reading the file; it keeps the byte column when the file cannot be read.
func (s *sarifWriter) column(file string, line, col int) int {
	lines, ok := s.lines[file]
	if !ok {
		if fh, err := os.Open(file); err == nil {
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				lines = append(lines, sc.Text())
			}
			fh.Close()
		}
		s.lines[file] = lines
	}
	if line < 1 || line > len(lines) {
		return col
	}
	text := lines[line-1]
	if col-1 > len(text) {
		return col
	}
	units := 0
	for _, r := range text[:col-1] {
		units += max(utf16.RuneLen(r), 1) // invalid UTF-8: a unit a byte
	}
	return units + 1
}

// fingerprint identifies f across runs and edits elsewhere in its files:
// its kind, variable, and the files and source text of its accesses.
func (s *sarifWriter) fingerprint(f *Finding) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s", f.Kind, f.Variable)
	for _, a := range f.Accesses {
		text := ""
		s.column(a.File, a.Line, 1) // loads the file
		if lines := s.lines[a.File]; a.Line >= 1 && a.Line <= len(lines) {
			text = strings.TrimSpace(lines[a.Line-1])
		} else {
			text = fmt.Sprint(a.Line)
		}
		fmt.Fprintf(h, "\x00%s\x00%s\x00%s", a.Op, s.rel(a.File), text)
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return strings.ToUpper(string(r)) + s[n:]
}
