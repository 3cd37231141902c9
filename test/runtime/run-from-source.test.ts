/**
 * `cudascript run` where esbuild is not installed (the VS Code extension's bundled CLI ships without
 * it; `npm install --omit=optional` leaves its binary out): the program runs from its TypeScript source
 * through Node's module hooks (runtime/src/cli/typescript-hooks.ts) and its kernels compile at their
 * first launch. esbuild is hidden by a preload (fixtures/no-natives/hide-natives.cjs), as on such a
 * machine; everything else is real.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { REPO } from "../simulator/helpers";

const CLI = path.join(REPO, "runtime", "dist", "cli", "main.js");
const HIDE = path.join(REPO, "test", "runtime", "fixtures", "no-natives", "hide-natives.cjs");
const HOOKS = path.join(REPO, "runtime", "dist", "cli", "typescript-hooks.js");

let cache: string;
before(() => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), "cs-run-source-cache-"));
});
after(() => fs.rmSync(cache, { recursive: true, force: true }));

function run(args: string[], opts: { cwd?: string; withoutEsbuild: boolean }) {
  const r = spawnSync(process.execPath, [...(opts.withoutEsbuild ? ["--require", HIDE] : []), CLI, "run", ...args], {
    cwd: opts.cwd ?? REPO,
    encoding: "utf8",
    timeout: 120_000,
    env: { ...process.env, CUDASCRIPT_BACKEND: "", CUDASCRIPT_CACHE_DIR: cache, CUDASCRIPT_RESULTS_FILE: "", NO_COLOR: "1" },
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Output with the timings (which differ run to run) taken out. */
const untimed = (s: string) => s.replace(/\d+(\.\d+)? ms/g, "… ms");

