// seer serve's standard error in the "seer" output channel, at the level
// each line has. The server logs with Go's log/slog text handler
// ("time=… level=INFO msg=… key=value…", lsp/serve.go); the recorded
// test's own output (go test -v lines) comes on the same stream. The
// language client's default writes every stderr line with `error`
// (issue 29: every line showed as [error]); this routes slog's levels to
// the channel's, the test's output to info, and a Go panic or fatal
// error, with the goroutine dump after it, to error. Pure but for
// pipeStderr, so the parsing is unit-tested without an editor.

import * as readline from "readline";
import type { Readable } from "stream";

export type Level = "trace" | "debug" | "info" | "warn" | "error";

/** One stderr line, as the output channel should show it. */
export interface LogLine {
  level: Level;
  text: string;
}

const slogLevels: Record<string, Level> = { DEBUG: "debug", INFO: "info", WARN: "warn", ERROR: "error" };

// slog's text handler: time=RFC3339 level=LEVEL msg=VALUE rest, where a
// value is quoted when it has spaces or quotes.
const slogLine = /^time=\S+ level=(DEBUG|INFO|WARN|ERROR)(?:[+-]\d+)? msg=("(?:[^"\\]|\\.)*"|\S*)(.*)$/;

/** Reads the lines of seer serve's stderr, one after another. */
export class ServerLog {
  // After a Go panic or fatal error, the rest is its goroutine dump.
  private crashed = false;

  line(raw: string): LogLine {
    const m = slogLine.exec(raw);
    if (m) {
      let msg = m[2];
      if (msg.startsWith('"')) {
        try {
          msg = JSON.parse(msg) as string;
        } catch {
          // not JSON-quoted after all: keep it as it came
        }
      }
      return { level: slogLevels[m[1]], text: msg + m[3] };
    }
    if (/^(panic: |fatal error: )/.test(raw)) {
      this.crashed = true;
    }
    return { level: this.crashed ? "error" : "info", text: raw };
  }
}

/** What the output channel needs: a LogOutputChannel's level methods. */
export type LevelSink = Record<Level, (text: string) => void>;

/** Writes each line of input to out at its level (LanguageClientOptions.stdioOptions). */
export function pipeServerLog(input: Readable, out: LevelSink): void {
  const log = new ServerLog();
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on("line", (raw) => {
    const l = log.line(raw);
    out[l.level](l.text);
  });
}
