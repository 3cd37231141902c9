import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { findDebugAdapter } from "./debug-adapter-location";

function tmp(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
function write(file: string, text = ""): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}
/** A project with `cudascript` installed; `inline`: its package has the adapter module. */
function project(inline: boolean): string {
  const root = tmp("cs-proj-");
  const pkg = path.join(root, "node_modules", "cudascript");
  write(path.join(pkg, "package.json"), JSON.stringify({ name: "cudascript", bin: { cudascript: "bin/cudascript.js" } }));
  write(path.join(pkg, "bin", "cudascript.js"));
  if (inline) write(path.join(pkg, "dist", "debugger", "dap.js"));
  fs.mkdirSync(path.join(root, "src"));
  return root;
}
function extension(withInline: boolean): string {
  const root = tmp("cs-ext-");
  write(path.join(root, "dist", "runtime", "cli", "main.js"));
  if (withInline) write(path.join(root, "dist", "runtime", "debugger", "dap.js"));
  return root;
}

test("the debug adapter runs inline from the project's cudascript package, as Run Kernel uses the project's CLI", () => {
  const root = project(true);
  const found = findDebugAdapter(path.join(root, "src"), extension(true));
  assert.deepEqual(found, { kind: "inline", module: path.join(root, "node_modules", "cudascript", "dist", "debugger", "dap.js"), source: "project" });
});

test("a project whose cudascript has no inline adapter module runs its CLI's debug-adapter as a process", () => {
  const root = project(false);
  const found = findDebugAdapter(path.join(root, "src"), extension(true));
  assert.deepEqual(found, { kind: "executable", script: path.join(root, "node_modules", "cudascript", "bin", "cudascript.js"), source: "project" });
});

test("outside a project the adapter bundled in the extension runs inline, else the bundled CLI's debug-adapter", () => {
  const outside = tmp("cs-none-");
  const ext = extension(true);
  assert.deepEqual(findDebugAdapter(outside, ext), { kind: "inline", module: path.join(ext, "dist", "runtime", "debugger", "dap.js"), source: "extension" });
  const old = extension(false);
  assert.deepEqual(findDebugAdapter(outside, old), { kind: "executable", script: path.join(old, "dist", "runtime", "cli", "main.js"), source: "extension" });
  assert.equal(findDebugAdapter(outside, tmp("cs-empty-")), undefined);
});
