import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { findCli, platformTarget } from "./cli";

/** An unpacked extension whose bundled CLI was packed with the native binaries of `target`. */
function extension(target: string | undefined): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "cs-ext-"));
  fs.mkdirSync(path.join(root, "dist", "runtime", "cli"), { recursive: true });
  fs.writeFileSync(path.join(root, "dist", "runtime", "cli", "main.js"), "");
  fs.mkdirSync(path.join(root, "dist", "node_modules"), { recursive: true });
  if (target) fs.writeFileSync(path.join(root, "dist", "node_modules", ".cudascript-native"), JSON.stringify({ target, packages: [] }));
  return root;
}

test("outside a project, the bundled CLI runs when the .vsix was built for this platform", () => {
  const cli = findCli(os.tmpdir(), extension(platformTarget()));
  assert.equal(cli?.source, "extension");
  assert.equal(cli?.simulatorOnly, undefined);
});

test("the universal or another platform's .vsix runs its bundled CLI on the simulator, and says how to get the GPU", () => {
  for (const target of ["universal", platformTarget() === "win32-x64" ? "linux-x64" : "win32-x64", undefined]) {
    const cli = findCli(os.tmpdir(), extension(target));
    assert.equal(cli?.source, "extension");
    assert.match(cli?.simulatorOnly ?? "", /in the simulator only, never on a GPU/);
    assert.match(cli?.simulatorOnly ?? "", /npm install --save-dev cudascript/);
    assert.match(cli?.simulatorOnly ?? "", new RegExp(`cudascript-vscode-<version>-${platformTarget()}\\.vsix`));
  }
});

test("a project's own cudascript is preferred over the bundled CLI, whatever the .vsix carries", () => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), "cs-proj-"));
  const pkg = path.join(project, "node_modules", "cudascript");
  fs.mkdirSync(path.join(pkg, "dist", "cli"), { recursive: true });
  fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify({ name: "cudascript", bin: { cudascript: "dist/cli/main.js" } }));
  fs.writeFileSync(path.join(pkg, "dist", "cli", "main.js"), "");
  const cli = findCli(project, extension("universal"));
  assert.deepEqual(cli, { script: path.join(pkg, "dist", "cli", "main.js"), source: "project" });
});
