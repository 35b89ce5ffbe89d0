// The controller against the stubbed vscode module and a fake client.

import assert from "node:assert/strict";
import { beforeEach, test } from "node:test";
import { Controller, SeerClient, untrustedMessage } from "../src/controller";
import { ProgressValue } from "../src/status";
import { Disposable, Position, Range, stub, Uri } from "./vscode-stub";

interface Sent {
  method: string;
  params: any;
  token?: unknown;
}

class FakeClient implements SeerClient {
  sent: Sent[] = [];
  notified: Sent[] = [];
  handlers = new Map<string, (v: ProgressValue) => void>();
  answer: (s: Sent) => Promise<unknown> = async () => null;
  async sendRequest(method: string, params: unknown, token?: unknown): Promise<unknown> {
    const s = { method, params, token };
    this.sent.push(s);
    return this.answer(s);
  }
  async sendNotification(method: string, params: unknown): Promise<void> {
    this.notified.push({ method, params });
  }
  onProgress(token: string, handler: (v: ProgressValue) => void) {
    this.handlers.set(token, handler);
    return new Disposable(() => this.handlers.delete(token));
  }
}

const goFile = `package bank

import "testing"

func TestAudit(t *testing.T) {
	a := &Account{}
	_ = a
}
`;

function editor(text: string, line: number, character: number, uri = "file:///w/bank/bank_test.go") {
  const lines = text.split("\n");
  return {
    document: {
      uri: Uri.parse(uri),
      languageId: "go",
      isDirty: false,
      getText: () => text,
      offsetAt: (p: Position) => lines.slice(0, p.line).reduce((n, l) => n + l.length + 1, 0) + p.character,
      save: async () => true,
    },
    selection: { active: new Position(line, character) },
  };
}

let client: FakeClient;
let ctl: Controller;

beforeEach(() => {
  stub.reset();
  client = new FakeClient();
  ctl = new Controller(() => client);
  ctl.setServerState("running");
});

const item = () => stub.items[0];

test("the status bar item is shown", () => {
  assert.equal(stub.items.length, 1);
  assert.equal(item().shown, true);
  assert.equal(item().text, "$(eye) seer");
  ctl.setServerState("stopped");
  assert.equal(item().text, "$(debug-disconnect) seer");
  ctl.dispose();
  assert.equal(item().disposed, true);
});

test("predict sends seer.predict with our progress token and follows it", async () => {
  let during = "";
  client.answer = async (s) => {
    const report = client.handlers.get(s.params.workDoneToken)!;
    report({ kind: "begin", title: "seer: predicting TestAudit", message: "waiting" });
    report({ kind: "report", message: "running" });
    during = item().text;
    report({ kind: "end", message: "2 findings" });
    return { findings: 2, predicted: 2, tests: [] };
  };
  const r = await ctl.predict({ uri: "file:///w/bank/bank_test.go", test: "TestAudit" });
  assert.deepEqual(r, { findings: 2, predicted: 2, tests: [] });
  assert.equal(client.sent.length, 1);
  const s = client.sent[0];
  assert.equal(s.method, "workspace/executeCommand");
  assert.equal(s.params.command, "seer.predict");
  assert.deepEqual(s.params.arguments, [{ uri: "file:///w/bank/bank_test.go", test: "TestAudit" }]);
  assert.match(s.params.workDoneToken, /^seer-vscode-\d+$/);
  assert.ok(s.token, "a cancellation token is passed");
  assert.equal(during, "$(sync~spin) seer: predicting TestAudit: running");
  assert.equal(item().text, "$(warning) seer: 2 findings");
  assert.deepEqual(stub.progress[0].messages, ["waiting", "running"]);
  assert.equal(stub.progress[0].title, "seer: predicting TestAudit");
  assert.equal(client.handlers.size, 0, "the progress handler is disposed");
});

test("cancelling the notification cancels the request", async () => {
  stub.onProgressStart = (source) => setTimeout(() => source.cancel(), 5);
  client.answer = (s) =>
    new Promise((_, reject) => {
      (s.token as { onCancellationRequested(l: () => void): void }).onCancellationRequested(() => reject(new Error("cancelled")));
    });
  const r = await ctl.predict({ uri: "file:///w/bank/bank_test.go", test: "TestAudit" });
  assert.equal(r?.cancelled, true);
  assert.equal(item().text, "$(check) seer: cancelled");
});

test("a failing request is reported", async () => {
  client.answer = async () => {
    throw new Error("seer: x is not a Go file in the workspace");
  };
  const r = await ctl.predict({ uri: "file:///elsewhere/x.txt" });
  assert.match(r?.error ?? "", /not a Go file/);
  assert.match(item().text, /^\$\(error\)/);
  assert.equal(stub.messages.at(-1)?.level, "error");
});

