import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { performance } from "node:perf_hooks";
import { nvrtcOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { checkKernel } from "../../../test/dist/support/check-sources";
import { cacheKey, CompileCache, defaultCacheDir, makeDirectory, readCacheFile, writeAtomically } from "./cache";
import { compileModuleSync } from "./compile";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-cache-test-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const KEY = cacheKey({ test: "entry" });

test("default folder: CUDASCRIPT_CACHE_DIR, then $XDG_CACHE_HOME/cudascript, then ~/.cache/cudascript", () => {
  assert.equal(defaultCacheDir({ CUDASCRIPT_CACHE_DIR: "/tmp/x", XDG_CACHE_HOME: "/xdg" }), "/tmp/x");
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: "/xdg" }), "/xdg/cudascript");
  assert.equal(defaultCacheDir({ XDG_CACHE_HOME: "relative/ignored" }), path.join(os.homedir(), ".cache", "cudascript"));
  assert.equal(defaultCacheDir({}), path.join(os.homedir(), ".cache", "cudascript"));
});

test("keys are canonical: the same parts in any order give the same key", () => {
  assert.equal(cacheKey({ a: 1, b: ["x"] }), cacheKey({ b: ["x"], a: 1 }));
  assert.notEqual(cacheKey({ a: 1 }), cacheKey({ a: 2 }));
  assert.match(KEY, /^[0-9a-f]{64}$/);
});

test("an entry round-trips PTX, CUBIN bytes and the log", (t) => {
  const cache = new CompileCache(tempDir(t));
  assert.equal(cache.read(KEY).status, "miss");
  const file = cache.write(KEY, { ptx: ".version 7.8\n", cubin: new Uint8Array([0, 1, 2, 255]), log: "ptxas info" });
  assert.ok(file && fs.existsSync(file));
  const r = cache.read(KEY);
  assert.equal(r.status, "hit");
  if (r.status !== "hit") return;
  assert.equal(r.entry.ptx, ".version 7.8\n");
  assert.deepEqual([...r.entry.cubin!], [0, 1, 2, 255]);
  assert.equal(r.entry.log, "ptxas info");
  assert.deepEqual(fs.readdirSync(path.dirname(file)), [KEY], "no temporary files are left behind");
});

test("truncated, bit-flipped, emptied or foreign entries read as corrupt", (t) => {
  const cache = new CompileCache(tempDir(t));
  const file = cache.write(KEY, { ptx: "x".repeat(1000), log: "" })!;
  const good = fs.readFileSync(file);
  const damage: [string, Buffer][] = [
    ["truncated", good.subarray(0, good.length - 10)],
    ["bit flip", Buffer.concat([good.subarray(0, good.length - 5), Buffer.from("y"), good.subarray(good.length - 4)])],
    ["empty", Buffer.alloc(0)],
    ["header only", good.subarray(0, good.indexOf(10, good.indexOf(10) + 1) + 1)],
    ["other magic", Buffer.concat([Buffer.from("GARBAGE\n"), good.subarray(good.indexOf(10) + 1)])],
  ];
  for (const [what, bytes] of damage) {
    fs.writeFileSync(file, bytes);
    const r = cache.read(KEY);
    assert.equal(r.status, "corrupt", what);
  }
  // An entry copied under another key's name is not trusted either.
  const other = cacheKey({ other: true });
  fs.mkdirSync(path.dirname(cache.fileFor(other)), { recursive: true });
  fs.writeFileSync(cache.fileFor(other), good);
  assert.equal(cache.read(other).status, "corrupt");
});

