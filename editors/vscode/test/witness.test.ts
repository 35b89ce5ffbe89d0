// The witness picture: "Show witness schedule" (the quick fix, through
// the executeCommand middleware) and "Show Witness of Finding at Cursor"
// open the page the server answers in a webview panel.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { Controller, SeerClient } from "../src/controller";
import { pageTitle, pictureArgs, witnessStateKey, witnessViewType } from "../src/witness";
import { Disposable, Range, stub, Uri, ViewColumn, window } from "./vscode-stub";

const page = (v: string) =>
  `<!DOCTYPE html>\n<html lang="en">\n<head>\n<title>seer witness: data race on ${v} (TestAudit)</title>\n</head>\n<body><svg><g class="step bug" data-bug-access="write"></g><g class="step bug" data-bug-access="read"></g></svg></body></html>\n`;

interface Sent {
  method: string;
  params: any;
}

function fakeClient(answer: (s: Sent) => unknown): SeerClient & { sent: Sent[] } {
  const sent: Sent[] = [];
  return {
    sent,
    async sendRequest(method: string, params: unknown) {
      const s = { method, params: params as any };
      sent.push(s);
      return answer(s);
    },
    async sendNotification() {},
    onProgress: () => new Disposable(),
  };
}

beforeEach(() => stub.reset());

test("pictureArgs adds html to the finding's argument, and pageTitle reads the page's title", () => {
  assert.deepEqual(pictureArgs([{ finding: 4, access: 1 }]), [{ finding: 4, access: 1, html: true }]);
  assert.deepEqual(pictureArgs([]), []);
  assert.equal(pageTitle(page("a.note")), "Witness: data race on a.note (TestAudit)");
  assert.equal(pageTitle("<title>seer witness: data race on m[&#34;k&#34;] &amp; more</title>"), 'Witness: data race on m["k"] & more');
  assert.equal(pageTitle("<p>no title</p>"), "seer witness");
});

test("the Show witness schedule quick fix opens the server's picture in a webview", async () => {
  const client = fakeClient((s) =>
    s.params.command === "seer.showWitness" ? { uri: "file:///tmp/seer-witness-1/TestAudit-race-4.html", html: page(`a.note${s.params.arguments[0].finding}`) } : null,
  );
  const ctl = new Controller(() => client);
  let passedOn = false;
  const next = () => {
    passedOn = true;
    return null;
  };
  // The language client runs the quick fix's command through the middleware.
  await ctl.executeCommand("seer.showWitness", [{ finding: 4, access: 0 }], next);
  assert.equal(passedOn, false, "the middleware runs the command itself");
  assert.deepEqual(client.sent[0].params, { command: "seer.showWitness", arguments: [{ finding: 4, access: 0, html: true }] });
  assert.equal(stub.panels.length, 1);
  const panel = stub.panels[0];
  assert.equal(panel.viewType, witnessViewType);
  assert.equal(panel.title, "Witness: data race on a.note4 (TestAudit)");
  assert.equal(panel.webview.html, page("a.note4"), "the panel shows the server's page as it is");
  assert.equal((panel.webview.html.match(/data-bug-access=/g) ?? []).length, 2);
  assert.equal(panel.options.enableScripts, false);
  assert.deepEqual(panel.options.localResourceRoots, []);
  assert.deepEqual(panel.showOptions, { viewColumn: ViewColumn.Beside, preserveFocus: false });
  assert.equal(stub.shown.length, 0, "no text document is opened");

  // Another witness reuses the panel.
  await ctl.executeCommand("seer.showWitness", [{ finding: 5, access: 1 }], next);
  assert.equal(stub.panels.length, 1);
  assert.equal(panel.revealed, 1);
  assert.equal(panel.webview.html, page("a.note5"));
  // Closed, the next one opens a new panel.
  panel.dispose();
  await ctl.executeCommand("seer.showWitness", [{ finding: 6, access: 0 }], next);
  assert.equal(stub.panels.length, 2);
  // Other commands pass on.
  await ctl.executeCommand("seer.showOtherAccess", [{ finding: 6, access: 0 }], next);
  assert.equal(passedOn, true);
  ctl.dispose();
  assert.equal(stub.panels[1].disposed, true, "disposing the controller closes the panel");
});

