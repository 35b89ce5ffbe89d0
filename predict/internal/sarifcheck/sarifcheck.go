// Package sarifcheck validates SARIF logs against the SARIF 2.1.0 JSON
// schema, for the tests of package report's SARIF writer and of the
// findings predict/check reports through it.
//
// Entry points: Schema compiles the schema; Validate checks a log.
package sarifcheck

import (
	"bytes"
	_ "embed"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema is the SARIF 2.1.0 JSON schema: the one SchemaStore serves as
// sarif-2.1.0.json (2.1.0-rtm.5), as the npm package @microsoft/jest-sarif
// ships it (MIT).
//
//go:embed sarif-2.1.0-rtm.5.json
var schema []byte

// Schema compiles the SARIF 2.1.0 schema.
func Schema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("sarif-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("sarif-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// Validate checks a log against the schema.
func Validate(t testing.TB, sch *jsonschema.Schema, log []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(log))
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the log does not validate against SARIF 2.1.0: %v", err)
	}
}