test("two processes writing the same key concurrently leave a valid entry, and readers never see a torn one", async (t) => {
  const dir = tempDir(t);
  const cacheModule = path.join(__dirname, "cache.js");
  const writer = (tag: string) =>
    new Promise<number | null>((resolve) => {
      const code = `
        const { CompileCache } = require(${JSON.stringify(cacheModule)});
        const cache = new CompileCache(${JSON.stringify(dir)});
        for (let i = 0; i < 150; i++) cache.write(${JSON.stringify(KEY)}, { ptx: ${JSON.stringify(tag)}.repeat(20000 + i), log: "w" + i });`;
      const child = spawn(process.execPath, ["-e", code], { stdio: "inherit" });
      child.on("close", resolve);
    });
  const cache = new CompileCache(dir);
  const done = Promise.all([writer("A"), writer("B")]);
  let finished = false;
  void done.then(() => (finished = true));
  let reads = 0;
  while (!finished) {
    const r = cache.read(KEY);
    assert.notEqual(r.status, "corrupt", r.status === "corrupt" ? r.reason : "");
    reads++;
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.deepEqual(await done, [0, 0]);
  const last = cache.read(KEY);
  assert.equal(last.status, "hit");
  if (last.status === "hit") assert.match(last.entry.ptx!, /^(A+|B+)$/);
  assert.ok(reads > 0);
  assert.deepEqual(fs.readdirSync(path.dirname(cache.fileFor(KEY))), [KEY], "no temporary files are left behind");
});

const SAXPY = `export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) { out[i] = a * x[i] + y[i]; }
});`;

test("a compile cache hit returns the same PTX and resources, fromCache, in under 5 ms", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const dir = tempDir(t);
  const m = checkKernel(SAXPY).module;
  const first = compileModuleSync(m, { cache: { dir }, resources: true });
  assert.ok(first.ok, first.diagnostics.map((d) => d.message).join("\n"));
  assert.equal(first.fromCache, false);
  const second = compileModuleSync(m, { cache: { dir }, resources: true });
  assert.equal(second.fromCache, true);
  assert.equal(second.ptx, first.ptx);
  assert.deepEqual([...second.resources], [...first.resources]);
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const start = performance.now();
    const r = compileModuleSync(m, { cache: { dir }, resources: true });
    times.push(performance.now() - start);
    assert.equal(r.fromCache, true);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  assert.ok(median <= 5, `median cache hit took ${median.toFixed(2)} ms`);
});

test("a corrupt or truncated compile cache entry is rebuilt", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const dir = tempDir(t);
  const m = checkKernel(SAXPY).module;
  const first = compileModuleSync(m, { cache: { dir } });
  const file = first.modules[0]!.cacheFile!;
  assert.ok(fs.existsSync(file));
  const good = fs.readFileSync(file);
  for (const bad of [good.subarray(0, good.length >> 1), Buffer.from(good.toString("latin1").replace(".entry", ".entrz"), "latin1")]) {
    fs.writeFileSync(file, bad);
    const r = compileModuleSync(m, { cache: { dir } });
    assert.ok(r.ok);
    assert.equal(r.fromCache, false, "a damaged entry is not used");
    assert.equal(r.ptx, first.ptx);
    const again = compileModuleSync(m, { cache: { dir } });
    assert.equal(again.fromCache, true, "and it was rewritten");
  }
});

test("cache: false and kernel option cache: false bypass the cache", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const dir = tempDir(t);
  const m = checkKernel(SAXPY).module;
  compileModuleSync(m, { cache: false });
  const noCacheKernel = checkKernel(SAXPY.replace(/\}\);$/, "}, { cache: false });")).module;
  const r = compileModuleSync(noCacheKernel, { cache: { dir } });
  assert.ok(r.ok);
  assert.equal(r.modules[0]!.cacheFile, undefined);
  assert.equal(fs.existsSync(path.join(dir, "nvrtc-v1")), false);
});

