import assert from "node:assert/strict";
import { test } from "node:test";
import { contains, isShownDocument, pickCommand, seerDiagnosticAt } from "../src/pick";

const r = (l1: number, c1: number, l2: number, c2: number) => ({ start: { line: l1, character: c1 }, end: { line: l2, character: c2 } });

test("contains includes both ends", () => {
  assert.ok(contains(r(1, 2, 1, 5), { line: 1, character: 2 }));
  assert.ok(contains(r(1, 2, 1, 5), { line: 1, character: 5 }));
  assert.ok(!contains(r(1, 2, 1, 5), { line: 1, character: 6 }));
  assert.ok(contains(r(1, 2, 3, 0), { line: 2, character: 99 }));
  assert.ok(!contains(r(1, 2, 3, 0), { line: 0, character: 3 }));
});

test("seer's narrowest diagnostic under the cursor", () => {
  const diags = [
    { source: "compiler", range: r(17, 0, 17, 20), message: "other" },
    { source: "seer", range: r(17, 0, 17, 30), message: "wide" },
    { source: "seer", range: r(17, 1, 17, 7), message: "narrow" },
    { source: "seer", range: r(30, 8, 30, 14), message: "elsewhere" },
  ];
  assert.equal(seerDiagnosticAt(diags, { line: 17, character: 3 })?.message, "narrow");
  assert.equal(seerDiagnosticAt(diags, { line: 17, character: 20 })?.message, "wide");
  assert.equal(seerDiagnosticAt(diags, { line: 18, character: 0 }), undefined);
});

test("pickCommand finds the command in code actions or bare commands", () => {
  const actions = [
    { title: "Go to the other access", kind: "quickfix", command: { title: "Go", command: "seer.showOtherAccess", arguments: [{ finding: 1, access: 0 }] } },
    { title: "Show witness schedule", kind: "quickfix", command: { title: "Show", command: "seer.showWitness", arguments: [{ finding: 1, access: 0 }] } },
  ];
  assert.deepEqual(pickCommand(actions, "seer.showWitness")?.arguments, [{ finding: 1, access: 0 }]);
  assert.equal(pickCommand([{ title: "x", command: "seer.predict" }], "seer.predict")?.title, "x");
  assert.equal(pickCommand(actions, "seer.predict"), undefined);
  assert.equal(pickCommand(null, "seer.predict"), undefined);
  assert.ok(isShownDocument({ uri: "file:///tmp/w.txt" }));
  assert.ok(!isShownDocument(null));
  assert.ok(!isShownDocument({ findings: 1 }));
});
