/**
 * Kernels with no build step run under every way a TypeScript project runs: plain node on tsc's output
 * (mapped through its source maps), tsx (as a loader and as a CLI), Vitest, a kernel library installed in
 * node_modules, and Node's own type stripping. Each program launches a saxpy and a shared-memory
 * reduction on the simulator; the kernels are compiled from their TypeScript at the first launch.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { EXPECTED, KERNELS_TS, MAIN_TS, makeProject, REPO, SIZES_TS, tsc, TSC_CJS } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");
const VITEST_CLI = path.join(REPO, "node_modules", "vitest", "vitest.mjs");

describe("kernels compile from source with no build step", () => {
  it("plain node on tsc's output: the call position in the .js is mapped to the .ts through its source map", () => {
    const p = makeProject({ "src/kernels.ts": KERNELS_TS, "src/sizes.ts": SIZES_TS, "src/main.ts": MAIN_TS }, ["cudascript", "@types/node"]);
    try {
      // Out of the source folder, so nothing but the map leads from dist/kernels.js to src/kernels.ts.
      tsc(p, [...TSC_CJS, "--sourceMap", "--rootDir", "src", "--outDir", "dist", "src/main.ts"]);
      assert.deepEqual(p.runJson(["dist/main.js"]), EXPECTED);
      // Inline maps (data: URLs) too.
      tsc(p, [...TSC_CJS, "--inlineSourceMap", "--rootDir", "src", "--outDir", "inline", "src/main.ts"]);
      assert.deepEqual(p.runJson(["inline/main.js"], { env: { CUDASCRIPT_CACHE_DIR: path.join(p.dir, "cache-inline") } }), EXPECTED);
    } finally {
      p.remove();
    }
  });

  it("node --import tsx and the tsx CLI on a .ts program", () => {
    const p = makeProject({ "kernels.ts": KERNELS_TS, "sizes.ts": SIZES_TS, "main.ts": MAIN_TS }, ["cudascript", "tsx"]);
    try {
      assert.deepEqual(p.runJson(["--import", "tsx", "main.ts"]), EXPECTED);
      assert.deepEqual(p.runJson([TSX_CLI, "main.ts"], { env: { CUDASCRIPT_CACHE_DIR: path.join(p.dir, "cache-cli") } }), EXPECTED);
    } finally {
      p.remove();
    }
  });

  it("plain node on tsc's ES module output (file:// URLs in the stack, mapped through the source maps)", () => {
    const p = makeProject(
      {
        "package.json": '{ "type": "module" }\n',
        "src/kernels.ts": KERNELS_TS.replace('"./sizes"', '"./sizes.js"'),
        "src/sizes.ts": SIZES_TS,
        "src/main.ts": MAIN_TS.replace('"./kernels"', '"./kernels.js"').replace('"./sizes"', '"./sizes.js"'),
      },
      ["cudascript", "@types/node"],
    );
    try {
      tsc(p, ["--module", "nodenext", "--target", "es2022", "--strict", "--skipLibCheck", "--sourceMap", "--rootDir", "src", "--outDir", "dist", "src/main.ts"]);
      assert.deepEqual(p.runJson(["dist/main.js"]), EXPECTED);
    } finally {
      p.remove();
    }
  });

  it("vitest run on a test file that launches the kernels and checks their results", () => {
    const test = [
      'import { expect, test } from "vitest";',
      'import { blockSum, saxpy } from "./kernels";',
      'test("saxpy and a shared-memory reduction", () => {',
      "  const n = 1000;",
      "  const x = Float32Array.from({ length: n }, (_, i) => i);",
      "  const out = new Float32Array(n);",
      "  saxpy.launch(16, 64)(2, x, new Float32Array(n).fill(1), out);",
      "  expect(out.every((v, i) => v === 2 * i + 1)).toBe(true);",
      "  const partial = new Float32Array(16);",
      "  blockSum.launch(16, 64)(x, partial);",
      "  expect(partial.reduce((a, b) => a + b, 0)).toBe(499500);",
      "});",
      "",
    ].join("\n");
    const p = makeProject(
      { "kernels.ts": KERNELS_TS, "sizes.ts": SIZES_TS, "kernels.test.ts": test, "vitest.config.mjs": 'export default { test: { include: ["kernels.test.ts"] } };\n' },
      ["cudascript", "vitest"],
    );
    try {
      const r = p.run([VITEST_CLI, "run", "--config", "vitest.config.mjs"]);
      assert.equal(r.status, 0, `vitest failed:\n${r.stdout}\n${r.stderr}`);
      assert.match(r.stdout, /Tests\s+1 passed/);
    } finally {
      p.remove();
    }
  });

  it("a kernel library in node_modules (tsc's .js and .js.map beside its .ts sources) compiles from the mapped .ts", () => {
    const main = [
      'const { blockSum, saxpy } = require("mylib");',
      "const n = 1000;",
      "const x = Float32Array.from({ length: n }, (_, i) => i);",
      "const out = new Float32Array(n);",
      "saxpy.launch(16, 64)(2, x, new Float32Array(n).fill(1), out);",
      "const partial = new Float32Array(16);",
      "blockSum.launch(16, 64)(x, partial);",
      "console.log(JSON.stringify({ saxpyOk: out.every((v, i) => v === 2 * i + 1), sum: partial.reduce((a, b) => a + b, 0), blocks: 16, names: [saxpy.name, blockSum.name] }));",
      "",
    ].join("\n");
    const p = makeProject(
      {
        "mylib/package.json": JSON.stringify({ name: "mylib", version: "1.0.0", main: "dist/index.js" }),
        "mylib/src/index.ts": 'export { blockSum, saxpy } from "./kernels";\n',
        "mylib/src/kernels.ts": KERNELS_TS,
        "mylib/src/sizes.ts": SIZES_TS,
        "main.js": main,
      },
      ["cudascript", "@types/node"],
    );
    try {
      // Built where it is written, then installed as npm would: the package folder, sources and all.
      tsc(p, [...TSC_CJS, "--sourceMap", "--declaration", "--rootDir", "mylib/src", "--outDir", "mylib/dist", "mylib/src/index.ts"]);
      fs.cpSync(path.join(p.dir, "mylib"), path.join(p.dir, "node_modules", "mylib"), { recursive: true });
      fs.rmSync(path.join(p.dir, "mylib"), { recursive: true });
      assert.deepEqual(p.runJson(["main.js"]), EXPECTED);
    } finally {
      p.remove();
    }
  });

  it("node --experimental-strip-types (Node ≥ 22.6): the positions are the .ts file's own", (t) => {
    const node = nodeWithStripTypes();
    if (!node) {
      t.skip(`needs a node ≥ 22.6 for --experimental-strip-types; this is ${process.version} and no newer node is on PATH`);
      return;
    }
    // Type stripping needs explicit extensions in relative imports.
    const p = makeProject({
      "kernels.ts": KERNELS_TS.replace('"./sizes"', '"./sizes.ts"'),
      "sizes.ts": SIZES_TS,
      "main.ts": MAIN_TS.replace('"./kernels"', '"./kernels.ts"').replace('"./sizes"', '"./sizes.ts"'),
      "package.json": '{ "type": "module" }\n',
    });
    try {
      const r = p.run(["--experimental-strip-types", "--no-warnings", "main.ts"], { command: node });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim().split("\n").pop()!), EXPECTED);
    } finally {
      p.remove();
    }
  });
});

/** A node that has --experimental-strip-types: this one, or another `node` on PATH. */
function nodeWithStripTypes(): string | undefined {
  const candidates = [process.execPath, ...spawnSync("which", ["-a", "node"], { encoding: "utf8" }).stdout.split("\n").filter(Boolean)];
  return candidates.find((node) => {
    const v = spawnSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout.trim().split(".").map(Number);
    return v.length === 3 && (v[0]! > 22 || (v[0] === 22 && v[1]! >= 6));
  });
}
