/**
 * The build cache of `cudascript run` (runtime/src/cli/run-cache.ts): a program whose sources did not
 * change runs from the previous build, without loading esbuild or the compiler; any change to what the
 * bundle was built from, or a damaged cache, builds again. Whether a run built is checked structurally
 * (every module each process loads is logged by a `--require` hook passed down in NODE_OPTIONS), never
 * by timing.
 */
import * as assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it, type TestContext } from "node:test";
import { RunCacheSlot, runCacheRoot } from "cudascript/dist/cli/run-cache";
import { driverDoubleOrSkip } from "../driver-double/test-double";
import { REPO } from "../simulator/helpers";
import { buildTimeOnly } from "./load-log";

const CLI = path.join(REPO, "runtime", "bin", "cudascript.js");

/** Logs, as JSON lines, every module each process (and thread) loads, with the process's main script. */
const LOAD_LOGGER = `
const Module = require("node:module");
const fs = require("node:fs");
const main = process.argv[1];
const load = Module._load;
Module._load = function (request, parent, isMain) {
  let file = request;
  try { file = Module._resolveFilename(request, parent, isMain); } catch {}
  fs.appendFileSync(process.env.CUDASCRIPT_TEST_LOAD_LOG, JSON.stringify({ pid: process.pid, main, file }) + "\\n");
  return load.apply(this, arguments);
};
`;

const MAIN = (factorImport: string) =>
  [
    'import { cuda } from "cudascript";',
    'import type { Real } from "./types";',
    factorImport,
    "const scale = cuda.jit((x: Float32Array, k: Real) => {",
    "  const i = cuda.grid(1);",
    "  if (i < x.length) x[i] = x[i] * k;",
    "});",
    "const x = new Float32Array(256).fill(1);",
    "scale.launch(2, 128)(x, factor + 0.5);",
    "console.log(`sum ${x.reduce((a, b) => a + b, 0)}`);",
    "",
  ].join("\n");
const FACTOR_IMPORT = 'import { factor } from "./factor";';

interface Project {
  dir: string;
  cache: string;
  file(name: string): string;
}

