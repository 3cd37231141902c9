/**
 * The disk cache of kernels compiled from source: a second process takes them from the cache without
 * loading the compiler; an edit of the kernel file or of a file it imports compiles again; a corrupt
 * entry is compiled again; an unwritable cache folder still runs, with one note.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { assertNoBuildTimeModules, buildTimeOnly, LOAD_LOGGER, type LoadRecord } from "../load-log";
import { EXPECTED, KERNELS_TS, MAIN_TS, makeProject, REPO, SIZES_TS, tsc, TSC_CJS } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");

/** Every file of the project's from-source cache. */
function cacheEntries(dir: string): string[] {
  const root = path.join(dir, "from-source-v1");
  if (!fs.existsSync(root)) return [];
  return (fs.readdirSync(root, { recursive: true }) as string[]).map((f) => path.join(root, f)).filter((f) => fs.statSync(f).isFile());
}

describe("the compile-from-source disk cache", () => {
  it("a second process reuses the cached kernels and loads no typescript or compiler front end", () => {
    const p = makeProject({ "src/kernels.ts": KERNELS_TS, "src/sizes.ts": SIZES_TS, "src/main.ts": MAIN_TS, "load-logger.cjs": LOAD_LOGGER }, ["cudascript", "@types/node"]);
    try {
      tsc(p, [...TSC_CJS, "--sourceMap", "--rootDir", "src", "--outDir", "dist", "src/main.ts"]);
      const logged = (log: string) => {
        const out = p.runJson(["--require", "./load-logger.cjs", "dist/main.js"], { env: { CUDASCRIPT_TEST_LOAD_LOG: path.join(p.dir, log) } });
        const loads = fs.readFileSync(path.join(p.dir, log), "utf8").trim().split("\n").map((l) => JSON.parse(l) as LoadRecord);
        return { out, loads };
      };
      const first = logged("first.jsonl");
      assert.deepEqual(first.out, EXPECTED);
      // The logger sees the compiler when it is loaded: the first run compiled.
      assert.ok(first.loads.some((r) => r.file !== undefined && buildTimeOnly(r.file) === "@cudascript/compiler"), "the first run did not load the compiler");
      assert.equal(cacheEntries(path.join(p.dir, "cache")).length, 1, "one entry for the file's two kernels");
      const second = logged("second.jsonl");
      assert.deepEqual(second.out, EXPECTED);
      assertNoBuildTimeModules(second.loads);
    } finally {
      p.remove();
    }
  });

  it("editing the kernel file or a file it imports compiles the kernels again", () => {
    const kernels = [
      'import { cuda, f32 } from "cudascript";',
      'import { GAIN } from "./gain";',
      "export const scale = cuda.jit((x: Float32Array, out: Float32Array) => {",
      "  const i = cuda.grid(1);",
      "  if (i < x.length) out[i] = x[i] * GAIN + 0;",
      "});",
      "",
    ].join("\n");
    const main = 'import { scale } from "./kernels";\nconst out = new Float32Array(4);\nscale.launch(1, 4)(new Float32Array([1, 2, 3, 4]), out);\nconsole.log(JSON.stringify([...out]));\n';
    const p = makeProject({ "kernels.ts": kernels, "gain.ts": "export const GAIN = 2;\n", "main.ts": main });
    try {
      const run = () => p.runJson([TSX_CLI, "main.ts"]);
      assert.deepEqual(run(), [2, 4, 6, 8]);
      assert.deepEqual(run(), [2, 4, 6, 8]); // from the cache
      p.write("gain.ts", "export const GAIN = 3;\n");
      assert.deepEqual(run(), [3, 6, 9, 12], "an edit of an imported constant was not seen");
      p.write("kernels.ts", kernels.replace("GAIN + 0", "GAIN + 100"));
      assert.deepEqual(run(), [103, 106, 109, 112], "an edit of the kernel file was not seen");
    } finally {
      p.remove();
    }
  });

  it("a file that changes what an import resolves to compiles the kernels again", () => {
    // `./gain` is first the folder's index.ts; a gain.ts beside the folder takes its place, and
    // deleting it gives the folder back. `gainlib` is first the project's node_modules package; a
    // nearer node_modules/gainlib (beside the kernel file) takes its place.
    const kernels = [
      'import { cuda } from "cudascript";',
      'import { GAIN } from "./gain";',
      'import { OFFSET } from "gainlib";',
      "export const scale = cuda.jit((x: Float32Array, out: Float32Array) => {",
      "  const i = cuda.grid(1);",
      "  if (i < x.length) out[i] = x[i] * GAIN + OFFSET;",
      "});",
      "",
    ].join("\n");
    const main = 'import { scale } from "./src/kernels";\nconst out = new Float32Array(4);\nscale.launch(1, 4)(new Float32Array([1, 2, 3, 4]), out);\nconsole.log(JSON.stringify([...out]));\n';
    const gainlib = (offset: number) => ({ "package.json": '{ "name": "gainlib", "main": "index.ts", "types": "index.ts" }\n', "index.ts": `export const OFFSET = ${offset};\n` });
    const p = makeProject({ "src/kernels.ts": kernels, "src/gain/index.ts": "export const GAIN = 2;\n", "main.ts": main });
    try {
      for (const [name, text] of Object.entries(gainlib(0))) p.write(`node_modules/gainlib/${name}`, text);
      const run = () => p.runJson([TSX_CLI, "main.ts"]);
      assert.deepEqual(run(), [2, 4, 6, 8]);
      assert.deepEqual(run(), [2, 4, 6, 8]); // from the cache
      p.write("src/gain.ts", "export const GAIN = 3;\n");
      assert.deepEqual(run(), [3, 6, 9, 12], "./gain now resolves to gain.ts, yet the kernel of gain/index.ts ran");
      fs.rmSync(path.join(p.dir, "src/gain.ts"));
      assert.deepEqual(run(), [2, 4, 6, 8], "gain.ts was deleted, yet its kernel ran");
      for (const [name, text] of Object.entries(gainlib(100))) p.write(`src/node_modules/gainlib/${name}`, text);
      assert.deepEqual(run(), [102, 104, 106, 108], "gainlib now resolves to src/node_modules, yet the kernel of the outer package ran");
    } finally {
      p.remove();
    }
  });

  it("a corrupt cache entry is compiled again and replaced", () => {
    const p = makeProject({ "kernels.ts": KERNELS_TS, "sizes.ts": SIZES_TS, "main.ts": MAIN_TS });
    try {
      assert.deepEqual(p.runJson([TSX_CLI, "main.ts"]), EXPECTED);
      const [entry] = cacheEntries(path.join(p.dir, "cache"));
      assert.ok(entry, "no cache entry was written");
      const good = fs.readFileSync(entry);
      // Truncated, then garbage: each time the run compiles again and rewrites a whole entry.
      for (const bad of [good.subarray(0, good.length >> 1), Buffer.from("not a cache entry")]) {
        fs.writeFileSync(entry, bad);
        assert.deepEqual(p.runJson([TSX_CLI, "main.ts"]), EXPECTED);
        assert.deepEqual(fs.readFileSync(entry), good);
      }
    } finally {
      p.remove();
    }
  });

  it("an unwritable cache folder still runs the kernels, with one note", () => {
    const p = makeProject({ "kernels.ts": KERNELS_TS, "sizes.ts": SIZES_TS, "main.ts": MAIN_TS });
    try {
      // A regular file where the folder should be: nothing can be created under it.
      const blocked = p.write("not-a-folder", "");
      const r = p.run([TSX_CLI, "main.ts"], { env: { CUDASCRIPT_CACHE_DIR: blocked } });
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim()), EXPECTED);
      const notes = r.stderr.split("\n").filter((l) => l.includes("cannot write the kernel cache"));
      assert.equal(notes.length, 1, r.stderr);
      assert.match(notes[0]!, /not-a-folder.*CUDASCRIPT_CACHE_DIR/);
    } finally {
      p.remove();
    }
  });

  it("a cache folder under /proc, or every file of the cache replaced by a FIFO, still runs the kernels, in bounded time", () => {
    const p = makeProject({ "kernels.ts": KERNELS_TS, "sizes.ts": SIZES_TS, "main.ts": MAIN_TS });
    try {
      // Node's recursive mkdir loops for ever under /proc: the cache is skipped, with the note.
      const r = p.run([TSX_CLI, "main.ts"], { env: { CUDASCRIPT_CACHE_DIR: "/proc/cudascript-no-such/cache" } });
      assert.equal(r.signal, null, "the run under /proc did not finish");
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(JSON.parse(r.stdout.trim()), EXPECTED);
      assert.match(r.stderr, /cannot write the kernel cache in \/proc\/cudascript-no-such\/cache \(ENOENT\)/);
      // The entry and V8's code cache of TypeScript, each a FIFO: never opened for reading, compiled again.
      assert.deepEqual(p.runJson([TSX_CLI, "main.ts"]), EXPECTED);
      const files = cacheEntries(path.join(p.dir, "cache")).concat(((fs.readdirSync(path.join(p.dir, "cache", "v8-code-cache")) as string[]).map((f) => path.join(p.dir, "cache", "v8-code-cache", f))));
      assert.ok(files.length >= 2, files.join("\n"));
      for (const f of files) {
        fs.rmSync(f);
        assert.equal(spawnSync("mkfifo", [f]).status, 0, "mkfifo");
      }
      const fifos = p.run([TSX_CLI, "main.ts"]);
      assert.equal(fifos.signal, null, "the run with FIFOs in the cache did not finish");
      assert.equal(fifos.status, 0, fifos.stderr);
      assert.deepEqual(JSON.parse(fifos.stdout.trim()), EXPECTED);
    } finally {
      p.remove();
    }
  });
});
