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

/** One webview panel that shows the last witness asked for. */
export class WitnessView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;

  show(page: WitnessPage): vscode.WebviewPanel {
    const title = pageTitle(page.html);
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        witnessViewType,
        title,
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { enableScripts: false, localResourceRoots: [], retainContextWhenHidden: false },
      );
      this.panel.onDidDispose(() => (this.panel = undefined));
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside);
    }
    this.panel.title = title;
    this.panel.webview.html = page.html;
    return this.panel;
  }

  dispose(): void {
    this.panel?.dispose();
    this.panel = undefined;
  }
}