test("Show Witness of Finding at Cursor opens the picture too", async () => {
  const uri = "file:///w/bank/bank.go";
  stub.diagnostics.set(uri, [{ source: "seer", range: new Range(20, 1, 20, 7), message: "data race on a.note" }]);
  const client = fakeClient((s) => {
    if (s.method === "textDocument/codeAction") {
      return [{ title: "Show witness schedule", command: { title: "Show witness schedule", command: "seer.showWitness", arguments: [{ finding: 2, access: 0 }] } }];
    }
    return { uri: "file:///tmp/w.html", html: page("a.note") };
  });
  const ctl = new Controller(() => client);
  const editor = {
    document: { uri: Uri.parse(uri), languageId: "go", getText: () => "", offsetAt: () => 0 },
    selection: { active: { line: 20, character: 3 } },
  };
  const shown = await ctl.showWitnessAtCursor(editor as any);
  assert.deepEqual(shown, { uri: "file:///tmp/w.html", html: page("a.note") });
  assert.deepEqual(client.sent[1].params.arguments, [{ finding: 2, access: 0, html: true }]);
  assert.equal(stub.panels.length, 1);
  assert.equal(stub.panels[0].webview.html, page("a.note"));
});

test("a witness request the server refuses is shown as an error, not dropped", async () => {
  const uri = "file:///w/bank/bank.go";
  stub.diagnostics.set(uri, [{ source: "seer", range: new Range(20, 1, 20, 7), message: "data race on a.note" }]);
  const refusal = new Error("json: cannot unmarshal array into Go value of type protocol.ExecuteCommandParams");
  const ctl = new Controller(() => ({
    sendRequest: async () => {
      throw refusal;
    },
    sendNotification: async () => {},
    onProgress: () => new Disposable(),
  }));
  assert.equal(await ctl.executeCommand("seer.showWitness", [{ finding: 4, access: 0 }], () => null), undefined);
  const editor = { document: { uri: Uri.parse(uri), languageId: "go" }, selection: { active: { line: 20, character: 3 } } };
  assert.equal(await ctl.showWitnessAtCursor(editor as any), undefined);
  assert.deepEqual(stub.messages, [
    { level: "error", text: `seer: could not show the witness schedule: ${refusal.message}` },
    { level: "error", text: `seer: could not ask for the finding's quick fixes: ${refusal.message}` },
  ]);
  assert.equal(stub.panels.length, 0);
});

/** An ExtensionContext.workspaceState. */
function memento() {
  const m = new Map<string, unknown>();
  return {
    m,
    get<T>(key: string): T | undefined {
      return m.get(key) as T | undefined;
    },
    async update(key: string, value: unknown) {
      if (value === undefined) m.delete(key);
      else m.set(key, value);
    },
  };
}

/** A panel as VS Code hands it to the WebviewPanelSerializer after a reload. */
function restoredPanel() {
  const panel = window.createWebviewPanel(witnessViewType, "old title", {}) as any;
  stub.panels.length = 0;
  return panel;
}

test("the witness panel comes back after a reload with its page (WebviewPanelSerializer)", async () => {
  const state = memento();
  const client = fakeClient(() => ({ uri: "file:///tmp/w.html", html: page("a.note") }));
  const before = new Controller(() => client, state);
  await before.executeCommand("seer.showWitness", [{ finding: 4, access: 0 }], () => null);
  assert.deepEqual(state.get(witnessStateKey), { uri: "file:///tmp/w.html", html: page("a.note") }, "the page is kept");
  before.dispose(); // the window reloads: the extension goes away
  assert.ok(state.get(witnessStateKey), "going away keeps the page");

  const after = new Controller(() => undefined, state);
  const panel = restoredPanel();
  after.restoreWitness(panel);
  assert.equal(panel.webview.html, page("a.note"));
  assert.equal(panel.title, "Witness: data race on a.note (TestAudit)");
  assert.equal(panel.webview.options.enableScripts, false);
  assert.equal(panel.disposed, false);

  // The restored panel is the one the next witness reuses.
  client.sent.length = 0;
  const again = new Controller(() => client, state);
  again.restoreWitness(panel);
  await again.executeCommand("seer.showWitness", [{ finding: 5, access: 0 }], () => null);
  assert.equal(stub.panels.length, 0, "no new panel");
  assert.equal(panel.revealed, 1);

  // Closed by the user, it is not brought back.
  panel.dispose();
  assert.equal(state.get(witnessStateKey), undefined);
  const none = restoredPanel();
  new Controller(() => undefined, state).restoreWitness(none);
  assert.equal(none.disposed, true, "a panel without its page is closed");
});
