// The controller's SeerClient over vscode-languageclient's LanguageClient.
//
// LanguageClient.sendRequest(method, ...params) hands its arguments to
// vscode-jsonrpc, which takes a last argument for a CancellationToken only
// when it is one: an `undefined` token passed along is sent as a second
// parameter, so the server receives [params, null] instead of params
// (issue 29: "Show witness schedule" failed with "cannot unmarshal ... into
// protocol.ExecuteCommandParams"). The adapter passes a token only when
// there is one.

import type * as vscode from "vscode";
import { WorkDoneProgress } from "vscode-languageserver-protocol";
import type { SeerClient } from "./controller";
import type { ProgressValue } from "./status";

/** What the adapter needs of a LanguageClient (its own signatures). */
export interface LanguageClientLike {
  sendRequest(method: string, ...params: any[]): Promise<unknown>;
  sendNotification(method: string, params?: any): Promise<void>;
  onProgress(type: typeof WorkDoneProgress.type, token: string | number, handler: (v: any) => void): vscode.Disposable;
}

export function seerClient(c: LanguageClientLike): SeerClient {
  return {
    sendRequest: (method, params, token) => (token ? c.sendRequest(method, params, token) : c.sendRequest(method, params)),
    sendNotification: (method, params) => c.sendNotification(method, params),
    onProgress: (token, handler) => c.onProgress(WorkDoneProgress.type, token, (v) => handler(v as ProgressValue)),
  };
}
