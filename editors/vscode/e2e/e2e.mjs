// The extension's end-to-end test in a real VS Code: code-server (VS Code
// 1.100 served to a browser) with the packaged extension (.vsix) installed,
// driven by puppeteer-core in headless Chromium through the steps of a
// user: open examples/bank, click TestAudit's "seer: predict" lens (by its
// title: "seer: explore" is beside it), wait
// for the findings in the Problems view, hover one, run every quick fix
// the server offers on it (go to the other access, show the witness
// schedule, re-run, replay) and the palette's "seer: Show Witness of
// Finding at Cursor", checking each one's effect on the page: the
// witness picture is read from inside its webview's frames, and again
// after the window reloads. Last, the
// "seer" output channel (its log file): the server's lines at their
// levels, and the protocol traced (seer.trace.server is on). Then the
// explore lens (explore below): a copy of editors/testdata/explore, whose
// race only a steered run shows, opened with a budget of 8 runs; its
// "run i of N" progress read in the notification, the race on both
// accesses with its run, strategy and seed in the hover, and a second
// exploration cancelled from its notification keeping the race. Every
// wait polls the page; none is a fixed sleep.
//
// Environment: SEER_BIN (the seer binary, required), CHROMIUM (default
// /usr/bin/chromium), SEER_E2E_OUT (where the screenshot of a failure
// goes; default a new temporary directory, removed when the test passes). Prints one line per
// step with its time, and "e2e: lens click to diagnostics: N ms".
// On a failure it prints what it saw: the step, the page's screenshot
// file, the visible notifications and the "seer" output channel's text.

import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

const here = dirname(fileURLToPath(import.meta.url));
const extDir = resolve(here, "..");
const repo = resolve(extDir, "..", "..");
const bankDir = join(repo, "examples", "bank");
const codeServer = join(here, "node_modules", "code-server", "out", "node", "entry.js");

// Bounds: the whole test, and the waits for the server's work (the first
// recording on a cold shadow-toolchain cache builds it: about a minute).
const totalBudgetMs = 6 * 60_000;
const predictTimeoutMs = 4 * 60_000;
const uiTimeoutMs = 30_000;

const seerBin = process.env.SEER_BIN;
if (!seerBin || !existsSync(seerBin)) {
  console.error("e2e: SEER_BIN must name the seer binary");
  process.exit(2);
}
if (!existsSync(codeServer)) {
  console.error("e2e: code-server is not installed: run editors/vscode/e2e/install.sh");
  process.exit(2);
}
const chromium = process.env.CHROMIUM || "/usr/bin/chromium";
const work = mkdtempSync(join(tmpdir(), "seer-vscode-e2e-"));
const out = process.env.SEER_E2E_OUT || join(work, "out");
mkdirSync(out, { recursive: true });
const userData = join(work, "user-data");
const extensions = join(work, "extensions");
const chromeProfile = join(work, "chromium");

const started = Date.now();
const children = [];
let browser;
let page;
let step = "setup";

function log(msg) {
  console.log(`e2e: ${((Date.now() - started) / 1000).toFixed(1)}s ${msg}`);
}

