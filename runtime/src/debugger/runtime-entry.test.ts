/**
 * The debugger compiles its expressions with the compiler (the front end and TypeScript): a plain
 * program's `import "cudascript"` must load neither it nor the debugger. Of the compiler it loads only
 * the modules that import nothing of it: the dtype table, the synchronisation semantics and the cache
 * files' helpers (`@cudascript/compiler/dtypes`, `…/intrinsics/sync`, `…/cache`).
 */
import * as assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as path from "node:path";
import { describe, it } from "node:test";

describe("debugger: the runtime entry", () => {
  it("loading cudascript loads neither the debugger nor the compiler (but its import-free tables) nor TypeScript", () => {
    const entry = path.join(__dirname, "..", "index.js");
    const script = `require(${JSON.stringify(entry)}); process.stdout.write(JSON.stringify(Object.keys(require.cache)));`;
    const loaded = JSON.parse(execFileSync(process.execPath, ["-e", script], { encoding: "utf8" })) as string[];
    assert.ok(loaded.some((f) => f.endsWith(`${path.sep}errors.js`)), "the runtime itself is loaded");
    const dtypeTable = /[\\/]compiler[\\/]dist[\\/](dtypes[\\/]|intrinsics[\\/]sync\.js$|compile[\\/]cache\.js$)/;
    assert.ok(loaded.some((f) => dtypeTable.test(f)), "the dtype table is loaded");
    assert.deepEqual(loaded.filter((f) => /[\\/](debugger|compiler[\\/]dist|typescript)[\\/]/.test(f) && !dtypeTable.test(f)), []);
  });
});
