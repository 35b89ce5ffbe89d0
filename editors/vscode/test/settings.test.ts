import assert from "node:assert/strict";
import { test } from "node:test";
import { serverCommand, serverSettings } from "../src/settings";

test("only the server's settings are sent", () => {
  const section = {
    path: "/opt/seer",
    trace: { server: "verbose" },
    atomicity: false,
    timeout: "90s",
    runOnSave: true,
    buildFlags: ["-tags=integration"],
    env: { GOFLAGS: "-mod=mod" },
    explore: 5,
    get: () => 1,
  };
  assert.deepEqual(serverSettings(section, true), {
    atomicity: false,
    timeout: "90s",
    runOnSave: true,
    buildFlags: ["-tags=integration"],
    env: { GOFLAGS: "-mod=mod" },
    explore: 5, // the explore lens's budget: without it the server used 20
  });
});

test("unset settings are left to the server's defaults", () => {
  assert.deepEqual(serverSettings({ timeout: null, atomicity: undefined }, true), {});
  assert.deepEqual(serverSettings(null, true), {});
  assert.deepEqual(serverSettings([1, 2], true), {});
});

test("an untrusted workspace never records on save", () => {
  assert.deepEqual(serverSettings({ runOnSave: true, timeout: 30 }, false), { runOnSave: false, timeout: 30 });
  assert.deepEqual(serverSettings(undefined, false), { runOnSave: false });
});

test("the server command", () => {
  assert.deepEqual(serverCommand(undefined, "/home/u"), { command: "seer", args: ["serve"] });
  assert.deepEqual(serverCommand("  ", "/home/u"), { command: "seer", args: ["serve"] });
  assert.deepEqual(serverCommand("/usr/local/bin/seer", "/home/u"), { command: "/usr/local/bin/seer", args: ["serve"] });
  assert.deepEqual(serverCommand("~/go/bin/seer", "/home/u"), { command: "/home/u/go/bin/seer", args: ["serve"] });
  assert.deepEqual(serverCommand("~/go/bin/seer", undefined), { command: "~/go/bin/seer", args: ["serve"] });
});