/** A small program in its own folder (inside the repository, so that "cudascript" resolves), with its own cache folder. */
function project(t: TestContext): Project {
  const dir = fs.mkdtempSync(path.join(REPO, "test", "dist", "runtime", "__run-cache-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, "main.ts"), MAIN(FACTOR_IMPORT));
  fs.writeFileSync(path.join(dir, "factor.ts"), "export const factor = 2;\n");
  fs.writeFileSync(path.join(dir, "types.ts"), 'import type { f32 } from "cudascript";\nexport type Real = f32;\n');
  fs.writeFileSync(path.join(dir, "load-logger.cjs"), LOAD_LOGGER);
  return { dir, cache: path.join(dir, "cache"), file: (name) => path.join(dir, name) };
}

interface Run {
  code: number | null;
  out: string;
  err: string;
  /** Build-time modules (esbuild, TypeScript, the compiler's front end) each process loaded, keyed by its main script's name. */
  buildTime: Map<string, string[]>;
}

function env(p: Project, log: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    CUDASCRIPT_BACKEND: "simulator",
    CUDASCRIPT_CACHE_DIR: p.cache,
    CUDASCRIPT_RESULTS_FILE: "",
    NODE_OPTIONS: `--require ${p.file("load-logger.cjs")}`,
    CUDASCRIPT_TEST_LOAD_LOG: log,
    ...extra,
  };
}

function buildTimeModules(log: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const lines = fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : [];
  fs.rmSync(log, { force: true });
  for (const line of lines) {
    const r = JSON.parse(line) as { main: string; file: string };
    const what = buildTimeOnly(r.file);
    const who = path.basename(r.main ?? "?");
    if (!found.has(who)) found.set(who, []);
    if (what && !found.get(who)!.includes(what)) found.get(who)!.push(what);
  }
  return found;
}


function run(p: Project, extra: NodeJS.ProcessEnv = {}, options: string[] = []): Run {
  const log = p.file(`loads-${Date.now()}.jsonl`);
  const r = spawnSync(process.execPath, [CLI, "run", ...options, p.file("main.ts")], { cwd: p.dir, encoding: "utf8", timeout: 120_000, env: env(p, log, extra) });
  return { code: r.status, out: r.stdout, err: r.stderr, buildTime: buildTimeModules(log) };
}

/** The run built its bundle: the CLI process loaded esbuild and the compiler. */
function assertBuilt(r: Run): void {
  assert.equal(r.code, 0, r.err);
  const cli = r.buildTime.get("cudascript.js") ?? [];
  assert.ok(cli.includes("esbuild") && cli.includes("@cudascript/compiler"), `expected a build, the CLI loaded: ${cli.join(", ")}`);
}

/**
 * The run reused the cached bundle: the program ran in the CLI's own process (no --timeout: no child
 * process), and that process loaded nothing build-time only.
 */
function assertReused(r: Run): void {
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(processesOf(r), ["cudascript.js"], "one process: the CLI ran the program itself");
  for (const [who, modules] of r.buildTime) assert.deepEqual(modules, [], `${who} loaded build-time modules`);
}

/** The main scripts of the processes that loaded modules (worker threads, which have none, left out). */
function processesOf(r: Run): string[] {
  return [...r.buildTime.keys()].filter((who) => who !== "?").sort();
}

function manifestOf(p: Project): string {
  const slots = fs.readdirSync(runCacheRoot(p.cache));
  assert.equal(slots.length, 1, "one entry, one set of options: one slot");
  return path.join(runCacheRoot(p.cache), slots[0]!, "manifest.json");
}

describe("cudascript run: the build cache", () => {
  it("a second run of an unchanged program reuses the first run's build: neither the CLI nor the program loads esbuild or the compiler, and the output is the same", (t) => {
    const p = project(t);
    const cold = run(p);
    assertBuilt(cold);
    assert.match(cold.out, /^sum 640$/m);
    const cached = run(p);
    assertReused(cached);
    assert.equal(cached.out, cold.out);
    assert.equal(cached.err, cold.err);
  });

  it("with --timeout the program runs in a child process that can be stopped; a reused build loads nothing build-time in either process", (t) => {
    const p = project(t);
    assertBuilt(run(p));
    const limited = run(p, {}, ["--timeout", "600"]);
    assert.equal(limited.code, 0, limited.err);
    assert.match(limited.out, /^sum 640$/m);
    assert.deepEqual(processesOf(limited), ["cudascript.js", "run-child.js"], "the CLI and its child");
    for (const [who, modules] of limited.buildTime) assert.deepEqual(modules, [], `${who} loaded build-time modules`);
  });

  it("editing the entry, a file it imports, or a type-only import builds again, and the change shows", (t) => {
    const p = project(t);
    assertBuilt(run(p));
    fs.writeFileSync(p.file("factor.ts"), "export const factor = 3;\n");
    const imported = run(p);
    assertBuilt(imported);
    assert.match(imported.out, /^sum 896$/m);
    fs.writeFileSync(p.file("main.ts"), MAIN("const factor = 1;"));
    const entry = run(p);
    assertBuilt(entry);
    assert.match(entry.out, /^sum 384$/m);
    assertReused(run(p));
    // esbuild drops a type-only import from the bundle, yet the kernel is compiled from it.
    fs.writeFileSync(p.file("types.ts"), 'import type { f64 } from "cudascript";\nexport type Real = f64;\n');
    const typeOnly = run(p);
    assertBuilt(typeOnly);
    assert.match(typeOnly.out, /^sum 384$/m);
  });

  it("a file that changes what an import resolves to builds again: ./factor taken over by factor.ts, given back when it is deleted, a nearer node_modules package", (t) => {
    const p = project(t);
    fs.rmSync(p.file("factor.ts"));
    fs.mkdirSync(p.file("factor"));
    fs.writeFileSync(p.file("factor/index.ts"), "export const factor = 2;\n");
    assert.match(run(p).out, /^sum 640$/m);
    assertReused(run(p));
    fs.writeFileSync(p.file("factor.ts"), "export const factor = 3;\n");
    const takenOver = run(p);
    assertBuilt(takenOver);
    assert.match(takenOver.out, /^sum 896$/m, "./factor now resolves to factor.ts");
    fs.rmSync(p.file("factor.ts"));
    const givenBack = run(p);
    assertBuilt(givenBack);
    assert.match(givenBack.out, /^sum 640$/m, "factor.ts was deleted");
    // A bare import: sub/factor.ts re-exports the package, first from the project's node_modules.
    const pkg = (dir: string, factor: number) => {
      fs.mkdirSync(p.file(dir), { recursive: true });
      fs.writeFileSync(p.file(`${dir}/package.json`), '{ "name": "factorlib", "main": "index.js" }\n');
      fs.writeFileSync(p.file(`${dir}/index.js`), `exports.factor = ${factor};\n`);
    };
    pkg("node_modules/factorlib", 2);
    fs.mkdirSync(p.file("sub"));
    fs.writeFileSync(p.file("sub/factor.ts"), 'export { factor } from "factorlib";\n');
    fs.writeFileSync(p.file("main.ts"), MAIN('import { factor } from "./sub/factor";'));
    assert.match(run(p).out, /^sum 640$/m);
    assertReused(run(p));
    pkg("sub/node_modules/factorlib", 3);
    const nearer = run(p);
    assertBuilt(nearer);
    assert.match(nearer.out, /^sum 896$/m, "factorlib now resolves to sub/node_modules");
  });

  it("a build option that changes the bundle (the GPU's PTX embedded, libcuda TEST DOUBLE) is another build; each is reused", (t) => {
    // The double runs nothing on a GPU: the array comes back unchanged on the GPU backend.
    const double = driverDoubleOrSkip(t);
    if (!double) return;
    const p = project(t);
    const gpu = { CUDASCRIPT_BACKEND: "gpu", CUDASCRIPT_LIBCUDA: double.path };
    assertBuilt(run(p));
    const onGpu = run(p, gpu);
    assertBuilt(onGpu);
    assert.match(onGpu.out, /^sum 256$/m);
    assertReused(run(p));
    assertReused(run(p, gpu));
  });

  it("a corrupt manifest or bundle is rebuilt, then reused", (t) => {
    const p = project(t);
    const cold = run(p);
    assertBuilt(cold);
    const manifest = manifestOf(p);
    fs.writeFileSync(manifest, fs.readFileSync(manifest, "utf8").slice(0, 40)); // truncated
    const afterManifest = run(p);
    assertBuilt(afterManifest);
    assert.equal(afterManifest.out, cold.out);
    const bundle = path.join(path.dirname(manifest), (JSON.parse(fs.readFileSync(manifest, "utf8")) as { bundle: string }).bundle);
    fs.appendFileSync(bundle, "\nthrow new Error('not the built bundle');\n");
    const afterBundle = run(p);
    assertBuilt(afterBundle);
    assert.equal(afterBundle.out, cold.out);
    assertReused(run(p));
  });

  it("a cache folder that cannot be written still runs the program (built into a temporary folder)", (t) => {
    const p = project(t);
    const notAFolder = p.file("cache-is-a-file");
    fs.writeFileSync(notAFolder, "");
    const first = run(p, { CUDASCRIPT_CACHE_DIR: notAFolder });
    assertBuilt(first);
    assert.match(first.out, /^sum 640$/m);
    assertBuilt(run(p, { CUDASCRIPT_CACHE_DIR: notAFolder }));
  });

  it("a cache folder under /proc, or every file of the cache replaced by a FIFO, still runs the program, in bounded time", (t) => {
    const p = project(t);
    // Node's recursive mkdir loops for ever under /proc: the run builds into a temporary folder.
    const underProc = run(p, { CUDASCRIPT_CACHE_DIR: "/proc/cudascript-no-such/cache" });
    assert.equal(underProc.code, 0, underProc.err);
    assert.match(underProc.out, /^sum 640$/m);
    assertBuilt(run(p));
    const files = (fs.readdirSync(p.cache, { recursive: true }) as string[]).map((f) => path.join(p.cache, f)).filter((f) => fs.statSync(f).isFile());
    assert.ok(files.some((f) => f.endsWith("manifest.json")) && files.some((f) => f.includes("v8-code-cache")), files.join("\n"));
    for (const f of files) {
      fs.rmSync(f);
      assert.equal(spawnSync("mkfifo", [f]).status, 0, "mkfifo");
    }
    const fifos = run(p);
    assertBuilt(fifos);
    assert.match(fifos.out, /^sum 640$/m);
    assertReused(run(p));
  });

  it("two runs at once leave one complete build that the next run reuses", async (t) => {
    const p = project(t);
    const both = await Promise.all(
      [1, 2].map(
        (i) =>
          new Promise<{ code: number | null; out: string }>((resolve) => {
            const child = spawn(process.execPath, [CLI, "run", p.file("main.ts")], { cwd: p.dir, env: env(p, p.file(`concurrent-${i}.jsonl`)) });
            let out = "";
            child.stdout.on("data", (d: Buffer) => (out += d.toString()));
            child.stderr.resume();
            child.on("exit", (code) => resolve({ code, out }));
          }),
      ),
    );
    for (const r of both) {
      assert.equal(r.code, 0);
      assert.match(r.out, /^sum 640$/m);
    }
    assertReused(run(p));
  });
});

describe("RunCacheSlot", () => {
  it("a build is found again only with the same options: another GPU architecture is another build", (t) => {
    const p = project(t);
    const entry = p.file("main.ts");
    const built = { contents: Buffer.from("console.log(1);\n"), inputs: [entry], lookups: [], warnings: { plain: "", color: "" }, startedAt: Date.now() + 1000 };
    const sm80 = new RunCacheSlot(entry, { cudaArchs: ["sm_80"] }, p.cache);
    assert.equal(sm80.lookup().hit, false);
    assert.ok(sm80.writable());
    assert.deepEqual(sm80.store(built)?.stored, true);
    assert.equal(new RunCacheSlot(entry, { cudaArchs: ["sm_80"] }, p.cache).lookup().hit, true);
    assert.equal(new RunCacheSlot(entry, { cudaArchs: ["sm_86"] }, p.cache).lookup().hit, false);
    assert.equal(new RunCacheSlot(entry, {}, p.cache).lookup().hit, false);
  });

  it("a manifest that is JSON but not a manifest, or names files it should not, is a miss, never a crash", (t) => {
    const p = project(t);
    const entry = p.file("main.ts");
    const slot = new RunCacheSlot(entry, {}, p.cache);
    assert.ok(slot.writable());
    assert.equal(slot.store({ contents: Buffer.from("console.log(1);\n"), inputs: [entry], lookups: [], warnings: { plain: "", color: "" }, startedAt: Date.now() + 1000 })?.stored, true);
    const manifest = path.join(slot.dir, "manifest.json");
    const valid = JSON.parse(fs.readFileSync(manifest, "utf8")) as Record<string, unknown>;
    assert.equal(slot.lookup().hit, true);
    const variants = ["null", "[]", "7", JSON.stringify({ ...valid, options: { cudaArchs: 5 } }), JSON.stringify({ ...valid, inputs: { [entry]: 1 } }), JSON.stringify({ ...valid, bundle: "../../../etc/passwd" }), JSON.stringify({ ...valid, warnings: null })];
    for (const text of variants) {
      fs.writeFileSync(manifest, text);
      assert.equal(slot.lookup().hit, false, text);
    }
  });

  it("a file saved while the build ran is not recorded: the next run builds again", (t) => {
    const p = project(t);
    const entry = p.file("main.ts");
    const slot = new RunCacheSlot(entry, {}, p.cache);
    assert.ok(slot.writable());
    const stored = slot.store({ contents: Buffer.from("console.log(1);\n"), inputs: [entry], lookups: [], warnings: { plain: "", color: "" }, startedAt: fs.statSync(entry).mtimeMs });
    assert.equal(stored?.stored, false);
    assert.ok(fs.existsSync(stored!.bundle), "this run still has its bundle");
    assert.equal(slot.lookup().hit, false);
  });
});