test("a FIFO or a /dev/zero link in place of an entry reads as corrupt at once, and a write replaces it", (t) => {
  const dir = tempDir(t);
  const cache = new CompileCache(dir);
  const file = cache.fileFor(KEY);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const makers: [string, () => void][] = [
    ["a FIFO", () => assert.equal(spawnSync("mkfifo", [file]).status, 0, "mkfifo")],
    ["a link to /dev/zero", () => fs.symlinkSync("/dev/zero", file)],
  ];
  for (const [kind, make] of makers) {
    make();
    // Read in a child with a time limit: before the fix this read never returned, which would hang the test file.
    const script = `const { CompileCache } = require(${JSON.stringify(path.join(__dirname, "cache.js"))}); console.log(JSON.stringify(new CompileCache(${JSON.stringify(dir)}).read(${JSON.stringify(KEY)})))`;
    const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
    assert.equal(r.signal, null, `reading ${kind} in place of an entry did not finish`);
    assert.deepEqual(JSON.parse(r.stdout), { status: "corrupt", file, reason: "not a regular file" }, kind);
    assert.ok(cache.write(KEY, { ptx: "// ptx", log: "" }), `a write replaces ${kind}`);
    assert.equal(cache.read(KEY).status, "hit");
    assert.ok(fs.lstatSync(file).isFile());
    fs.rmSync(file);
  }
});

test("folders under /proc (where Node's recursive mkdir loops for ever) fail at once with ENOENT: makeDirectory, writeAtomically, CompileCache.write", () => {
  // In a child with a time limit: before the fix each of these never returned.
  const cache = JSON.stringify(path.join(__dirname, "cache.js"));
  const script = `const c = require(${cache}); console.log(JSON.stringify([c.makeDirectory("/proc/cudascript-no-such/a/b"), c.writeAtomically("/proc/cudascript-no-such/a/f", Buffer.from("x")), c.writeAtomically("/proc/self/fd/new/f", Buffer.from("x")), new c.CompileCache("/proc/cudascript-no-such").write(${JSON.stringify(KEY)}, { log: "" }) ?? null]))`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  assert.equal(r.signal, null, "did not finish");
  assert.equal(r.status, 0, r.stderr);
  const [made, written, underFd, entry] = JSON.parse(r.stdout) as unknown[];
  assert.equal(made, "ENOENT");
  assert.equal(written, "ENOENT");
  assert.equal(typeof underFd, "string", "an error code");
  assert.equal(entry, null, "the entry is not written");
});

test("makeDirectory makes the missing folders, accepts an existing one, and refuses a path under a file", (t) => {
  const dir = tempDir(t);
  assert.equal(makeDirectory(path.join(dir, "a", "b", "c")), undefined);
  assert.ok(fs.statSync(path.join(dir, "a", "b", "c")).isDirectory());
  assert.equal(makeDirectory(path.join(dir, "a")), undefined);
  fs.writeFileSync(path.join(dir, "file"), "");
  assert.equal(makeDirectory(path.join(dir, "file", "sub")), "ENOTDIR");
  assert.equal(makeDirectory(path.join(dir, "file")), "ENOTDIR");
});

test("readCacheFile reads a regular file, says missing, and refuses a FIFO, a folder or /dev/zero without blocking", (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, "entry");
  fs.writeFileSync(file, "data");
  const fifo = path.join(dir, "fifo");
  assert.equal(spawnSync("mkfifo", [fifo]).status, 0, "mkfifo");
  fs.symlinkSync("/dev/zero", path.join(dir, "zero"));
  const script = `const c = require(${JSON.stringify(path.join(__dirname, "cache.js"))}); console.log(JSON.stringify(["entry", "none", "fifo", "zero", "."].map((n) => { const r = c.readCacheFile(require("path").join(${JSON.stringify(dir)}, n)); return r.status === "read" ? r.data.toString() : r.status; })))`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  assert.equal(r.signal, null, "did not finish");
  assert.deepEqual(JSON.parse(r.stdout), ["data", "missing", "not a regular file", "not a regular file", "not a regular file"]);
  assert.equal(typeof writeAtomically, "function");
  assert.equal(readCacheFile(file).status, "read");
});