/** Polls cond (async; a truthy answer ends the wait) every 100 ms, at most ms. */
async function until(what, ms, cond) {
  const end = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await cond();
      if (v) {
        return v;
      }
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}${last ? ` (last error: ${last.message})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** The text of the "seer" output channel: its log file under the user data. */
function outputChannelText() {
  const found = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) {
        walk(p);
      } else if (/seer\.log$/.test(name) || (/seer/i.test(name) && p.includes("output"))) {
        found.push(p);
      }
    }
  };
  try {
    walk(join(userData, "logs"));
  } catch {
    // no logs yet
  }
  return found.map((p) => `--- ${p}\n${readFileSync(p, "utf8")}`).join("\n") || "(no output channel log found)";
}

async function failed(e) {
  console.error(`e2e: FAILED at step "${step}": ${e && e.stack ? e.stack : e}`);
  if (page) {
    const shot = join(out, "failure.png");
    try {
      await page.screenshot({ path: shot });
      console.error(`e2e: screenshot: ${shot}`);
    } catch (err) {
      console.error(`e2e: no screenshot: ${err.message}`);
    }
    try {
      // Toasts hide in a window without focus: open the notification centre.
      await palette("Notifications: Show Notifications").catch(() => {});
      await page.waitForSelector(".notifications-center .notification-list-item", { timeout: 3000 }).catch(() => {});
      const notes = await page.$$eval(".notification-list-item", (els) => [...new Set(els.map((e) => e.innerText.replace(/\s+/g, " ").trim()))]);
      console.error(`e2e: notifications: ${JSON.stringify(notes)}`);
      const status = await statusText();
      console.error(`e2e: seer's status bar item: ${JSON.stringify(status)}`);
    } catch {
      // the page is gone
    }
  }
  console.error(`e2e: the "seer" output channel:\n${outputChannelText()}`);
}

/** Ends what the test started; keeps the failure's files (out/) and drops the rest. */
async function cleanup(ok) {
  if (browser) {
    await browser.close().catch(() => {});
  }
  for (const c of children) {
    if (c.exitCode === null) {
      try {
        process.kill(-c.pid, "SIGKILL"); // code-server and its extension host
      } catch {
        c.kill("SIGKILL");
      }
    }
  }
  for (const d of [userData, extensions, chromeProfile, join(work, "seer.vsix")]) {
    rmSync(d, { recursive: true, force: true });
  }
  if (ok && !process.env.SEER_E2E_OUT) {
    rmSync(work, { recursive: true, force: true });
  }
}

// ---- the page

const mod = "Control";

async function keys(...combo) {
  for (const k of combo) {
    await page.keyboard.down(k);
  }
  for (const k of [...combo].reverse()) {
    await page.keyboard.up(k);
  }
}

/** The text of seer's status bar item (not its tooltip: that names the last prediction). */
async function statusText() {
  return page.$$eval(".statusbar-item", (els) => els.map((e) => (e.innerText || "").trim()).filter((t) => /^seer\b/.test(t)));
}

/** Runs a palette command by its label. */
async function palette(label) {
  await keys(mod, "Shift", "P");
  await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: uiTimeoutMs });
  await page.keyboard.type(label);
  await until(`the palette to list "${label}"`, uiTimeoutMs, () =>
    page.$$eval(".quick-input-list .monaco-list-row", (rows, l) => rows.some((r) => r.innerText.includes(l)), label),
  );
  await page.keyboard.press("Enter");
}

/** Opens a file of the workspace with Quick Open and waits for its text. */
async function openFile(name, text) {
  await keys(mod, "P");
  await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: uiTimeoutMs });
  await page.keyboard.type(name);
  // Click the row of exactly that name: "bank.go" also matches bank_test.go.
  await until(`Quick Open to find ${name}`, uiTimeoutMs, () =>
    page.$$eval(
      ".quick-input-list .monaco-list-row",
      (rows, n) => {
        const row = rows.find((r) => r.querySelector(".label-name")?.innerText.trim() === n);
        row?.click();
        return !!row;
      },
      name,
    ),
  );
  await until(`${name} in the editor`, uiTimeoutMs, () =>
    page.$$eval(".editor-instance .monaco-editor .view-line", (ls, t) => ls.some((l) => l.innerText.replace(/\u00a0/g, " ").includes(t)), text),
  );
  await until(`${name} to be the active tab`, uiTimeoutMs, () =>
    page.$$eval(".tab.active", (tabs, n) => tabs.some((t) => (t.getAttribute("aria-label") || "").startsWith(n)), name),
  );
}

/** The editor's cursor line (1-based), from the status bar's "Ln N, Col M". */
async function cursorLine() {
  const t = await page.$eval('[id="status.editor.selection"]', (e) => e.innerText);
  const m = /Ln (\d+)/.exec(t);
  return m ? Number(m[1]) : undefined;
}

