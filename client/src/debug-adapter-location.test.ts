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

test("the debug adapter comes from the project's cudascript package (its module and its CLI), as Run Kernel uses the project's CLI", () => {
  const root = project(true);
  const pkg = path.join(root, "node_modules", "cudascript");
  assert.deepEqual(findDebugAdapter(path.join(root, "src"), extension(true)), { source: "project", cli: path.join(pkg, "bin", "cudascript.js"), inline: path.join(pkg, "dist", "debugger", "dap.js") });
});

test("a project whose cudascript has no adapter module offers only its CLI's debug-adapter, never the extension's newer module", () => {
  const root = project(false);
  assert.deepEqual(findDebugAdapter(path.join(root, "src"), extension(true)), { source: "project", cli: path.join(root, "node_modules", "cudascript", "bin", "cudascript.js") });
});

test("outside a project the adapter bundled in the extension is used, its module when the build has it", () => {
  const outside = tmp("cs-none-");
  const ext = extension(true);
  assert.deepEqual(findDebugAdapter(outside, ext), { source: "extension", cli: path.join(ext, "dist", "runtime", "cli", "main.js"), inline: path.join(ext, "dist", "runtime", "debugger", "dap.js") });
  const old = extension(false);
  assert.deepEqual(findDebugAdapter(outside, old), { source: "extension", cli: path.join(old, "dist", "runtime", "cli", "main.js") });
  assert.equal(findDebugAdapter(outside, tmp("cs-empty-")), undefined);
});
