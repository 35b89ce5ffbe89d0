// seer serve's stderr lines at their levels in the output channel
// (issue 29: every line showed as [error]).

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { Level, LogLine, pipeServerLog, ServerLog } from "../src/serverlog";

const cases: { name: string; lines: string[]; want: LogLine[] }[] = [
  {
    name: "slog levels",
    lines: [
      'time=2026-11-27T02:30:49.988Z level=INFO msg=configuration config="{Atomicity:true Timeout:5m0s}"',
      'time=2026-11-27T02:30:50.960Z level=INFO msg="prediction starts" job=1 scope="TestAudit in /w/bank" why=command',
      "time=2026-11-27T02:30:50.960Z level=DEBUG msg=exit error=<nil>",
      'time=2026-11-27T02:30:50.960Z level=WARN msg="fetching configuration" error="workspace/configuration: timeout"',
      'time=2026-11-27T02:30:50.960Z level=ERROR msg="panic in handler" method=textDocument/hover panic="index out of range"',
      'time=2026-11-27T02:30:50.960Z level=WARN+2 msg="a level between" k=v',
      'time=2026-11-27T02:30:50.960Z level=INFO msg="say \\"hi\\"" k=v',
    ],
    want: [
      { level: "info", text: 'configuration config="{Atomicity:true Timeout:5m0s}"' },
      { level: "info", text: 'prediction starts job=1 scope="TestAudit in /w/bank" why=command' },
      { level: "debug", text: "exit error=<nil>" },
      { level: "warn", text: 'fetching configuration error="workspace/configuration: timeout"' },
      { level: "error", text: 'panic in handler method=textDocument/hover panic="index out of range"' },
      { level: "warn", text: 'a level between k=v' },
      { level: "info", text: 'say "hi" k=v' },
    ],
  },
  {
    name: "the recorded test's output is information, a failing test too",
    lines: ["=== RUN   TestAudit", "    bank_test.go:21: note = \"\"", "--- FAIL: TestAudit (0.02s)", "FAIL"],
    want: [
      { level: "info", text: "=== RUN   TestAudit" },
      { level: "info", text: '    bank_test.go:21: note = ""' },
      { level: "info", text: "--- FAIL: TestAudit (0.02s)" },
      { level: "info", text: "FAIL" },
    ],
  },
  {
    name: "a Go panic and its goroutine dump are errors",
    lines: ["PASS", "panic: runtime error: index out of range [3] with length 3", "", "goroutine 7 [running]:", "main.main()"],
    want: [
      { level: "info", text: "PASS" },
      { level: "error", text: "panic: runtime error: index out of range [3] with length 3" },
      { level: "error", text: "" },
      { level: "error", text: "goroutine 7 [running]:" },
      { level: "error", text: "main.main()" },
    ],
  },
];

for (const c of cases) {
  test(`ServerLog: ${c.name}`, () => {
    const log = new ServerLog();
    assert.deepEqual(
      c.lines.map((l) => log.line(l)),
      c.want,
    );
  });
}

test("pipeServerLog writes each line of the stream at its level", async () => {
  const input = new PassThrough();
  const got: string[] = [];
  const sink = Object.fromEntries((["trace", "debug", "info", "warn", "error"] as Level[]).map((l) => [l, (t: string) => void got.push(`[${l}] ${t}`)])) as Record<
    Level,
    (t: string) => void
  >;
  pipeServerLog(input, sink);
  input.end('time=2026-11-27T02:30:50.960Z level=INFO msg="prediction ends" job=1\n=== RUN   TestAudit\n');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['[info] prediction ends job=1', "[info] === RUN   TestAudit"]);
});
