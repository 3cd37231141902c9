/**
 * What an import resolution looked at (CudaProject.resolutionLookups): the caches of compiled kernels
 * record these, so a file that appears and takes an import over (`c.ts` beside `c/index.ts`, a nearer
 * node_modules package) invalidates them. The list is TypeScript's own (outside its public typings):
 * this test fails if an upgrade of TypeScript drops it.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { CudaProject } from "./project";

test("resolving ./c to c/index.ts and a package to node_modules lists the files that would take them over", () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-resolution-")));
  try {
    const write = (file: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    };
    write("src/c/index.ts", "export const C = 1;\n");
    write("node_modules/lib/package.json", '{ "name": "lib", "types": "index.ts" }\n');
    write("node_modules/lib/index.ts", "export const L = 1;\n");
    const project = new CudaProject();
    const from = path.join(dir, "src", "k.ts");
    assert.equal(project.resolveImport("./c", from), path.join(dir, "src", "c", "index.ts"));
    assert.ok(project.resolutionLookups("./c", from).includes(path.join(dir, "src", "c.ts")));
    assert.equal(project.resolveImport("lib", from), path.join(dir, "node_modules", "lib", "index.ts"));
    const lib = project.resolutionLookups("lib", from);
    assert.ok(lib.includes(path.join(dir, "src", "node_modules", "lib", "package.json")), "a nearer package (in a folder that does not exist yet)");
    assert.ok(lib.includes(path.join(dir, "node_modules", "lib", "package.json")), "the package.json that steered it");
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
