// The "seer" configuration section as VS Code holds it, and as the server
// may see it. Pure functions: no vscode import.

/**
 * The settings that `seer serve` understands (lsp/config.go). Anything
 * else under "seer" is the extension's own and is not sent: the server
 * warns about settings it does not know.
 */
export const serverKeys = ["atomicity", "timeout", "runOnSave", "buildFlags", "env", "explore"] as const;

/** The extension's own settings, never sent to the server. */
export const editorKeys = ["path", "trace"] as const;

export type ServerSettings = Partial<Record<(typeof serverKeys)[number], unknown>>;

/**
 * Returns what the server is sent for one workspace folder's "seer"
 * section: the server's settings only, and runOnSave forced off when the
 * workspace is not trusted (a save must not run the workspace's code).
 * Unset values (undefined, null) are left out so that the server keeps
 * its defaults.
 */
export function serverSettings(section: unknown, trusted: boolean): ServerSettings {
  const out: ServerSettings = {};
  if (section !== null && typeof section === "object" && !Array.isArray(section)) {
    const s = section as Record<string, unknown>;
    for (const k of serverKeys) {
      if (s[k] !== undefined && s[k] !== null) {
        out[k] = s[k];
      }
    }
  }
  if (!trusted) {
    out.runOnSave = false;
  }
  return out;
}

/**
 * Returns the command line that starts the server: the "seer.path"
 * setting (a name on PATH or a path; "~/" is the home directory) and
 * "serve". An empty setting means "seer".
 */
export function serverCommand(path: unknown, home: string | undefined): { command: string; args: string[] } {
  let command = typeof path === "string" && path.trim() !== "" ? path.trim() : "seer";
  if (home && (command === "~" || command.startsWith("~/"))) {
    command = home + command.slice(1);
  }
  return { command, args: ["serve"] };
}
