// Choosing what a command at the cursor applies to. Pure: works on plain
// objects shaped like VS Code's and the protocol's.

export interface Pos {
  line: number;
  character: number;
}

export interface Rng {
  start: Pos;
  end: Pos;
}

function before(a: Pos, b: Pos): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/** Reports whether p is within r, both ends included. */
export function contains(r: Rng, p: Pos): boolean {
  return !before(p, r.start) && !before(r.end, p);
}

/**
 * Returns seer's diagnostic under the cursor, the narrowest if several
 * are (and, among equal ones, the first).
 */
export function seerDiagnosticAt<D extends { source?: string; range: Rng }>(diags: readonly D[], p: Pos): D | undefined {
  let best: D | undefined;
  let bestSize = Infinity;
  for (const d of diags) {
    if (d.source !== "seer" || !contains(d.range, p)) {
      continue;
    }
    const size = (d.range.end.line - d.range.start.line) * 1e6 + (d.range.end.character - d.range.start.character);
    if (size < bestSize) {
      best = d;
      bestSize = size;
    }
  }
  return best;
}

export interface ProtocolCommand {
  title: string;
  command: string;
  arguments?: unknown[];
}

/**
 * Returns the command of the first code action (or command) that runs
 * name: the server's code actions carry the finding's id, which only the
 * server knows.
 */
export function pickCommand(actions: readonly unknown[] | null | undefined, name: string): ProtocolCommand | undefined {
  for (const a of actions ?? []) {
    if (!a || typeof a !== "object") {
      continue;
    }
    const o = a as { command?: unknown };
    if (typeof o.command === "string") {
      if (o.command === name) {
        return a as ProtocolCommand;
      }
    } else if (o.command && typeof o.command === "object" && (o.command as ProtocolCommand).command === name) {
      return o.command as ProtocolCommand;
    }
  }
  return undefined;
}

/** The answer of seer.showWitness and seer.showOtherAccess. */
export interface ShownDocument {
  uri: string;
  range?: Rng;
}

export function isShownDocument(v: unknown): v is ShownDocument {
  return !!v && typeof v === "object" && typeof (v as ShownDocument).uri === "string";
}
