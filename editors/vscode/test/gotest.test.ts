import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { enclosingTest, isTestName, testFunctions } from "../src/gotest";

const at = (text: string, marker: string) => {
  const i = text.indexOf(marker);
  assert.ok(i >= 0, `marker ${marker} not in text`);
  return enclosingTest(text.replace(marker, ""), i);
};

test("isTestName follows go test's rule", () => {
  assert.equal(isTestName("Test"), true);
  assert.equal(isTestName("TestAudit"), true);
  assert.equal(isTestName("Test_x"), true);
  assert.equal(isTestName("Test1"), true);
  assert.equal(isTestName("TestÉtat"), true);
  assert.equal(isTestName("Testaudit"), false);
  assert.equal(isTestName("Testé"), false);
  assert.equal(isTestName("Tes"), false);
  assert.equal(isTestName("BenchmarkX"), false);
});

test("finds the tests of the example bank", () => {
  const path = join(__dirname, "..", "..", "..", "..", "examples", "bank", "bank_test.go");
  const text = readFileSync(path, "utf8");
  const names = testFunctions(text).map((t) => t.name);
  assert.ok(names.includes("TestAudit"), `tests: ${names}`);
  const inside = text.indexOf("a.Deposit(10)");
  assert.equal(enclosingTest(text, inside), "TestAudit");
  assert.equal(enclosingTest(text, text.indexOf("func TestAudit")), "TestAudit");
  assert.equal(enclosingTest(text, 0), undefined, "package clause");
});

test("the cursor must be inside the function", () => {
  const src = `package p

import "testing"

// TestA is documented.
func TestA(t *testing.T) {
	x := 1 /*A*/
	_ = x
}
/*between*/
func helper() { /*helper*/ }

func TestB(t *testing.T) {/*B*/}
`;
  assert.equal(at(src, "/*A*/"), "TestA");
  assert.equal(at(src, "/*B*/"), "TestB");
  assert.equal(at(src, "/*between*/"), undefined);
  assert.equal(at(src, "/*helper*/"), undefined);
  assert.equal(enclosingTest(src, src.indexOf("// TestA")), undefined, "doc comment is outside");
});

test("braces in strings, raw strings, runes and comments do not count", () => {
  const src = `package p
import tt "testing"
func TestTricky(t *tt.T) {
	s := "}" + "\\"}" + \`
}
\`
	r := '}'
	_ = '\\''
	// }
	/* } */
	f := func() { if true { _ = struct{}{} } }
	_, _, _ = s, r, f
	/*end*/
}
func TestAfter(t *tt.T) { /*after*/ }
`;
  assert.equal(at(src, "/*end*/"), "TestTricky");
  assert.equal(at(src, "/*after*/"), "TestAfter");
});

test("only functions with a test's signature", () => {
  const src = `package p
import . "testing"
func (s *suite) TestMethod(t *T) { /*method*/ }
func Testlower(t *T) { /*lower*/ }
func TestTwo(t *T, x int) { /*two*/ }
func TestResult(t *T) error { /*result*/ return nil }
func BenchmarkX(b *B) { /*bench*/ }
func TestDot(t *T) { /*dot*/ }
func TestSpaced ( tt * T ) { /*spaced*/ }
var f = func(t *T) { /*literal*/ }
`;
  for (const m of ["method", "lower", "two", "result", "bench", "literal"]) {
    assert.equal(at(src, `/*${m}*/`), undefined, m);
  }
  assert.equal(at(src, "/*dot*/"), "TestDot");
  assert.equal(at(src, "/*spaced*/"), "TestSpaced");
});

test("an unfinished file still has its tests", () => {
  const src = `package p
import "testing"
func TestOpen(t *testing.T) {
	if x {
		/*open*/`;
  assert.equal(at(src, "/*open*/"), "TestOpen");
});

test("offsets count UTF-16 code units", () => {
  const src = `package p
import "testing"
// ☃ 𝄞 snowmen and clefs
func TestUnicode(t *testing.T) { s := "𝄞}"; _ = s /*u*/ }
`;
  assert.equal(at(src, "/*u*/"), "TestUnicode");
});
