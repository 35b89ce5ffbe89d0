package report

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"strings"
	"testing"
)

func TestIndentLeaves(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{}`, "{}\n"},
		{`[]`, "[]\n"},
		{`{"a":1}`, "{\"a\": 1}\n"},
		{`{"a":[1,2],"b":{"c":"x,y:{"}}`, `{
  "a": [1, 2],
  "b": {"c": "x,y:{"}
}
`},
		{`{"s":[{"f":"a\"b","l":1},{"f":"c\\","l":2}],"n":null}`, `{
  "s": [
    {"f": "a\"b", "l": 1},
    {"f": "c\\", "l": 2}
  ],
  "n": null
}
`},
		{`{"a":[],"b":{},"c":[[]]}`, `{
  "a": [],
  "b": {},
  "c": [
    []
  ]
}
`},
		{`"[{\",:"`, "\"[{\\\",:\"\n"},
	} {
		got := string(indentLeaves(nil, []byte(tc.in)))
		if got != tc.want {
			t.Errorf("indentLeaves(%s) =\n%s\nwant\n%s", tc.in, got, tc.want)
		}
	}
}

// TestWriteJSONRoundTrip writes reports with awkward strings and checks
// that the output is the same value as json.Marshal's, that no line holds
// more than one object or array that is not a leaf, and that every leaf
// is on one line.
func TestWriteJSONRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	pieces := []string{"a", "{", "}", "[", "]", ",", ":", `"`, `\`, "é", "\u2028", "<&>", " ", "\n", "\t"}
	str := func() string {
		var b strings.Builder
		for range rng.Intn(6) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		return b.String()
	}
	for range 200 {
		rep := &Report{}
		for range rng.Intn(4) {
			f := Finding{Test: str(), Kind: "race", Variable: str(), Count: rng.Intn(9)}
			for range rng.Intn(3) {
				a := Access{File: str(), Line: rng.Intn(100), Op: str()}
				for range rng.Intn(3) {
					a.Stack = append(a.Stack, Frame{Func: str(), File: str(), Line: rng.Intn(50)})
				}
				f.Accesses = append(f.Accesses, a)
			}
			for range rng.Intn(4) {
				f.PrefixStops = append(f.PrefixStops, Stop{Goroutine: rng.Intn(900), Event: rng.Intn(1e6), File: str()})
			}
			rep.Findings = append(rep.Findings, f)
		}
		var out bytes.Buffer
		if err := WriteJSON(&out, rep); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(rep)
		var compact bytes.Buffer
		if err := json.Compact(&compact, out.Bytes()); err != nil {
			t.Fatalf("output is not JSON: %v\n%s", err, out.Bytes())
		}
		if !bytes.Equal(compact.Bytes(), want) {
			t.Fatalf("output is another value:\n%s\nwant\n%s", compact.Bytes(), want)
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Fatalf("output does not end with a newline")
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		var v any
		json.Unmarshal(want, &v)
		if n := jsonLines(v); len(lines) != n {
			t.Fatalf("%d lines, want %d (one a leaf, two more a container of containers):\n%s", len(lines), n, out.Bytes())
		}
		for _, line := range lines {
			s := strings.TrimSuffix(strings.TrimSpace(line), ",")
			if s == "}" || s == "]" || strings.HasSuffix(s, "{") || strings.HasSuffix(s, "[") {
				continue
			}
			if !json.Valid([]byte(s)) && !json.Valid([]byte("{"+s+"}")) {
				t.Fatalf("line %q is not a whole member", line)
			}
		}
	}
}

// jsonLines is the number of lines indentLeaves prints for v (as decoded
// by encoding/json): one for a scalar or a container of scalars, else one
// for each end and those of the members.
func jsonLines(v any) int {
	var members []any
	switch v := v.(type) {
	case []any:
		members = v
	case map[string]any:
		for _, m := range v {
			members = append(members, m)
		}
	default:
		return 1
	}
	n, leaf := 2, true
	for _, m := range members {
		switch m.(type) {
		case []any, map[string]any:
			leaf = false
		}
		n += jsonLines(m)
	}
	if leaf {
		return 1
	}
	return n
}
