// The VS Code extension: starts `seer serve` for Go files through
// vscode-languageclient and wires the controller's commands, middleware
// and status bar to it.

import * as os from "os";
import * as vscode from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, State, TransportKind } from "vscode-languageclient/node";
import { seerClient } from "./adapter";
import { pipeServerLog } from "./serverlog";
import { TraceChannel, traceSetting } from "./tracechannel";
import { witnessViewType } from "./witness";
import { Controller, extensionCommands } from "./controller";
import { serverCommand } from "./settings";

let client: LanguageClient | undefined;
let controller: Controller | undefined;
let output: vscode.LogOutputChannel | undefined;
let traceChannel: TraceChannel | undefined;

function newClient(ctl: Controller): LanguageClient {
  const { command, args } = serverCommand(vscode.workspace.getConfiguration("seer").get("path"), os.homedir());
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file", language: "go" }],
    outputChannel: output,
    traceOutputChannel: traceChannel,
    // The server's stderr at its log levels, not all as errors.
    stdioOptions: { stdout: (input, out) => pipeServerLog(input, out), stderr: (input, out) => pipeServerLog(input, out) },
    middleware: {
      executeCommand: ctl.executeCommand,
      workspace: { configuration: ctl.configuration },
    },
  };
  const c = new LanguageClient("seer", "seer", serverOptions, clientOptions);
  c.onDidChangeState((e) => {
    ctl.setServerState(e.newState === State.Running ? "running" : e.newState === State.Starting ? "starting" : "stopped");
  });
  return c;
}

async function start(): Promise<void> {
  if (!controller) {
    return;
  }
  client = newClient(controller);
  try {
    await client.start();
  } catch (e) {
    controller.setServerState("stopped");
    const path = vscode.workspace.getConfiguration("seer").get<string>("path") || "seer";
    // seer.path is a machine setting: a remote window ignores the User
    // settings' value.
    const where = vscode.env.remoteName ? " in the Remote settings" : "";
    const choice = await vscode.window.showErrorMessage(
      `seer: could not start '${path} serve': ${e instanceof Error ? e.message : e}. Install seer (go install github.com/seer-tools/seer/cmd/seer@latest) or set seer.path${where}.`,
      "Open Settings",
    );
    if (choice === "Open Settings") {
      void vscode.commands.executeCommand("workbench.action.openSettings", "seer.path");
    }
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) {
    try {
      await c.stop();
    } catch {
      // a client that never started cannot stop
    }
    await c.dispose();
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("seer", { log: true });
  traceChannel = new TraceChannel(output, traceSetting(vscode.workspace.getConfiguration("seer").get("trace.server")));
  controller = new Controller(() => (client && client.isRunning() ? seerClient(client) : undefined), context.workspaceState);
  context.subscriptions.push(
    output,
    traceChannel,
    controller,
    vscode.commands.registerCommand(extensionCommands.restart, restart),
    vscode.commands.registerCommand(extensionCommands.predictAtCursor, () => controller?.predictAtCursor()),
    vscode.commands.registerCommand(extensionCommands.exploreAtCursor, () => controller?.predictAtCursor(undefined, true)),
    vscode.commands.registerCommand(extensionCommands.showWitnessAtCursor, () => controller?.showWitnessAtCursor()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration("seer.trace.server")) {
        traceChannel?.setSetting(traceSetting(vscode.workspace.getConfiguration("seer").get("trace.server")));
      }
      if (e.affectsConfiguration("seer.path")) {
        void restart();
      } else if (e.affectsConfiguration("seer")) {
        void controller?.configurationChanged();
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => controller?.configurationChanged()),
    // The witness panel comes back after a reload with its page.
    vscode.window.registerWebviewPanelSerializer(witnessViewType, {
      deserializeWebviewPanel: async (panel) => controller?.restoreWitness(panel),
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