describe("cudascript run without esbuild: the program runs from its TypeScript source", () => {
  for (const example of ["saxpy", "reduction", "matmul", "histogram", "mandelbrot"]) {
    it(`examples/${example}.ts prints what the bundled run prints, in process and under --timeout`, () => {
      const bundled = run([`examples/${example}.ts`], { withoutEsbuild: false });
      assert.equal(bundled.code, 0, bundled.err);
      for (const args of [[`examples/${example}.ts`], ["--timeout", "60", `examples/${example}.ts`]]) {
        const fromSource = run(args, { withoutEsbuild: true });
        assert.equal(fromSource.code, 0, fromSource.err);
        assert.match(fromSource.err, new RegExp(`esbuild for ${process.platform}-${process.arch} is not installed here .*: running examples/${example}\\.ts from its TypeScript source, its kernels compiled at their first launch`));
        assert.equal(untimed(fromSource.out), untimed(bundled.out));
        assert.match(fromSource.out, /OK/);
      }
    });
  }

  describe("a program of several files", () => {
    let dir: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-run-source-"));
      fs.writeFileSync(
        path.join(dir, "kernels.ts"),
        'import { cuda, type f32 } from "cudascript";\n\nexport const scale = cuda.jit((a: Float32Array, s: f32) => {\n  const i = cuda.grid(1);\n  if (i < a.length) a[i] = a[i] * s;\n});\n',
      );
      fs.writeFileSync(path.join(dir, "format.ts"), 'export enum Sep { Comma = "," }\nexport function join(a: Float32Array): string {\n  return Array.from(a).join(Sep.Comma);\n}\n');
      fs.writeFileSync(
        path.join(dir, "main.ts"),
        [
          'import { cuda } from "cudascript";',
          'import { scale } from "./kernels.js";', // NodeNext style: the .ts twin of ./kernels.js
          'import { join } from "./format";', // extensionless
          "const poke = cuda.jit((a: Float32Array) => {",
          "  const i = cuda.grid(1);",
          "  a[i + 100] = 1;",
          "});",
          "const a: Float32Array = new Float32Array(4).fill(2);",
          "scale.launch(1, 32)(a, 3);",
          'console.log(join(a), process.argv.slice(2).join(" "));',
          "poke.launch(1, 32)(a);",
          "",
        ].join("\n"),
      );
      fs.writeFileSync(path.join(dir, "broken.ts"), 'import { cuda } from "cudascript";\nconst x: number = ;\n');
      // Past what TypeScript's parser (parentheses) and emitter (a ?: chain) can recurse through.
      fs.writeFileSync(path.join(dir, "deep-parens.ts"), `const x = ${"(".repeat(20000)}1${")".repeat(20000)};\n`);
      fs.writeFileSync(path.join(dir, "deep-ternary.ts"), `const y = 1;\nconst x = ${"a ? b : ".repeat(20000)}c;\n`);
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    it("imports ./x.js and ./x as their .ts files, runs enums, passes the program's arguments, and a kernel fault names the TypeScript lines of the kernel and of its launch", () => {
      for (const timeout of [[], ["--timeout", "60"]]) {
        const r = run([...timeout, "main.ts", "--size", "4"], { cwd: dir, withoutEsbuild: true });
        assert.equal(r.code, 1, r.err);
        assert.match(r.out, /^6,6,6,6 --size 4$/m);
        assert.match(r.err, /CSR020: out-of-bounds write of array 'a' at main\.ts:6:3 in kernel 'poke'/);
        assert.match(r.err, /\(from the host program at main\.ts:11:\d+\)/);
        assert.doesNotMatch(r.err, /^\s+at /m, "no stack trace");
      }
    });

    it("a syntax error is CSR055 with its TypeScript line, not a stack trace", () => {
      const r = run(["broken.ts"], { cwd: dir, withoutEsbuild: true });
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, /cudascript: error CSR055: broken\.ts:2:19 - error TS1109: Expression expected\./);
      assert.doesNotMatch(r.err, /^\s+at /m, "no stack trace");
    });

    it("a file nested too deeply for TypeScript is CSR055 at the first too-deep construct, not a stack overflow's trace", () => {
      for (const [file, at] of [["deep-parens.ts", "1:523"], ["deep-ternary.ts", "2:4075"]] as const) {
        const r = run([file], { cwd: dir, withoutEsbuild: true });
        assert.equal(r.code, 1, r.err);
        assert.match(r.err, new RegExp(`cudascript: error CSR055: ${file.replace(".", "\\.")}:${at} - the program nests too deeply for TypeScript \\(more than 512 levels here\\)`));
        assert.doesNotMatch(r.err, /^\s+at |RangeError/m, "no stack trace");
      }
    });
  });
});

describe("typescript-hooks", () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const hooks = require(HOOKS) as typeof import("../../runtime/src/cli/typescript-hooks");

  it("a relative import that finds no file tries its TypeScript twins, as TypeScript resolves it", () => {
    assert.deepEqual(hooks.typescriptTwins("./a.js"), ["./a.ts"]);
    assert.deepEqual(hooks.typescriptTwins("../b.mjs"), ["../b.mts"]);
    assert.deepEqual(hooks.typescriptTwins("./c.cjs"), ["./c.cts"]);
    assert.deepEqual(hooks.typescriptTwins("./lib"), ["./lib.ts", "./lib.mts", "./lib/index.ts"]);
    assert.deepEqual(hooks.typescriptTwins("./d.ts"), []);
  });

  it("transpiles to an ES module with an inline source map, gives `require` only to a module that calls it and declares none", () => {
    const plain = hooks.transpile("/p/a.ts", "const x: number = 1;\nexport default x;\n");
    assert.match(plain, /^const x = 1;/);
    assert.match(plain, /sourceMappingURL=data:application\/json;base64,/);
    const calls = hooks.transpile("/p/b.ts", 'const fs = require("node:fs");\nexport { fs };\n');
    assert.match(calls, /^import \{ createRequire as __cudascriptCreateRequire \} from "node:module"; const require = /);
    assert.match(calls.split("\n")[0]!, /const require = .*; const fs = require\("node:fs"\);$/, "the banner shares the first line: the source map's lines stay right");
    const declares = hooks.transpile("/p/c.ts", 'import { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);\nrequire("node:fs");\n');
    assert.doesNotMatch(declares, /__cudascriptCreateRequire/);
  });
});
