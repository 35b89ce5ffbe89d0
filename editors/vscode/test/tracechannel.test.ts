// seer.trace.server through the trace channel: the language client traces
// only at the Trace log level and writes with trace(), which the "seer"
// channel drops at its default level (issue 29).

import assert from "node:assert/strict";
import { test } from "node:test";
import type * as vscode from "vscode";
import { TraceChannel, traceSetting } from "../src/tracechannel";
import { EventEmitter, LogLevel } from "./vscode-stub";

/** A LogOutputChannel that keeps what reaches it at its level, as VS Code's does. */
function channel(level: LogLevel) {
  const lines: string[] = [];
  const changed = new EventEmitter<LogLevel>();
  const at = (l: LogLevel, name: string) => (m: string) => {
    if (ch.logLevel !== LogLevel.Off && l >= ch.logLevel) lines.push(`[${name}] ${m}`);
  };
  const ch = {
    name: "seer",
    logLevel: level,
    onDidChangeLogLevel: changed.event,
    trace: at(LogLevel.Trace, "trace"),
    debug: at(LogLevel.Debug, "debug"),
    info: at(LogLevel.Info, "info"),
    warn: at(LogLevel.Warning, "warning"),
    error: at(LogLevel.Error, "error"),
    lines,
    setLevel(l: LogLevel) {
      ch.logLevel = l;
      changed.fire(l);
    },
  };
  return ch;
}

test("traceSetting reads the setting's values, anything else is off", () => {
  const cases: [unknown, string][] = [
    ["messages", "messages"],
    ["verbose", "verbose"],
    ["off", "off"],
    [undefined, "off"],
    ["loud", "off"],
    [{ verbosity: "verbose" }, "off"],
  ];
  for (const [v, want] of cases) {
    assert.equal(traceSetting(v), want, JSON.stringify(v));
  }
});

test("with the setting on, the client sees the Trace level and its messages reach the channel at info", () => {
  const out = channel(LogLevel.Info);
  const t = new TraceChannel(out as unknown as vscode.LogOutputChannel, "messages");
  assert.equal(t.logLevel, LogLevel.Trace);
  t.trace("[Trace - 02:30:50] Sending request 'workspace/executeCommand - (3)'.");
  assert.deepEqual(out.lines, ["[info] [Trace - 02:30:50] Sending request 'workspace/executeCommand - (3)'."]);
});

test("with the setting off, the channel is the seer channel as it is", () => {
  const out = channel(LogLevel.Info);
  const t = new TraceChannel(out as unknown as vscode.LogOutputChannel, "off");
  assert.equal(t.logLevel, LogLevel.Info, "the client does not trace");
  t.trace("dropped at Info");
  t.warn("kept");
  assert.deepEqual(out.lines, ["[warning] kept"]);
  // The user's "Set Log Level… → Trace" still turns tracing on.
  const seen: LogLevel[] = [];
  t.onDidChangeLogLevel((l) => seen.push(l));
  out.setLevel(LogLevel.Trace);
  assert.deepEqual(seen, [LogLevel.Trace]);
  t.trace("kept at Trace");
  assert.deepEqual(out.lines, ["[warning] kept", "[trace] kept at Trace"]);
});

test("changing the setting tells the client, which re-reads the level", () => {
  const out = channel(LogLevel.Info);
  const t = new TraceChannel(out as unknown as vscode.LogOutputChannel, "off");
  const seen: LogLevel[] = [];
  t.onDidChangeLogLevel((l) => seen.push(l));
  t.setSetting("verbose");
  t.setSetting("verbose");
  t.setSetting("off");
  assert.deepEqual(seen, [LogLevel.Trace, LogLevel.Info], "one event a change");
  t.dispose();
  out.setLevel(LogLevel.Debug);
  assert.deepEqual(seen, [LogLevel.Trace, LogLevel.Info], "no events after dispose");
});