/** The rows of the Problems view. */
async function problems() {
  return page.$$eval(".markers-panel .monaco-list-row", (rows) => rows.map((r) => r.getAttribute("aria-label") || r.innerText));
}

/** The centre of the first warning squiggle in the active editor. */
async function firstSquiggle() {
  return until("a warning squiggle in the editor", uiTimeoutMs, () =>
    page.$$eval(".editor-instance .monaco-editor .squiggly-warning", (els) => {
      const r = els.map((e) => e.getBoundingClientRect()).filter((b) => b.width > 0).sort((a, b) => a.top - b.top || a.left - b.left)[0];
      return r ? { x: r.left + r.width / 2, y: r.top + r.height / 2 } : undefined;
    }),
  );
}

/** Puts the cursor on the finding and opens its quick fixes; returns their titles. */
async function openQuickFixes(at) {
  await page.mouse.click(at.x, at.y);
  const titles = () =>
    page.$$eval(".action-widget .monaco-list-row.action", (rows) =>
      rows.map((r) => (r.getAttribute("aria-label") || r.innerText).trim()).filter((t) => t),
    ).then((ts) => (ts.length ? ts : undefined));
  // Asked right after the cursor moved, the editor may answer "No code
  // actions available" before it has the server's: ask again then.
  let asked = 0;
  return until("the quick fix menu", uiTimeoutMs, async () => {
    const ts = await titles();
    if (ts) {
      return ts;
    }
    if (asked === 0 || (await page.$(".monaco-editor-overlaymessage"))) {
      await page.keyboard.press("Escape");
      await keys(mod, ".");
      asked++;
    }
    return undefined;
  });
}

async function chooseQuickFix(at, title) {
  const titles = await openQuickFixes(at);
  const i = titles.indexOf(title);
  if (i < 0) {
    throw new Error(`quick fix "${title}" is not offered: ${JSON.stringify(titles)}`);
  }
  const rows = await page.$$(".action-widget .monaco-list-row.action");
  await rows[i].click();
  await until("the quick fix menu to close", uiTimeoutMs, async () => !(await page.$(".action-widget .monaco-list-row.action")));
}

/** The text of the witness webview's page: the frame (inside the webview's frames) that has it. */
async function witnessText() {
  for (const f of page.frames()) {
    try {
      const t = await f.evaluate(() => (document.querySelector("svg") ? document.body.innerText : ""));
      if (t) {
        const svg = await f.evaluate(() => document.querySelector("svg").outerHTML);
        return { text: t, svg };
      }
    } catch {
      // a frame that went away
    }
  }
  return undefined;
}

async function witnessTab() {
  return page.$$eval(".tab", (tabs) => tabs.map((t) => t.getAttribute("aria-label") || "").find((l) => l.startsWith("Witness: ")));
}

async function closeWitness() {
  await page.$$eval(".tab", (tabs) => {
    const t = tabs.find((x) => (x.getAttribute("aria-label") || "").startsWith("Witness: "));
    t?.querySelector(".tab-actions .action-label")?.click();
  });
  await until("the witness tab to close", uiTimeoutMs, async () => !(await witnessTab()));
}

/** Waits for the witness panel and checks its picture. */
async function checkWitness(what) {
  const tab = await until(`the witness panel (${what})`, uiTimeoutMs, witnessTab);
  const w = await until(`the witness picture inside the webview (${what})`, uiTimeoutMs, witnessText);
  for (const want of ["a.note", "bank.go"]) {
    if (!w.text.includes(want) && !w.svg.includes(want)) {
      throw new Error(`the witness page (${tab}) does not mention ${want}:\n${w.text}`);
    }
  }
  // The legend names only what the picture draws (issue 29).
  if (w.text.includes("critical section run in another order") && !w.svg.includes('class="section reordered')) {
    throw new Error(`the witness legend names reordered critical sections that the picture does not draw:\n${w.text}`);
  }
  log(`${what}: panel "${tab}", ${w.svg.length} bytes of SVG`);
  return w;
}

