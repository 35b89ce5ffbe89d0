// The language client's trace channel, so that "seer.trace.server" works
// at the output channel's default log level.
//
// vscode-languageclient traces the protocol only when its trace channel's
// log level is Trace, and writes each traced message with trace(), which
// a LogOutputChannel drops below that level: with the "seer" channel at
// its default level (Info) the setting logged nothing (issue 29). This
// channel stands in for "seer" as the client's traceOutputChannel: while
// the setting is "messages" or "verbose" it reports the Trace level and
// writes the traced messages into "seer" at info; with "off" it is the
// "seer" channel as it is (so "Developer: Set Log Level… → Trace" still
// turns tracing on, as the client does by default).

import * as vscode from "vscode";

export type TraceSetting = "off" | "messages" | "verbose";

/** Reads seer.trace.server: anything but "messages" and "verbose" is off. */
export function traceSetting(v: unknown): TraceSetting {
  return v === "messages" || v === "verbose" ? v : "off";
}

export class TraceChannel implements vscode.LogOutputChannel {
  private readonly changed = new vscode.EventEmitter<vscode.LogLevel>();
  private readonly sub: vscode.Disposable;
  readonly onDidChangeLogLevel = this.changed.event;

  constructor(
    private readonly out: vscode.LogOutputChannel,
    private setting: TraceSetting,
  ) {
    this.sub = out.onDidChangeLogLevel(() => this.changed.fire(this.logLevel));
  }

  get name(): string {
    return this.out.name;
  }

  get logLevel(): vscode.LogLevel {
    return this.setting === "off" ? this.out.logLevel : vscode.LogLevel.Trace;
  }

  /** seer.trace.server changed: the client re-reads the level and the setting. */
  setSetting(s: TraceSetting): void {
    if (s !== this.setting) {
      this.setting = s;
      this.changed.fire(this.logLevel);
    }
  }

  trace(message: string, ...args: any[]): void {
    if (this.setting === "off") {
      this.out.trace(message, ...args);
    } else {
      this.out.info(message, ...args);
    }
  }
  debug(message: string, ...args: any[]): void {
    this.out.debug(message, ...args);
  }
  info(message: string, ...args: any[]): void {
    this.out.info(message, ...args);
  }
  warn(message: string, ...args: any[]): void {
    this.out.warn(message, ...args);
  }
  error(error: string | Error, ...args: any[]): void {
    this.out.error(error, ...args);
  }
  append(value: string): void {
    this.out.append(value);
  }
  appendLine(value: string): void {
    this.out.appendLine(value);
  }
  replace(value: string): void {
    this.out.replace(value);
  }
  clear(): void {
    this.out.clear();
  }
  show(columnOrPreserveFocus?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    if (typeof columnOrPreserveFocus === "boolean" || columnOrPreserveFocus === undefined) {
      this.out.show(columnOrPreserveFocus);
    } else {
      this.out.show(columnOrPreserveFocus, preserveFocus);
    }
  }
  hide(): void {
    this.out.hide();
  }
  /** Ends the channel's own subscriptions; the "seer" channel stays. */
  dispose(): void {
    this.sub.dispose();
    this.changed.dispose();
  }
}
