// The adapter between the controller and vscode-languageclient: requests
// go through the real JSON-RPC stack (vscode-languageserver-protocol's
// connection, which LanguageClient.sendRequest hands its arguments to) to
// a raw server end that records each message as it arrives on the wire.
// Issue 29: an `undefined` cancellation token handed on was sent as a
// second parameter, "params": [params, null], which seer serve (Go's
// go.lsp.dev/protocol) cannot decode.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import {
  CancellationTokenSource,
  createProtocolConnection,
  Message,
  ProtocolConnection,
  RequestMessage,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-languageserver-protocol/node";
import { LanguageClientLike, seerClient } from "../src/adapter";
import { Disposable } from "./vscode-stub";

/**
 * A client connection and the server end of its wire: every message the
 * client sends, as decoded JSON, and a writer to answer.
 */
function wire(onMessage: (m: Message, answer: (id: number | string, result: unknown) => void) => void): ProtocolConnection {
  const up = new PassThrough();
  const down = new PassThrough();
  const client = createProtocolConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  const reader = new StreamMessageReader(up);
  const writer = new StreamMessageWriter(down);
  reader.listen((m) => onMessage(m, (id, result) => void writer.write({ jsonrpc: "2.0", id, result } as Message)));
  client.listen();
  return client;
}

/** What LanguageClient.sendRequest does without middleware: all its arguments to the connection. */
function languageClient(conn: ProtocolConnection): LanguageClientLike {
  return {
    sendRequest: (method, ...params) => conn.sendRequest(method, ...params) as Promise<unknown>,
    sendNotification: (method, params) => conn.sendNotification(method, params),
    onProgress: () => new Disposable(),
  };
}

const params = { command: "seer.showWitness", arguments: [{ finding: 1, access: 0, html: true }] };

const cases: { name: string; token: () => CancellationTokenSource | undefined }[] = [
  { name: "without a token", token: () => undefined },
  { name: "with a token", token: () => new CancellationTokenSource() },
];

for (const c of cases) {
  test(`sendRequest ${c.name} puts the params object itself on the wire`, async () => {
    const got: unknown[] = [];
    const client = wire((m, answer) => {
      const r = m as RequestMessage;
      got.push(r.params);
      answer(r.id!, { ok: true });
    });
    const src = c.token();
    const answer = await seerClient(languageClient(client)).sendRequest("workspace/executeCommand", params, src?.token);
    assert.deepEqual(answer, { ok: true });
    assert.deepEqual(got, [params], "the request's params are the object, not [params, null]");
    client.dispose();
  });
}

test("the token is handed on: cancelling it sends $/cancelRequest for the request", async () => {
  let requestID: number | string | undefined;
  let arrived!: () => void;
  const requested = new Promise<void>((r) => (arrived = r));
  let cancelled!: (id: unknown) => void;
  const cancel = new Promise<unknown>((r) => (cancelled = r));
  const client = wire((m, answer) => {
    const r = m as RequestMessage;
    if (r.method === "$/cancelRequest") {
      cancelled((r.params as { id: unknown }).id);
      answer(requestID!, null);
    } else {
      requestID = r.id!;
      arrived();
    }
  });
  const src = new CancellationTokenSource();
  const answer = seerClient(languageClient(client)).sendRequest("workspace/executeCommand", params, src.token);
  await requested;
  src.cancel();
  assert.equal(await cancel, requestID, "$/cancelRequest names the request");
  await answer.catch(() => undefined);
  client.dispose();
});