/** Waits for the seer status bar item to say a prediction ended, and returns its text. */
async function predictionEnded(what) {
  await until(`${what} to start`, uiTimeoutMs, async () => (await statusText()).some((t) => /^seer: predicting/.test(t)));
  const t = await until(`${what} to end`, predictTimeoutMs, async () => {
    const s = await statusText();
    return s.some((x) => /^seer: predicting/.test(x)) ? undefined : s.find((x) => /finding|failed|cancelled/.test(x));
  });
  if (!/finding/.test(t) || /failed/.test(t)) {
    throw new Error(`${what} ended with "${t}"`);
  }
  return t;
}

// ---- the test

async function main() {
  step = "package the extension";
  const vsix = join(work, "seer.vsix");
  execFileSync(process.execPath, [join(extDir, "node_modules", "@vscode", "vsce", "vsce"), "package", "--no-dependencies", "--skip-license", "--out", vsix], {
    cwd: extDir,
    stdio: ["ignore", "ignore", "inherit"],
  });
  log("packaged the extension");

  step = "install the extension into code-server";
  // seer.path is machine-overridable: a window of code-server (as any
  // remote window) takes it from the server's Machine settings, where a
  // user of code-server sets it, and ignores the User settings' value.
  mkdirSync(join(userData, "Machine"), { recursive: true });
  writeFileSync(join(userData, "Machine", "settings.json"), JSON.stringify({ "seer.path": seerBin }, null, 1));
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        "seer.trace.server": "messages",
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.enableExperiments": false,
        "security.workspace.trust.enabled": false,
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "telemetry.telemetryLevel": "off",
        "editor.hover.delay": 150,
        "editor.codeLens": true,
        "chat.commandCenter.enabled": false,
        "git.enabled": false,
      },
      null,
      1,
    ),
  );
  const csArgs = ["--user-data-dir", userData, "--extensions-dir", extensions];
  execFileSync(process.execPath, [codeServer, ...csArgs, "--install-extension", vsix], { stdio: ["ignore", "ignore", "inherit"] });
  log("installed the extension");

  step = "start code-server";
  const port = await freePort();
  const cs = spawn(
    process.execPath,
    [codeServer, ...csArgs, "--auth", "none", "--bind-addr", `127.0.0.1:${port}`, "--disable-telemetry", "--disable-update-check", "--disable-workspace-trust", bankDir],
    { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, SEER_BIN: seerBin } },
  );
  children.push(cs);
  let csOut = "";
  cs.stdout.on("data", (d) => (csOut += d));
  cs.stderr.on("data", (d) => (csOut += d));
  await until("code-server to listen", uiTimeoutMs, () => csOut.includes("HTTP server listening") || cs.exitCode !== null);
  if (cs.exitCode !== null) {
    throw new Error(`code-server exited (${cs.exitCode}):\n${csOut}`);
  }
  log(`code-server listens on ${port}`);

  step = "open examples/bank in Chromium";
  browser = await puppeteer.launch({
    executablePath: chromium,
    headless: true,
    userDataDir: chromeProfile,
    args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-gpu", "--window-size=1600,1000"],
    defaultViewport: { width: 1600, height: 1000 },
  });
  page = await browser.newPage();
  // One window on two folders: examples/bank, and the explore lens's
  // kernel (explore below), so that no second window has to load.
  const workspace = exploreWorkspace();
  await page.goto(`http://127.0.0.1:${port}/?workspace=${encodeURIComponent(workspace)}`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector(".monaco-workbench", { timeout: uiTimeoutMs });
  log("workbench up");

  step = "open bank_test.go and find TestAudit's lens";
  await openFile("bank_test.go", "func TestAudit");
  await until("seer's status bar item (the extension active)", uiTimeoutMs, async () => (await statusText()).length > 0);
  // TestAudit's line has two lenses, seer: predict and seer: explore
  // (lsp/lens.go): both must be there, and the click is on the one whose
  // title is seer: predict.
  const lens = await until("the seer: predict and seer: explore lenses above TestAudit", uiTimeoutMs, () =>
    page.evaluate(() => {
      const line = [...document.querySelectorAll(".editor-instance .monaco-editor .view-line")].find((l) => l.innerText.replace(/\u00a0/g, " ").startsWith("func TestAudit("));
      if (!line) {
        return undefined;
      }
      const top = line.getBoundingClientRect().top;
      const nearest = (title) =>
        [...document.querySelectorAll(".codelens-decoration a")]
          .filter((a) => a.innerText.replace(/\u00a0/g, " ").trim() === title)
          .map((a) => ({ a, r: a.getBoundingClientRect() }))
          .filter(({ r }) => r.top < top)
          .sort((x, y) => y.r.top - x.r.top)[0];
      const above = nearest("seer: predict");
      const explore = nearest("seer: explore");
      if (!above || !explore || Math.abs(explore.r.top - above.r.top) > 2) {
        return undefined;
      }
      return { x: above.r.left + above.r.width / 2, y: above.r.top + above.r.height / 2 };
    }),
  );
  // The Problems view is open before the click, so that its rows can be polled.
  await keys(mod, "Shift", "M");
  await page.waitForSelector(".markers-panel", { visible: true, timeout: uiTimeoutMs });

  step = "click the lens and wait for the diagnostics";
  const click = Date.now();
  await page.mouse.click(lens.x, lens.y);
  const rows = await until("seer's findings in the Problems view", predictTimeoutMs, async () => {
    const p = await problems();
    return p.some((r) => /a\.note/.test(r)) ? p : undefined;
  });
  const clickToDiagnostics = Date.now() - click;
  console.log(`e2e: lens click to diagnostics: ${clickToDiagnostics} ms`);
  log(`Problems: ${JSON.stringify(rows.slice(0, 4))}`);
  await until("the prediction's end on the status bar", predictTimeoutMs, async () => (await statusText()).some((t) => /finding/.test(t)));

  step = "hover the finding in bank.go";
  await openFile("bank.go", "func (a *Account) Deposit");
  let at = await firstSquiggle();
  await page.mouse.move(at.x, at.y);
  const hover = await until("the hover of the finding", uiTimeoutMs, () =>
    page.$$eval(".monaco-hover .hover-contents, .monaco-hover .rendered-markdown", (els) => els.map((e) => e.innerText).join("\n")).then((t) =>
      /race/.test(t) ? t : undefined,
    ),
  );
  if (!/a\.note/.test(hover)) {
    throw new Error(`the hover does not name the variable a.note:\n${hover}`);
  }
  log(`hover: ${JSON.stringify(hover.slice(0, 120))}`);
  await page.keyboard.press("Escape");

  step = "list the quick fixes";
  const titles = await openQuickFixes(at);
  await page.keyboard.press("Escape");
  log(`quick fixes: ${JSON.stringify(titles)}`);
  const want = [/^Go to the other access/, /^Show witness schedule$/, /^Re-run prediction of TestAudit$/, /^Replay witness/];
  for (const w of want) {
    if (!titles.some((t) => w.test(t))) {
      throw new Error(`no quick fix matches ${w}: ${JSON.stringify(titles)}`);
    }
  }

  for (const title of titles) {
    step = `quick fix "${title}"`;
    at = await firstSquiggle();
    if (title.startsWith("Go to the other access")) {
      const m = /at ([^:()]+):(\d+)\)$/.exec(title);
      if (!m) {
        throw new Error(`cannot read the other access's place from "${title}"`);
      }
      await chooseQuickFix(at, title);
      await until(`the cursor on ${m[1]}:${m[2]}`, uiTimeoutMs, async () => (await cursorLine()) === Number(m[2]));
      log(`${title}: cursor on line ${m[2]}`);
      await openFile("bank.go", "func (a *Account) Deposit");
    } else if (title === "Show witness schedule") {
      await chooseQuickFix(at, title);
      await checkWitness("quick fix");
      await closeWitness();
    } else if (title.startsWith("Re-run prediction") || title.startsWith("Replay witness")) {
      await chooseQuickFix(at, title);
      const end = await predictionEnded(title);
      log(`${title}: ${end}`);
      await until("the findings back in the Problems view", uiTimeoutMs, async () => (await problems()).some((r) => /a\.note/.test(r)));
    } else {
      throw new Error(`a quick fix this test does not know: "${title}"`);
    }
  }

  step = "palette: seer: Show Witness of Finding at Cursor";
  await openFile("bank.go", "func (a *Account) Deposit");
  at = await firstSquiggle();
  await page.mouse.click(at.x, at.y);
  await palette("seer: Show Witness of Finding at Cursor");
  await checkWitness("palette");

  step = "reload the window: the witness panel comes back";
  // The workbench's own reload, which saves its state (open editors) first.
  const reloaded = page.waitForNavigation({ waitUntil: "domcontentloaded", timeout: uiTimeoutMs });
  await palette("Developer: Reload Window");
  await reloaded;
  await page.waitForSelector(".monaco-workbench", { timeout: uiTimeoutMs });
  await checkWitness("after a reload");

  step = "the output channel: levels and seer.trace.server";
  const text = outputChannelText();
  const wrong = text.split("\n").filter((l) => /\[error\]/.test(l) && /level=(INFO|DEBUG)|prediction (starts|ends)|=== RUN/.test(l));
  if (wrong.length) {
    throw new Error(`seer serve's informational lines show as errors in the output channel:\n${wrong.join("\n")}`);
  }
  if (!/\[info\] prediction starts job=1/.test(text)) {
    throw new Error(`the output channel has no "[info] prediction starts" line`);
  }
  // seer.trace.server is "messages" in the settings, the channel at its default level.
  if (!/\[info\] Sending request 'workspace\/executeCommand/.test(text)) {
    throw new Error(`seer.trace.server = messages traced nothing into the output channel`);
  }
  await explore();
  log(`passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// ---- the explore lens

/** The explore test's kernel (editors/testdata/explore): its race shows only in a steered run. */
const kernelSrc = join(repo, "editors", "testdata", "explore");
const exploreBudget = 8;

/** The text of the visible notifications (toasts and the centre). */
async function notifications() {
  return page.$$eval(".notification-list-item", (els) => els.map((e) => e.innerText.replace(/\s+/g, " ").trim()));
}

/** The centre of the lens titled title on the line above TestCancel. */
async function lensOf(title) {
  return until(`the ${title} lens above TestCancel`, uiTimeoutMs, () =>
    page.evaluate((title) => {
      const line = [...document.querySelectorAll(".editor-instance .monaco-editor .view-line")].find((l) => l.innerText.replace(/\u00a0/g, " ").startsWith("func TestCancel("));
      if (!line) {
        return undefined;
      }
      const top = line.getBoundingClientRect().top;
      const a = [...document.querySelectorAll(".codelens-decoration a")]
        .filter((a) => a.innerText.replace(/\u00a0/g, " ").trim() === title)
        .map((a) => a.getBoundingClientRect())
        .filter((r) => r.top < top)
        .sort((x, y) => y.top - x.top)[0];
      return a ? { x: a.left + a.width / 2, y: a.top + a.height / 2 } : undefined;
    }, title),
  );
}

/** The progress messages "run i of N: k findings so far" of the exploration's notification. */
const runProgress = /seer: exploring TestCancel.*?run (\d+) of (\d+): (\d+) findings? so far/;

/**
 * Clicks TestCancel's explore lens; calls seen(match) on each progress
 * message until the exploration ends; returns the status bar's outcome.
 * An error seen throws ends the test (not the wait, which retries).
 */
async function exploreOnce(what, seen) {
  // Toasts wait for the window's focus, which headless Chromium's never
  // has: the progress notification is read in the notification centre.
  if (!(await page.$(".notifications-center.visible"))) {
    await palette("Notifications: Show Notifications");
    await page.waitForSelector(".notifications-center.visible", { timeout: uiTimeoutMs });
  }
  const at = await lensOf("seer: explore");
  await page.mouse.click(at.x, at.y);
  await until(`${what} to start`, uiTimeoutMs, async () => (await statusText()).some((t) => /^seer: exploring TestCancel/.test(t)));
  return until(`${what} to end`, predictTimeoutMs, async () => {
    for (const n of await notifications()) {
      const m = runProgress.exec(n);
      if (m) {
        try {
          await seen(m);
        } catch (e) {
          return { error: e };
        }
      }
    }
    const s = await statusText();
    return s.some((x) => /^seer: exploring/.test(x)) ? undefined : s.find((x) => /finding|failed|cancelled/.test(x));
  }).then((r) => {
    if (r.error) {
      throw r.error;
    }
    return r;
  });
}

/** The Problems rows of the race on s.count: one at each access. */
async function raceRows() {
  const rows = (await problems()).filter((r) => /data race on s\.count/.test(r));
  return rows.length >= 2 ? rows : undefined;
}

/**
 * Writes a copy of the kernel with a budget of exploreBudget steered runs
 * (its folder's seer.explore), and a workspace of examples/bank and it;
 * returns the workspace file.
 */
function exploreWorkspace() {
  const dir = join(work, "explore");
  mkdirSync(join(dir, ".vscode"), { recursive: true });
  for (const f of ["go.mod", "cancel_test.go"]) {
    writeFileSync(join(dir, f), readFileSync(join(kernelSrc, f)));
  }
  writeFileSync(join(dir, ".vscode", "settings.json"), JSON.stringify({ "seer.explore": exploreBudget }));
  const file = join(work, "e2e.code-workspace");
  writeFileSync(file, JSON.stringify({ folders: [{ path: bankDir }, { path: dir }] }));
  return file;
}

/**
 * Opens the kernel (exploreWorkspace), clicks TestCancel's "seer: explore" lens,
 * follows "run i of N" in its notification, waits for the steered run's
 * race on both accesses and reads its origin in the hover; then cancels a
 * second exploration from its notification once a finished run has found
 * something, and checks that the race stays.
 */
async function explore() {
  step = "explore: open the kernel";
  const dir = join(work, "explore");
  await palette("View: Close All Editors");
  await until("the editors to close", uiTimeoutMs, async () => (await page.$$(".tab")).length === 0);
  await openFile("cancel_test.go", "package explore");
  await keys(mod, "Shift", "M");
  await page.waitForSelector(".markers-panel", { visible: true, timeout: uiTimeoutMs });
  // The Problems view leaves the editor too short for TestCancel: go to its line.
  const testLine = readFileSync(join(dir, "cancel_test.go"), "utf8").split("\n").findIndex((l) => l.startsWith("func TestCancel(")) + 1;
  await keys(mod, "g");
  await page.waitForSelector(".quick-input-widget input", { visible: true, timeout: uiTimeoutMs });
  await page.keyboard.type(String(testLine));
  await page.keyboard.press("Enter");
  await until(`the cursor on line ${testLine}`, uiTimeoutMs, async () => (await cursorLine()) === testLine);
  await lensOf("seer: predict");

  // The steering is random (a new seed each time), and a loaded machine
  // may show the race in the first, unsteered run: try up to four
  // explorations for the race of a steered run.
  let origin;
  for (let n = 1; n <= 4 && !origin; n++) {
    step = `explore: exploration ${n}`;
    const runs = new Set();
    const end = await exploreOnce(`exploration ${n}`, (m) => {
      if (Number(m[2]) !== exploreBudget) {
        throw new Error(`progress "${m[0]}": want ${exploreBudget} runs (the folder's seer.explore)`);
      }
      runs.add(Number(m[1]));
    });
    if (runs.size === 0) {
      throw new Error(`exploration ${n} ended ("${end}") and its notification never said "run i of ${exploreBudget}"`);
    }
    log(`exploration ${n}: the notification showed runs ${[...runs].sort((a, b) => a - b)} of ${exploreBudget}; "${end}"`);
    // The Problems view follows the status bar by a moment.
    const rows = /no findings/.test(end) ? undefined : await until("the race in the Problems view", uiTimeoutMs, raceRows).catch(() => undefined);
    if (!rows) {
      continue;
    }
    step = `explore: the origin in the hover (exploration ${n})`;
    const sq = await firstSquiggle();
    await page.mouse.move(sq.x, sq.y);
    // The diagnostic's message shows first; the server's hover (its
    // "Ordering" part) follows.
    const hover = await until("the server's hover of the race", uiTimeoutMs, () =>
      page.$$eval(".monaco-hover .hover-contents, .monaco-hover .rendered-markdown", (els) => els.map((e) => e.innerText).join("\n")).then((t) =>
        /Nothing else orders the accesses/.test(t) ? t : undefined,
      ),
    );
    await page.keyboard.press("Escape");
    origin = /Found by exploring: found in explore run (\d+) \((\w+), seed (\d+)\)/.exec(hover);
    if (!origin) {
      if (/Found by exploring/.test(hover)) {
        throw new Error(`the hover's origin does not read as "found in explore run N (strategy, seed S)":\n${hover}`);
      }
      log(`exploration ${n}: the first run showed the race: again`);
      await page.mouse.move(5, 500); // away, so that the next hover is new
      continue;
    }
    if (Number(origin[1]) < 1 || Number(origin[1]) > exploreBudget) {
      throw new Error(`the hover gives run ${origin[1]} of ${exploreBudget}:\n${hover}`);
    }
    log(`the steered run's race: ${JSON.stringify(rows)}`);
    log(`hover: ${origin[0]}`);
  }
  if (!origin) {
    throw new Error(`no exploration of four showed the race of a steered run on s.count at both accesses: ${JSON.stringify(await problems())}`);
  }

  // Cancel once a finished run has found something and runs remain; an
  // exploration that finds it only in its last run, or whose count was a
  // leak (a message, not a diagnostic), is tried again.
  let kept;
  for (let n = 1; n <= 4 && !kept; n++) {
    step = `explore: cancel exploration ${n}`;
    let at;
    const end = await exploreOnce(`exploration ${n} to cancel`, async (m) => {
      if (at || Number(m[3]) < 1 || Number(m[1]) >= Number(m[2])) {
        return;
      }
      at = m[0];
      const clicked = await page.$$eval(".notification-list-item", (els) => {
        const el = els.find((e) => /seer: exploring TestCancel/.test(e.innerText));
        const b = el && [...el.querySelectorAll(".monaco-button, a.monaco-button")].find((x) => /Cancel/i.test(x.innerText || x.getAttribute("aria-label") || ""));
        b?.click();
        return !!b;
      });
      if (!clicked) {
        throw new Error(`the exploration's notification has no Cancel button: ${JSON.stringify(await notifications())}`);
      }
    });
    if (!at) {
      log(`exploration ${n} to cancel ended ("${end}") before a run had found something with runs to go: again`);
      continue;
    }
    const m = /cancelled: (\d+) findings? kept/.exec(end);
    if (!m) {
      log(`cancelled at "${at}": "${end}": the count was a leak: again`);
      continue;
    }
    kept = await until("the race in the Problems view", uiTimeoutMs, raceRows).catch(() => undefined);
    if (!kept) {
      throw new Error(`cancelled at "${at}" ("${end}"): the race is gone from the Problems view: ${JSON.stringify(await problems())}`);
    }
    log(`cancelled at "${at}": "${end}", the race stays: ${JSON.stringify(kept)}`);
  }
  if (!kept) {
    throw new Error("no exploration of four gave a cancel a finding to keep");
  }
}

const timer = setTimeout(() => {
  void failed(new Error(`the whole test took more than ${totalBudgetMs / 1000} s`)).finally(() => cleanup(false).finally(() => process.exit(1)));
}, totalBudgetMs);

try {
  await main();
  clearTimeout(timer);
  await cleanup(true);
  process.exit(0);
} catch (e) {
  clearTimeout(timer);
  await failed(e);
  await cleanup(false);
  process.exit(1);
}
