// Finding the Go test function that encloses a position, from the text of
// a document alone (no parser, no server): enough to know what
// "seer: Predict Test at Cursor" should run.

/** A top-level test function of a Go file. */
export interface TestFunc {
  /** The test's name, e.g. "TestAudit". */
  name: string;
  /** Offset of the `func` keyword. */
  start: number;
  /** Offset just past the closing brace of the body (or the text's end). */
  end: number;
}

/**
 * Reports whether name is a Go test name: "Test" followed by nothing or
 * by a character that is not a lower-case letter (as `go test` decides).
 */
export function isTestName(name: string): boolean {
  if (!name.startsWith("Test")) {
    return false;
  }
  if (name.length === 4) {
    return true;
  }
  const next = String.fromCodePoint(name.codePointAt(4)!);
  return !(next.toLowerCase() === next && next.toUpperCase() !== next);
}

// A test's signature after its name: one parameter of type *testing.T
// (any import name, or a dot import).
const testSignature = /^\(\s*[\p{L}_][\p{L}\p{N}_]*\s+\*\s*(?:[\p{L}_][\p{L}\p{N}_]*\s*\.\s*)?T\s*\)\s*$/u;
const funcHeader = /^func\s+([\p{L}_][\p{L}\p{N}_]*)\s*(\([^]*)$/u;

/**
 * Returns the top-level `func TestXxx(t *testing.T)` functions of a Go
 * file's text. Comments, strings, raw strings and runes are skipped, so
 * braces inside them do not confuse the nesting; a file with a syntax
 * error still yields the tests before it.
 */
export function testFunctions(text: string): TestFunc[] {
  const out: TestFunc[] = [];
  let depth = 0; // brace depth
  let parens = 0; // paren depth at top level (between func and its body)
  let header = -1; // offset of a top-level `func` whose body has not opened
  let body: { name: string; start: number } | undefined; // test whose body is open
  let i = 0;
  const n = text.length;
  const atWordStart = (k: number) => k === 0 || !/[\p{L}\p{N}_]/u.test(text[k - 1]);
  while (i < n) {
    const c = text[i];
    if (c === "/" && text[i + 1] === "/") {
      const nl = text.indexOf("\n", i);
      i = nl < 0 ? n : nl;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const close = text.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 2;
      continue;
    }
    if (c === "`") {
      const close = text.indexOf("`", i + 1);
      i = close < 0 ? n : close + 1;
      continue;
    }
    if (c === '"' || c === "'") {
      i++;
      while (i < n && text[i] !== c && text[i] !== "\n") {
        i += text[i] === "\\" ? 2 : 1;
      }
      i++;
      continue;
    }
    if (depth === 0 && c === "f" && text.startsWith("func", i) && atWordStart(i) && !/[\p{L}\p{N}_]/u.test(text[i + 4] ?? "")) {
      header = i;
      parens = 0;
      i += 4;
      continue;
    }
    if (c === "(") {
      parens++;
    } else if (c === ")") {
      parens--;
    } else if (c === "{") {
      if (depth === 0 && header >= 0 && parens === 0) {
        const m = funcHeader.exec(text.slice(header, i).replace(/\/\/[^\n]*|\/\*[^]*?\*\//g, " ").trimEnd());
        if (m && isTestName(m[1]) && testSignature.test(m[2])) {
          body = { name: m[1], start: header };
        }
        header = -1;
      }
      depth++;
    } else if (c === "}") {
      depth = Math.max(0, depth - 1);
      if (body && depth === 0) {
        out.push({ name: body.name, start: body.start, end: i + 1 });
        body = undefined;
      }
    }
    i++;
  }
  if (body) {
    out.push({ name: body.name, start: body.start, end: n });
  }
  return out;
}

/**
 * Returns the name of the test function whose declaration (from `func`
 * to the closing brace) holds offset, or undefined. Offsets count UTF-16
 * code units, as JavaScript strings and VS Code's offsetAt do.
 */
export function enclosingTest(text: string, offset: number): string | undefined {
  for (const t of testFunctions(text)) {
    if (t.start <= offset && offset <= t.end) {
      return t.name;
    }
  }
  return undefined;
}
