// The extension's behaviour on top of a running client: the commands, the
// trust gate on recording, the status bar and the middleware that the
// language client calls. It talks to the client through SeerClient only,
// so tests drive it with a fake client and a stubbed vscode module.

import * as vscode from "vscode";
import { enclosingTest } from "./gotest";
import { isShownDocument, pickCommand, seerDiagnosticAt, ShownDocument } from "./pick";
import { serverKeys, serverSettings } from "./settings";
import { PredictResult, predictTitle, ProgressValue, ServerState, StatusModel, summarize } from "./status";
import { isWitnessPage, PageStore, pictureArgs, WitnessPage, WitnessView } from "./witness";

/** What the controller needs of the language client. */
export interface SeerClient {
  sendRequest(method: string, params: unknown, token?: vscode.CancellationToken): Promise<unknown>;
  sendNotification(method: string, params: unknown): Promise<void>;
  /** Calls handler with the $/progress values sent under token. */
  onProgress(token: string, handler: (v: ProgressValue) => void): vscode.Disposable;
}

/** The server's command names (lsp/general.go). */
export const serverCommands = {
  predict: "seer.predict",
  showWitness: "seer.showWitness",
  showOtherAccess: "seer.showOtherAccess",
} as const;

/** The extension's own command names (package.json). */
export const extensionCommands = {
  restart: "seer.restartServer",
  predictAtCursor: "seer.predictTestAtCursor",
  exploreAtCursor: "seer.exploreTestAtCursor",
  showWitnessAtCursor: "seer.showWitnessAtCursor",
} as const;

export interface PredictArgs {
  uri: string;
  test?: string;
  /** Steered runs after the first (the "seer: explore" lens; lsp/job.go). */
  explore?: boolean;
}

export const untrustedMessage =
  "seer: this workspace is not trusted, and predicting runs its tests. Trust the workspace (Workspaces: Manage Workspace Trust) to record.";

export class Controller implements vscode.Disposable {
  readonly status = new StatusModel();
  private readonly item: vscode.StatusBarItem;
  private readonly disposables: vscode.Disposable[] = [];
  private readonly witnessView: WitnessView;
  private seq = 0;

  /** state keeps the witness panel's page across reloads (the extension's workspaceState). */
  constructor(
    private readonly client: () => SeerClient | undefined,
    state?: PageStore,
  ) {
    this.witnessView = new WitnessView(state);
    this.item = vscode.window.createStatusBarItem("seer.status", vscode.StatusBarAlignment.Left, 0);
    this.item.name = "seer";
    this.item.command = "workbench.actions.view.problems";
    this.render();
    this.item.show();
    this.disposables.push(this.item, this.witnessView);
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
  }

  setServerState(state: ServerState): void {
    this.status.setServer(state);
    this.render();
  }

  private render(): void {
    const v = this.status.view();
    this.item.text = v.text;
    this.item.tooltip = v.tooltip;
  }

