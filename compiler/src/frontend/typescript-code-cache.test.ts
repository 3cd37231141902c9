import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";

const COMPILER = path.join(__dirname, "..", "index.js");
// "same": the compiler's TypeScript functions are those of the one module in require.cache (loaded once).
const load = `const c = require(${JSON.stringify(COMPILER)}); ` +
  `const ts = Object.keys(require.cache).filter((f) => f.endsWith("/typescript/lib/typescript.js")); ` +
  `console.log(JSON.stringify({ same: ts.length === 1 && c.ts.createSourceFile === require.cache[ts[0]].exports.createSourceFile, kind: c.ts.SyntaxKind.Identifier > 0, parsed: c.ts.createSourceFile("a.ts", "let x = 1", 99).statements.length }));`;

function run(cache: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ["-e", load], { encoding: "utf8", env: { ...process.env, CUDASCRIPT_CACHE_DIR: cache, ...env } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { same: boolean; kind: boolean; parsed: number };
}

describe("TypeScript loaded through V8's code cache", () => {
  it("writes the cache on the first load, uses it on the next, and the compiler's `ts` is that one module", () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cs-code-cache-"));
    try {
      assert.deepEqual(run(cache), { same: true, kind: true, parsed: 1 });
      const files = fs.readdirSync(path.join(cache, "v8-code-cache")).sort();
      assert.deepEqual(files.map((f) => f.replace(/-v\d.*$/, "")).sort(), ["typescript"]);
      assert.deepEqual(run(cache), { same: true, kind: true, parsed: 1 });
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });

  it("a corrupt cache file is rejected by V8 and written again; an unwritable cache folder and CUDASCRIPT_NO_CODE_CACHE=1 load TypeScript the ordinary way", () => {
    const cache = fs.mkdtempSync(path.join(os.tmpdir(), "cs-code-cache-"));
    try {
      run(cache);
      const dir = path.join(cache, "v8-code-cache");
      const ts = fs.readdirSync(dir).find((f) => f.startsWith("typescript-"))!;
      fs.writeFileSync(path.join(dir, ts), "not V8's data");
      assert.deepEqual(run(cache), { same: true, kind: true, parsed: 1 });
      assert.ok(fs.statSync(path.join(dir, ts)).size > 1000, "written again");

      const fileInTheWay = path.join(cache, "a-file");
      fs.writeFileSync(fileInTheWay, "");
      assert.deepEqual(run(fileInTheWay), { same: true, kind: true, parsed: 1 });

      const off = path.join(cache, "off");
      assert.deepEqual(run(off, { CUDASCRIPT_NO_CODE_CACHE: "1" }), { same: true, kind: true, parsed: 1 });
      assert.ok(!fs.existsSync(path.join(off, "v8-code-cache")), "nothing written when turned off");
    } finally {
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
