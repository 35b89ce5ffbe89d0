// The witness schedule as a picture: the server draws it (seer.showWitness
// with html: true answers a self-contained page, report.WitnessHTML) and
// the extension shows it in one webview panel, beside the code. The page
// has no script and fetches nothing, so the panel enables neither.

import * as vscode from "vscode";

/** The answer of seer.showWitness when asked for the picture. */
export interface WitnessPage {
  uri: string;
  html: string;
}

export function isWitnessPage(v: unknown): v is WitnessPage {
  return !!v && typeof v === "object" && typeof (v as WitnessPage).uri === "string" && typeof (v as WitnessPage).html === "string";
}

/** The arguments of seer.showWitness, asking for the picture. */
export function pictureArgs(args: readonly unknown[]): unknown[] {
  const first = args[0];
  if (!first || typeof first !== "object") {
    return [...args];
  }
  return [{ ...(first as object), html: true }, ...args.slice(1)];
}

/** The panel's title: the page's <title>, without "seer witness: ". */
export function pageTitle(html: string): string {
  const m = /<title>([^<]*)<\/title>/.exec(html);
  if (!m) {
    return "seer witness";
  }
  const text = m[1]
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&#34;|&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
  return "Witness: " + text.replace(/^seer witness: /, "");
}

export const witnessViewType = "seer.witness";

/** Where the panel's page is kept across reloads (an ExtensionContext's workspaceState). */
export interface PageStore {
  get<T>(key: string): T | undefined;
  update(key: string, value: unknown): Thenable<void>;
}

export const witnessStateKey = "seer.witness.page";

/**
 * One webview panel that shows the last witness asked for. The page has
 * no script, so the webview keeps no state of its own: the page is kept
 * in the store, and a panel that VS Code brings back after a reload (the
 * WebviewPanelSerializer of witnessViewType) is given it again.
 */
export class WitnessView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private closing = false;

  constructor(private readonly store?: PageStore) {}

  show(page: WitnessPage): vscode.WebviewPanel {
    if (!this.panel) {
      this.adopt(
        vscode.window.createWebviewPanel(
          witnessViewType,
          pageTitle(page.html),
          { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
          webviewOptions,
        ),
      );
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside);
    }
    this.render(this.panel!, page);
    void this.store?.update(witnessStateKey, page);
    return this.panel!;
  }

  /**
   * Takes back a panel that VS Code restored after a reload, with the
   * page it showed; a panel whose page is gone is closed.
   */
  restore(panel: vscode.WebviewPanel): void {
    const page = this.store?.get<unknown>(witnessStateKey);
    if (!isWitnessPage(page)) {
      panel.dispose();
      return;
    }
    if (this.panel && this.panel !== panel) {
      this.panel.dispose();
    }
    this.adopt(panel);
    this.render(panel, page);
  }

  private adopt(panel: vscode.WebviewPanel): void {
    this.panel = panel;
    panel.onDidDispose(() => {
      if (this.panel === panel) {
        this.panel = undefined;
        // Closed by the user: nothing to bring back. (Not when the
        // extension itself is going away, as on a reload.)
        if (!this.closing) {
          void this.store?.update(witnessStateKey, undefined);
        }
      }
    });
  }

  private render(panel: vscode.WebviewPanel, page: WitnessPage): void {
    panel.title = pageTitle(page.html);
    panel.webview.options = { enableScripts: false, localResourceRoots: [] };
    panel.webview.html = page.html;
  }

  dispose(): void {
    this.closing = true; // the page stays in the store for the next window
    this.panel?.dispose();
    this.panel = undefined;
  }
}

const webviewOptions = { enableScripts: false, localResourceRoots: [], retainContextWhenHidden: false };
