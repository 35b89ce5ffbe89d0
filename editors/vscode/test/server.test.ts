// The real `seer serve`, driven over stdio with the JSON-RPC stack that
// VS Code's language client uses, through the steps a user takes in the
// editor: open a test file, click the "seer: predict" lens of TestAudit,
// read the findings on bank.go, hover one, open its quick fixes and its
// witness. Nothing is stubbed: the server records the test under seer's
// race runtime (a minute on a cold cache, seconds after).
//
// The binary is $SEER_BIN, else built with `go build` into a temporary
// directory. Without Go the test is skipped, except under CI (env CI set),
// where it fails.

import assert from "node:assert/strict";
import { ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  CodeAction,
  CodeLens,
  createProtocolConnection,
  Diagnostic,
  Hover,
  InitializeResult,
  MarkupContent,
  ProtocolConnection,
  PublishDiagnosticsParams,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { enclosingTest } from "../src/gotest";
import { seerClient } from "../src/adapter";
import { Controller } from "../src/controller";
import { pickCommand } from "../src/pick";
import { serverSettings } from "../src/settings";
import { PredictResult, summarize } from "../src/status";
import { Disposable, stub } from "./vscode-stub";

const repo = resolve(__dirname, "..", "..", "..", "..");
const bankDir = join(repo, "examples", "bank");
const testFile = join(bankDir, "bank_test.go");
const bankFile = join(bankDir, "bank.go");
const uriOf = (p: string) => pathToFileURL(p).href;
const pathOf = (u: string) => fileURLToPath(u);

/** Returns the seer binary and a cleanup, or a reason to skip. */
function seerBinary(): { bin: string; cleanup: () => void } | { skip: string } {
  if (process.env.SEER_BIN) {
    assert.ok(existsSync(process.env.SEER_BIN), `SEER_BIN=${process.env.SEER_BIN} does not exist`);
    return { bin: process.env.SEER_BIN, cleanup: () => {} };
  }
  try {
    execFileSync("go", ["version"], { stdio: "ignore" });
  } catch {
    const why = "go is not on PATH and SEER_BIN is not set: cannot build seer to drive `seer serve`";
    if (process.env.CI) {
      assert.fail(why + " (CI must not skip this test)");
    }
    return { skip: why };
  }
  const dir = mkdtempSync(join(tmpdir(), "seer-vscode-test-"));
  const bin = join(dir, "seer");
  execFileSync("go", ["build", "-o", bin, "./cmd/seer"], { cwd: repo, stdio: ["ignore", "inherit", "inherit"] });
  return { bin, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Waits until cond() holds after a notification, at most ms. */
function waitFor<T>(what: string | (() => string), ms: number, subscribe: (wake: () => void) => void, cond: () => T | undefined): Promise<T> {
  return new Promise((resolveP, reject) => {
    const check = () => {
      const v = cond();
      if (v !== undefined) {
        clearTimeout(timer);
        resolveP(v);
        return true;
      }
      return false;
    };
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${typeof what === "function" ? what() : what}`)), ms);
    if (!check()) {
      subscribe(() => void check());
    }
  });
}

test("seer serve over stdio: lens, predict, diagnostics, hover, code actions", { timeout: 400_000 }, async (t) => {
  const found = seerBinary();
  if ("skip" in found) {
    t.skip(found.skip);
    return;
  }
  const started = Date.now();
  const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)}s`;
  const proc: ChildProcess = spawn(found.bin, ["serve", "--stdio"], { cwd: repo, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  proc.stderr!.on("data", (d) => {
    stderr += d;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const exited = new Promise<number | null>((r) => proc.on("exit", (code) => r(code)));
  const conn: ProtocolConnection = createProtocolConnection(new StreamMessageReader(proc.stdout!), new StreamMessageWriter(proc.stdin!));

  const diagnostics = new Map<string, Diagnostic[]>();
  const messages: string[] = [];
  const progress: { token: string | number; value: any }[] = [];
  const shown: string[] = [];
  const configRequests: unknown[] = [];
  const wakers = new Set<() => void>();
  const wake = () => [...wakers].forEach((w) => w());
  const subscribe = (w: () => void) => wakers.add(w);

  conn.onNotification("textDocument/publishDiagnostics", (p: PublishDiagnosticsParams) => {
    diagnostics.set(pathOf(p.uri), p.diagnostics);
    wake();
  });
  conn.onNotification("window/showMessage", (p: { message: string }) => {
    messages.push(p.message);
    wake();
  });
  conn.onNotification("window/logMessage", () => {});
  conn.onNotification("$/progress", (p: { token: string | number; value: unknown }) => {
    progress.push(p);
    wake();
  });
  conn.onRequest("workspace/configuration", (p: { items: { section?: string }[] }) => {
    configRequests.push(p);
    // What VS Code holds under "seer", through the extension's middleware.
    const section = { path: found.bin, trace: { server: "off" }, atomicity: true, timeout: "3m", runOnSave: false, buildFlags: [], env: {} };
    return p.items.map((it) => (it.section === "seer" ? serverSettings(section, true) : null));
  });
  conn.onRequest("window/workDoneProgress/create", () => null);
  conn.onRequest("client/registerCapability", () => null);
  conn.onRequest("window/showDocument", (p: { uri: string }) => {
    shown.push(p.uri);
    return { success: true };
  });
  conn.listen();

  try {
    // initialize: the capabilities that VS Code announces and seer uses.
    const init = (await conn.sendRequest("initialize", {
      processId: process.pid,
      clientInfo: { name: "seer-vscode-test" },
      rootUri: uriOf(repo),
      workspaceFolders: [{ uri: uriOf(repo), name: "seer" }],
      capabilities: {
        window: { workDoneProgress: true, showDocument: { support: true } },
        workspace: { configuration: true, workspaceFolders: true },
        textDocument: {
          publishDiagnostics: { relatedInformation: true },
          hover: { contentFormat: ["markdown", "plaintext"] },
          codeLens: {},
          codeAction: { codeActionLiteralSupport: { codeActionKind: { valueSet: ["quickfix"] } } },
        },
      },
    })) as InitializeResult;
    assert.equal(init.serverInfo?.name, "seer");
    assert.ok(init.capabilities.codeLensProvider, "code lenses");
    assert.ok(init.capabilities.hoverProvider, "hover");
    assert.deepEqual(init.capabilities.executeCommandProvider?.commands.sort(), ["seer.predict", "seer.showOtherAccess", "seer.showWitness"]);
    await conn.sendNotification("initialized", {});

    // Open the test file and ask for its lenses.
    const text = readFileSync(testFile, "utf8");
    await conn.sendNotification("textDocument/didOpen", { textDocument: { uri: uriOf(testFile), languageId: "go", version: 1, text } });
    const lenses = (await conn.sendRequest("textDocument/codeLens", { textDocument: { uri: uriOf(testFile) } })) as CodeLens[];
    const titles = lenses.map((l) => l.command?.title);
    assert.ok(titles.includes("seer: predict all tests"), `lenses: ${titles}`);
    const lensOf = (title: string) =>
      lenses.find((l) => l.command?.title === title && l.command.command === "seer.predict" && (l.command.arguments?.[0] as { test?: string })?.test === "TestAudit");
    const lens = lensOf("seer: predict");
    assert.ok(lens?.command, `no seer: predict lens for TestAudit in ${JSON.stringify(lenses)}`);
    // Beside it, on the same line, TestAudit's explore lens.
    const explore = lensOf("seer: explore");
    assert.ok(explore?.command, `no seer: explore lens for TestAudit in ${JSON.stringify(lenses)}`);
    assert.deepEqual((explore.command.arguments?.[0] as { explore?: boolean }).explore, true);
    assert.equal(explore.range.start.line, lens.range.start.line);
    // The lens sits on the function that the extension's own helper finds.
    const lines = text.split("\n");
    const offset = lines.slice(0, lens.range.start.line).reduce((n, l) => n + l.length + 1, 0) + lens.range.start.character;
    assert.equal(enclosingTest(text, offset), "TestAudit");

    // Click it, as VS Code would: executeCommand with a progress token.
    const result = (await conn.sendRequest("workspace/executeCommand", {
      command: lens.command.command,
      arguments: lens.command.arguments,
      workDoneToken: "vscode-test-1",
    })) as PredictResult;
    t.diagnostic(`seer.predict answered after ${elapsed()}: ${summarize(result)}`);
    assert.ok(!result.error, `prediction failed: ${result.error}\n${stderr.slice(-4000)}`);
    assert.ok(result.findings >= 1, `want findings, got ${JSON.stringify(result)}`);
    // The progress under our token begins and ends (the end may come
    // after the answer: notifications leave from their own queue).
    const kinds = () => progress.filter((p) => p.token === "vscode-test-1").map((p) => p.value.kind as string);
    await waitFor(() => `the end of progress vscode-test-1 (have ${kinds()})`, 10_000, subscribe, () => (kinds().includes("end") ? true : undefined));
    assert.equal(kinds()[0], "begin", `progress: ${kinds()}`);
    assert.equal(kinds().at(-1), "end", `progress: ${kinds()}`);

    // Both accesses of the race on a.note: Deposit's write and Audit's
    // read (found in bank.go's text: the example may move).
    const bankText = readFileSync(bankFile, "utf8");
    const lineOf = (needle: string) => {
      const i = bankText.split("\n").findIndex((l) => l.includes(needle));
      assert.ok(i >= 0, `bank.go has no line with ${needle}`);
      return i;
    };
    const writeLine = lineOf('a.note = "deposit"');
    const readLine = lineOf("return a.note");
    const onBank = await waitFor(
      () => `seer diagnostics at bank.go:${writeLine + 1} and bank.go:${readLine + 1} (have ${JSON.stringify([...diagnostics])})`,
      60_000,
      subscribe,
      () => {
        const ds = (diagnostics.get(bankFile) ?? []).filter((d) => d.source === "seer");
        const lines = new Set(ds.map((d) => d.range.start.line));
        return lines.has(writeLine) && lines.has(readLine) ? ds : undefined;
      },
    );
    const write = onBank.find((d) => d.range.start.line === writeLine)!;
    const read = onBank.find((d) => d.range.start.line === readLine)!;
    for (const d of [write, read]) {
      assert.equal(d.severity, 2, "warning");
      assert.ok(d.code === "race" || d.code === "atomicity", `code ${d.code}`);
      assert.match(String(d.message), /note/, String(d.message));
    }
    assert.equal(write.code, "race");
    t.diagnostic(`bank.go:${writeLine + 1}: ${String(write.message).split("\n")[0]}`);
    assert.ok(
      !messages.some((m) => /ignoring settings/.test(m)),
      `the server ignored settings that the extension sent: ${messages.join("; ")}`,
    );
    assert.ok(configRequests.length > 0, "the server asked for its configuration");

    // Open bank.go and hover on the write.
    await conn.sendNotification("textDocument/didOpen", {
      textDocument: { uri: uriOf(bankFile), languageId: "go", version: 1, text: readFileSync(bankFile, "utf8") },
    });
    const hover = (await conn.sendRequest("textDocument/hover", {
      textDocument: { uri: uriOf(bankFile) },
      position: write.range.start,
    })) as Hover | null;
    assert.ok(hover, `hover on bank.go:${writeLine + 1}`);
    const md = hover.contents as MarkupContent;
    assert.equal(md.kind, "markdown");
    assert.match(md.value, /note/);
    assert.ok(md.value.includes(`bank.go:${readLine + 1}`), `hover names the other access:\n${md.value}`);

    // The quick fixes there.
    const actions = (await conn.sendRequest("textDocument/codeAction", {
      textDocument: { uri: uriOf(bankFile) },
      range: write.range,
      context: { diagnostics: [write], only: ["quickfix"] },
    })) as CodeAction[];
    const actionTitles = actions.map((a) => a.title);
    assert.ok(actionTitles.some((s) => /^Go to the other access/.test(s)), `actions: ${actionTitles}`);
    assert.ok(actionTitles.includes("Show witness schedule"), `actions: ${actionTitles}`);
    assert.ok(actionTitles.includes("Re-run prediction of TestAudit"), `actions: ${actionTitles}`);
    for (const a of actions) {
      assert.equal(a.kind, "quickfix");
    }

    // Run "Show witness schedule" as the extension's command does.
    const cmd = pickCommand(actions, "seer.showWitness");
    assert.ok(cmd);
    const witness = (await conn.sendRequest("workspace/executeCommand", { command: cmd.command, arguments: cmd.arguments })) as { uri: string };
    assert.ok(witness?.uri, `witness answer ${JSON.stringify(witness)}`);
    assert.deepEqual(shown, [witness.uri], "opened with window/showDocument");
    const schedule = readFileSync(pathOf(witness.uri), "utf8");
    assert.match(schedule, /TestAudit/);
    assert.ok(schedule.includes(`bank.go:${writeLine + 1}`), schedule);

    // The extension's own path for the quick fix: the controller's
    // middleware asks for the picture and opens it in a webview.
    stub.reset();
    // The client is the extension's adapter over what LanguageClient does
    // with its arguments (hands them all to the connection), so the
    // requests reach seer serve as VS Code sends them.
    const ctl = new Controller(() =>
      seerClient({
        sendRequest: (method, ...params) => conn.sendRequest(method, ...params) as Promise<unknown>,
        sendNotification: (method, params) => conn.sendNotification(method, params),
        onProgress: () => new Disposable(),
      }),
    );
    await ctl.executeCommand(cmd.command, cmd.arguments ?? [], () => assert.fail("the middleware passed seer.showWitness on"));
    assert.equal(stub.panels.length, 1, "a webview panel is created");
    const html = stub.panels[0].webview.html;
    assert.match(html, /^<!DOCTYPE html>/);
    assert.equal((html.match(/data-bug-access="(read|write)"/g) ?? []).length, 2, "the two accesses are highlighted");
    assert.ok(html.includes(`bank.go:${writeLine + 1}`), "the picture names the write's line");
    assert.ok(!/<script|https?:\/\/(?!www\.w3\.org)/.test(html), "the page is self-contained");
    assert.match(stub.panels[0].title, /^Witness: data race on a\.note/);
    assert.deepEqual(shown, [witness.uri], "the picture is not opened with window/showDocument");
    ctl.dispose();

    // And "Go to the other access" answers the read.
    const other = pickCommand(actions, "seer.showOtherAccess")!;
    const loc = (await conn.sendRequest("workspace/executeCommand", { command: other.command, arguments: other.arguments })) as {
      uri: string;
      range?: { start: { line: number } };
    };
    assert.equal(pathOf(loc.uri), bankFile);
    assert.equal(loc.range?.start.line, readLine);

    await conn.sendRequest("shutdown");
    await conn.sendNotification("exit");
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([exited, new Promise((r) => (timer = setTimeout(() => r("still running"), 10_000)))]);
    clearTimeout(timer);
    assert.equal(code, 0, "seer serve exits 0 after shutdown and exit");
    t.diagnostic(`done after ${elapsed()}`);
  } catch (e) {
    if (stderr) {
      console.error("seer serve stderr (last 4000 bytes):\n" + stderr.slice(-4000));
    }
    throw e;
  } finally {
    conn.dispose();
    if (proc.exitCode === null) {
      proc.kill();
    }
    found.cleanup();
  }
});