test("an untrusted workspace never records", async () => {
  stub.trusted = false;
  assert.equal(await ctl.predict({ uri: "file:///w/bank/bank_test.go", test: "TestAudit" }), undefined);
  // The lens and the quick fix go through the middleware.
  let passed = false;
  const r = await ctl.executeCommand("seer.predict", [{ uri: "file:///w/bank/bank_test.go" }], () => (passed = true));
  assert.equal(r, undefined);
  assert.equal(passed, false);
  stub.activeTextEditor = editor(goFile, 5, 2);
  assert.equal(await ctl.predictAtCursor(), undefined);
  assert.equal(client.sent.length, 0);
  assert.deepEqual(
    stub.messages.map((m) => m.text),
    [untrustedMessage, untrustedMessage, untrustedMessage],
  );
});

test("the middleware routes seer.predict through predict and the rest to the server", async () => {
  client.answer = async () => ({ findings: 0, predicted: 0 });
  const r = await ctl.executeCommand("seer.predict", [{ uri: "file:///w/bank/bank_test.go", test: "TestAudit" }], () => {
    throw new Error("next must not be called");
  });
  assert.deepEqual(r, { findings: 0, predicted: 0 });
  assert.equal(client.sent[0].params.workDoneToken !== undefined, true);
  const other = ctl.executeCommand("seer.showOtherAccess", [{ finding: 1, access: 0 }], (c, a) => ({ via: c, a }));
  assert.deepEqual(other, { via: "seer.showOtherAccess", a: [{ finding: 1, access: 0 }] });
});

test("the configuration middleware sends only the server's settings", async () => {
  const next = async () => [{ path: "/x/seer", trace: { server: "off" }, timeout: "90s", runOnSave: true }, { editor: 1 }];
  const params = { items: [{ section: "seer" }, { section: "editor" }] };
  assert.deepEqual(await ctl.configuration(params, new (class {})() as any, next), [{ timeout: "90s", runOnSave: true }, { editor: 1 }]);
  stub.trusted = false;
  assert.deepEqual(await ctl.configuration(params, {} as any, next), [{ timeout: "90s", runOnSave: false }, { editor: 1 }]);
});

test("a configuration change is pushed to the server", async () => {
  stub.config = { "seer.path": "/x", "seer.timeout": "1m", "seer.runOnSave": true };
  await ctl.configurationChanged();
  assert.deepEqual(client.notified, [{ method: "workspace/didChangeConfiguration", params: { settings: { seer: { timeout: "1m", runOnSave: true } } } }]);
});

test("predict at the cursor finds the enclosing test", async () => {
  client.answer = async () => ({ findings: 1, predicted: 1 });
  stub.activeTextEditor = editor(goFile, 5, 3);
  const r = await ctl.predictAtCursor();
  assert.deepEqual(r, { findings: 1, predicted: 1 });
  assert.deepEqual(client.sent[0].params.arguments, [{ uri: "file:///w/bank/bank_test.go", test: "TestAudit" }]);

  stub.activeTextEditor = editor(goFile, 0, 3);
  assert.equal(await ctl.predictAtCursor(), undefined);
  assert.match(stub.messages.at(-1)!.text, /not in a test function/);
  assert.equal(client.sent.length, 1);
});

test("explore at the cursor asks for the enclosing test's exploration, as its lens does", async () => {
  client.answer = async () => ({ findings: 1, predicted: 1 });
  stub.activeTextEditor = editor(goFile, 5, 3);
  const r = await ctl.predictAtCursor(undefined, true);
  assert.deepEqual(r, { findings: 1, predicted: 1 });
  assert.deepEqual(client.sent[0].params.arguments, [{ uri: "file:///w/bank/bank_test.go", test: "TestAudit", explore: true }]);
});

test("show witness at the cursor asks for the quick fixes and runs the witness one (a server without pictures: the text)", async () => {
  const uri = "file:///w/bank/bank.go";
  stub.diagnostics.set(uri, [
    { source: "seer", range: new Range(17, 1, 17, 7), message: "data race on a.note" },
  ]);
  client.answer = async (s) => {
    if (s.method === "textDocument/codeAction") {
      return [
        { title: "Go to the other access", command: { title: "Go", command: "seer.showOtherAccess", arguments: [{ finding: 4, access: 0 }] } },
        { title: "Show witness schedule", command: { title: "Show witness schedule", command: "seer.showWitness", arguments: [{ finding: 4, access: 0 }] } },
      ];
    }
    return { uri: "file:///tmp/seer-witness-1/TestAudit-4.txt" };
  };
  stub.activeTextEditor = editor("package bank\n", 17, 4, uri);
  const shown = await ctl.showWitnessAtCursor();
  assert.deepEqual(shown, { uri: "file:///tmp/seer-witness-1/TestAudit-4.txt" });
  assert.equal(client.sent[0].method, "textDocument/codeAction");
  assert.deepEqual(client.sent[0].params.range, { start: { line: 17, character: 1 }, end: { line: 17, character: 7 } });
  assert.deepEqual(client.sent[1].params, { command: "seer.showWitness", arguments: [{ finding: 4, access: 0, html: true }] });
  assert.equal(stub.panels.length, 0, "no webview without a page");
  assert.equal(stub.shown[0].uri, "file:///tmp/seer-witness-1/TestAudit-4.txt");

  stub.activeTextEditor = editor("package bank\n", 3, 0, uri);
  assert.equal(await ctl.showWitnessAtCursor(), undefined);
  assert.match(stub.messages.at(-1)!.text, /no finding under the cursor/);
});
