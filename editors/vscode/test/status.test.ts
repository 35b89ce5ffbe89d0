import assert from "node:assert/strict";
import { test } from "node:test";
import { predictTitle, StatusModel, summarize } from "../src/status";

test("summaries", () => {
  assert.equal(summarize(undefined), "no answer");
  assert.equal(summarize({ findings: 0, predicted: 0 }), "no findings");
  assert.equal(summarize({ findings: 1, predicted: 1 }), "1 finding");
  assert.equal(summarize({ findings: 3, predicted: 2 }), "3 findings (2 predicted)");
  assert.equal(summarize({ findings: 0, predicted: 0, cancelled: true }), "cancelled");
  // An exploration stopped keeps what its runs found (lsp/job.go).
  assert.equal(summarize({ findings: 2, predicted: 0, cancelled: true }), "cancelled: 2 findings kept");
  assert.equal(summarize({ findings: 1, predicted: 1, cancelled: true }), "cancelled: 1 finding kept");
  assert.equal(summarize({ findings: 0, predicted: 0, error: "build failed" }), "failed: build failed");
  assert.equal(predictTitle("TestAudit"), "predicting TestAudit");
  assert.equal(predictTitle(undefined), "predicting all tests");
  assert.equal(predictTitle("TestAudit", true), "exploring TestAudit");
});

test("the status follows the server and the predictions", () => {
  const m = new StatusModel();
  assert.match(m.view().text, /loading~spin/);
  m.setServer("running");
  assert.equal(m.view().text, "$(eye) seer");
  assert.equal(m.view().busy, false);

  m.begin("a", "predicting TestAudit");
  assert.equal(m.view().text, "$(sync~spin) seer: predicting TestAudit");
  m.progress("a", { kind: "begin", title: "seer: predicting TestAudit", message: "waiting" });
  m.progress("a", { kind: "report", message: "building" });
  assert.equal(m.view().text, "$(sync~spin) seer: predicting TestAudit: building");
  assert.equal(m.view().busy, true);

  m.progress("b", { kind: "begin", title: "predicting all tests in ./bank" });
  assert.match(m.view().text, /\(\+1\)$/);
  assert.match(m.view().tooltip, /all tests in \.\/bank/);
  m.progress("b", { kind: "end" });
  m.end("b", { findings: 0, predicted: 0 });

  m.end("a", { findings: 2, predicted: 2 });
  assert.equal(m.view().text, "$(warning) seer: 2 findings");
  assert.equal(m.view().tooltip, "seer: predicting TestAudit: 2 findings");

  m.begin("c", "predicting TestX");
  m.end("c", { findings: 0, predicted: 0, error: "x" });
  assert.match(m.view().text, /^\$\(error\) seer: failed: x/);

  m.setServer("stopped");
  assert.equal(m.view().text, "$(debug-disconnect) seer");
});

test("long stages are clipped", () => {
  const m = new StatusModel();
  m.setServer("running");
  m.begin("a", "predicting TestWithAVeryLongNameThatGoesOnAndOnAndOnAndOn");
  m.progress("a", { kind: "report", message: "analysing 123456 events" });
  assert.ok(m.view().text.length < 80, m.view().text);
  assert.ok(m.view().text.endsWith("…"));
});
