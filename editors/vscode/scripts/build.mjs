// Bundles the extension (dist/extension.js) or, with --tests, the tests
// (out/test/*.test.js, with the vscode module replaced by the stub).
import * as esbuild from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = new Set(process.argv.slice(2));
const production = args.has("--production");

const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: !production,
  minify: production,
  logLevel: "warning",
  absWorkingDir: root,
};

if (args.has("--tests")) {
  rmSync(join(root, "out"), { recursive: true, force: true });
  const tests = readdirSync(join(root, "test")).filter((f) => f.endsWith(".test.ts"));
  await esbuild.build({
    ...common,
    entryPoints: tests.map((f) => join("test", f)),
    outdir: "out/test",
    alias: { vscode: "./test/vscode-stub.ts" },
  });
} else {
  const options = {
    ...common,
    entryPoints: ["src/extension.ts"],
    outfile: "dist/extension.js",
    external: ["vscode"],
  };
  if (args.has("--watch")) {
    const ctx = await esbuild.context(options);
    await ctx.watch();
  } else {
    await esbuild.build(options);
  }
}