  /**
   * Runs the server's seer.predict with a progress token of ours, so that
   * the status bar and a cancellable notification follow it. Refused in an
   * untrusted workspace: recording builds and runs the workspace's tests.
   */
  async predict(args: PredictArgs): Promise<PredictResult | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage(untrustedMessage);
      return undefined;
    }
    const client = this.client();
    if (!client) {
      void vscode.window.showErrorMessage("seer: the language server is not running (seer: Restart Language Server).");
      return undefined;
    }
    const key = `seer-vscode-${++this.seq}`;
    const title = predictTitle(args.test, args.explore);
    this.status.begin(key, title);
    this.render();
    let result: PredictResult | undefined;
    try {
      result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: "seer: " + title, cancellable: true },
        async (progress, cancel) => {
          const sub = client.onProgress(key, (v) => {
            this.status.progress(key, v);
            this.render();
            if (v.message && v.kind !== "end") {
              progress.report({ message: v.message });
            }
          });
          try {
            return (await client.sendRequest(
              "workspace/executeCommand",
              { command: serverCommands.predict, arguments: [args], workDoneToken: key },
              cancel,
            )) as PredictResult | undefined;
          } catch (e) {
            if (cancel.isCancellationRequested) {
              return { findings: 0, predicted: 0, cancelled: true };
            }
            throw e;
          } finally {
            sub.dispose();
          }
        },
      );
    } catch (e) {
      result = { findings: 0, predicted: 0, error: errorText(e) };
    }
    this.status.end(key, result);
    this.render();
    if (result?.error) {
      void vscode.window.showErrorMessage(`seer: ${title}: ${summarize(result)}`);
    }
    return result;
  }

  /**
   * seer.predictTestAtCursor: predicts the test whose function holds the
   * cursor; seer.exploreTestAtCursor (explore) as its "seer: explore" lens does.
   */
  async predictAtCursor(editor = vscode.window.activeTextEditor, explore = false): Promise<PredictResult | undefined> {
    if (!editor || editor.document.languageId !== "go") {
      void vscode.window.showInformationMessage("seer: open a Go test file and put the cursor in a test function.");
      return undefined;
    }
    const doc = editor.document;
    const test = enclosingTest(doc.getText(), doc.offsetAt(editor.selection.active));
    if (!test) {
      void vscode.window.showInformationMessage("seer: the cursor is not in a test function (func TestXxx(t *testing.T)).");
      return undefined;
    }
    if (doc.isDirty) {
      await doc.save();
    }
    return this.predict(explore ? { uri: doc.uri.toString(), test, explore } : { uri: doc.uri.toString(), test });
  }

  /**
   * seer.showWitnessAtCursor: asks the server for the quick fixes of the
   * finding under the cursor and runs its "Show witness schedule".
   */
  async showWitnessAtCursor(editor = vscode.window.activeTextEditor): Promise<ShownDocument | WitnessPage | undefined> {
    const client = this.client();
    if (!editor || !client) {
      return undefined;
    }
    const pos = editor.selection.active;
    const diag = seerDiagnosticAt(vscode.languages.getDiagnostics(editor.document.uri), pos);
    if (!diag) {
      void vscode.window.showInformationMessage("seer: no finding under the cursor.");
      return undefined;
    }
    const range = {
      start: { line: diag.range.start.line, character: diag.range.start.character },
      end: { line: diag.range.end.line, character: diag.range.end.character },
    };
    let actions: unknown[] | null;
    try {
      actions = (await client.sendRequest("textDocument/codeAction", {
        textDocument: { uri: editor.document.uri.toString() },
        range,
        context: { diagnostics: [], only: ["quickfix"] },
      })) as unknown[] | null;
    } catch (e) {
      void vscode.window.showErrorMessage(`seer: could not ask for the finding's quick fixes: ${errorText(e)}`);
      return undefined;
    }
    const cmd = pickCommand(actions, serverCommands.showWitness);
    if (!cmd) {
      void vscode.window.showInformationMessage("seer: the server has no witness for this finding (was the test re-run?).");
      return undefined;
    }
    return this.showWitness(cmd.arguments ?? []);
  }

  /**
   * Runs the server's seer.showWitness asking for the picture, and shows
   * it in the witness panel; a server that answers no picture (an older
   * seer) has its text document opened instead.
   */
  async showWitness(args: readonly unknown[]): Promise<ShownDocument | WitnessPage | undefined> {
    const client = this.client();
    if (!client) {
      return undefined;
    }
    let shown: unknown;
    try {
      shown = await client.sendRequest("workspace/executeCommand", { command: serverCommands.showWitness, arguments: pictureArgs(args) });
    } catch (e) {
      void vscode.window.showErrorMessage(`seer: could not show the witness schedule: ${errorText(e)}`);
      return undefined;
    }
    if (isWitnessPage(shown)) {
      this.witnessView.show(shown);
      return shown;
    }
    if (isShownDocument(shown)) {
      await this.open(shown);
      return shown;
    }
    return undefined;
  }

  /** Shows the witness again in a panel that VS Code restored after a reload. */
  restoreWitness(panel: vscode.WebviewPanel): void {
    this.witnessView.restore(panel);
  }

  /** Opens what a show command answered (the server may have opened it already). */
  private async open(shown: ShownDocument): Promise<void> {
    const uri = vscode.Uri.parse(shown.uri);
    const r = shown.range;
    const selection = r ? new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character) : undefined;
    await vscode.window.showTextDocument(uri, { preview: true, selection });
  }

  /**
   * Middleware for workspace/executeCommand: predictions go through
   * predict, and "Show witness schedule" opens the picture.
   */
  executeCommand = (command: string, args: unknown[], next: (command: string, args: unknown[]) => unknown): unknown => {
    if (command === serverCommands.predict) {
      return this.predict((args[0] ?? {}) as PredictArgs);
    }
    if (command === serverCommands.showWitness) {
      return this.showWitness(args);
    }
    return next(command, args);
  };

  /** Middleware for workspace/configuration: the server's settings only. */
  configuration = async (
    params: unknown,
    token: vscode.CancellationToken,
    next: (params: any, token: vscode.CancellationToken) => unknown,
  ): Promise<any> => {
    const result = await next(params, token);
    if (!Array.isArray(result)) {
      return result;
    }
    const items = ((params as { items?: { section?: string }[] }).items ?? []);
    return result.map((v, i) => (items[i]?.section === "seer" ? serverSettings(v, vscode.workspace.isTrusted) : v));
  };

  /** Tells the server to fetch its configuration again. */
  async configurationChanged(): Promise<void> {
    const client = this.client();
    if (client) {
      const c = vscode.workspace.getConfiguration("seer");
      const section = Object.fromEntries(serverKeys.map((k) => [k, c.get(k)]));
      const settings = serverSettings(section, vscode.workspace.isTrusted);
      await client.sendNotification("workspace/didChangeConfiguration", { settings: { seer: settings } });
    }
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
