import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileUsesCudaScript, folderUsesCudaScript, manifestUsesCudaScript, textImportsCudaScript } from "./uses-cudascript";

function tree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-uses-"));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

test("imports, re-exports, requires and dynamic imports of cudascript count; other packages and look-alike names do not", () => {
  for (const text of [
    'import { cuda, f32 } from "cudascript";',
    "import {\n  cuda,\n} from 'cudascript'",
    'export * from "cudascript/simulator";',
    'const { cuda } = require("cudascript");',
    'const c = await import("@cudascript/compiler");',
    'import "cudascript";',
  ])
    assert.equal(textImportsCudaScript(text), true, text);
  for (const text of ['import * as ts from "typescript";', 'import x from "cudascript-extra";', 'import x from "my-cudascript";', "// cudascript is nice", 'const s = "cudascript";'])
    assert.equal(textImportsCudaScript(text), false, text);
});

test("a package.json uses CudaScript when any dependency field names it, or it is a CudaScript package", () => {
  assert.equal(manifestUsesCudaScript(JSON.stringify({ dependencies: { cudascript: "^0.1.0" } })), true);
  assert.equal(manifestUsesCudaScript(JSON.stringify({ devDependencies: { "@cudascript/compiler": "*" } })), true);
  assert.equal(manifestUsesCudaScript(JSON.stringify({ name: "cudascript" })), true);
  assert.equal(manifestUsesCudaScript(JSON.stringify({ name: "web-app", dependencies: { react: "18", "cudascript-extra": "1" } })), false);
  assert.equal(manifestUsesCudaScript("{ not json"), false);
});

test("a folder uses CudaScript through its package.json or an installed node_modules/cudascript", () => {
  assert.equal(folderUsesCudaScript(tree({ "package.json": '{"dependencies":{"cudascript":"0.1.0"}}' })), true);
  assert.equal(folderUsesCudaScript(tree({ "package.json": "{}", "node_modules/cudascript/package.json": '{"name":"cudascript"}' })), true);
  assert.equal(folderUsesCudaScript(tree({ "package.json": '{"dependencies":{"express":"4"}}', "node_modules/express/package.json": "{}" })), false);
});

test("a file's own project decides: the nearest package.json up the tree, not a sibling package or the monorepo root", () => {
  const mono = tree({
    "package.json": '{"private":true,"workspaces":["packages/*"]}',
    "packages/gpu/package.json": '{"dependencies":{"cudascript":"0.1.0"}}',
    "packages/gpu/src/deep/kernels.ts": "export const x = 1;",
    "packages/web/package.json": '{"dependencies":{"react":"18"}}',
    "packages/web/src/app.ts": "export const y = 1;",
  });
  assert.equal(fileUsesCudaScript(path.join(mono, "packages/gpu/src/deep/kernels.ts")), true);
  assert.equal(fileUsesCudaScript(path.join(mono, "packages/web/src/app.ts")), false);
  // a file that imports CudaScript uses it wherever it is (a scratch file outside any project)
  assert.equal(fileUsesCudaScript(path.join(mono, "packages/web/src/app.ts"), 'import { cuda } from "cudascript";'), true);
});
