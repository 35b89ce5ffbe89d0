// What the status-bar item says: the server's state, the predictions under
// way with their stage, and the outcome of the last one. Pure: no vscode
// import, so the wording is unit-tested without an editor.

/** A work-done progress value ($/progress), as the server sends it. */
export interface ProgressValue {
  kind: "begin" | "report" | "end";
  title?: string;
  message?: string;
  percentage?: number;
}

/** The answer of the server's seer.predict command (lsp/job.go). */
export interface PredictResult {
  findings: number;
  predicted: number;
  tests?: unknown[] | null;
  cancelled?: boolean;
  error?: string;
}

export type ServerState = "starting" | "running" | "stopped";

export interface StatusView {
  text: string;
  tooltip: string;
  busy: boolean;
}

/** Returns the one-line outcome of a prediction. */
export function summarize(r: PredictResult | undefined): string {
  if (!r) {
    return "no answer";
  }
  if (r.cancelled) {
    // An exploration stopped keeps the findings of the runs that ended.
    return r.findings > 0 ? `cancelled: ${r.findings === 1 ? "1 finding" : `${r.findings} findings`} kept` : "cancelled";
  }
  if (r.error) {
    return "failed: " + r.error;
  }
  if (r.findings === 0) {
    return "no findings";
  }
  const what = r.findings === 1 ? "1 finding" : `${r.findings} findings`;
  return r.predicted > 0 && r.predicted < r.findings ? `${what} (${r.predicted} predicted)` : what;
}

/** Returns what a prediction of test (all tests when empty) is called. */
export function predictTitle(test: string | undefined, explore = false): string {
  if (explore && test) {
    return `exploring ${test}`;
  }
  return test ? `predicting ${test}` : "predicting all tests";
}

const maxText = 60;

function clip(s: string): string {
  return s.length <= maxText ? s : s.slice(0, maxText - 1) + "…";
}

/** StatusModel tracks what the status-bar item shows. */
export class StatusModel {
  private server: ServerState = "starting";
  private readonly running = new Map<string, { title: string; message?: string }>();
  private last?: { title: string; outcome: string; findings: number; failed: boolean };

  setServer(state: ServerState): void {
    this.server = state;
    if (state === "stopped") {
      this.running.clear();
    }
  }

  /** A prediction started under key (its progress token). */
  begin(key: string, title: string): void {
    this.running.set(key, { title });
  }

  /** A $/progress value arrived for key. */
  progress(key: string, v: ProgressValue): void {
    const r = this.running.get(key);
    if (!r) {
      if (v.kind === "begin") {
        this.running.set(key, { title: v.title ?? "predicting", message: v.message });
      }
      return;
    }
    if (v.kind === "begin" && v.title) {
      r.title = v.title.replace(/^seer: /, "");
    }
    if (v.message) {
      r.message = v.message;
    }
  }

  /** The prediction under key ended with r (undefined: no answer). */
  end(key: string, r: PredictResult | undefined): void {
    const run = this.running.get(key);
    this.running.delete(key);
    this.last = {
      title: run?.title ?? "prediction",
      outcome: summarize(r),
      findings: r?.findings ?? 0,
      failed: !r || !!r.error,
    };
  }

  view(): StatusView {
    if (this.server === "stopped") {
      return { text: "$(debug-disconnect) seer", tooltip: "seer serve is not running: run 'seer: Restart Language Server'", busy: false };
    }
    if (this.running.size > 0) {
      const [first] = this.running.values();
      const more = this.running.size > 1 ? ` (+${this.running.size - 1})` : "";
      const msg = first.message ? `: ${first.message}` : "";
      return {
        text: "$(sync~spin) " + clip(`seer: ${first.title}${msg}`) + more,
        tooltip: [...this.running.values()].map((r) => `seer: ${r.title}${r.message ? " — " + r.message : ""}`).join("\n"),
        busy: true,
      };
    }
    if (this.server === "starting") {
      return { text: "$(loading~spin) seer", tooltip: "starting seer serve", busy: true };
    }
    if (this.last) {
      const icon = this.last.failed ? "$(error)" : this.last.findings > 0 ? "$(warning)" : "$(check)";
      return { text: `${icon} seer: ${clip(this.last.outcome)}`, tooltip: `seer: ${this.last.title}: ${this.last.outcome}`, busy: false };
    }
    return { text: "$(eye) seer", tooltip: "seer: use the 'seer: predict' lens above a test, or 'seer: Predict Test at Cursor'", busy: false };
  }
}
