/** `cudascript compile` as a user runs it: a child process, real files, exit codes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { assemblePtx } from "@cudascript/native-bindings";
import { nvrtcOrSkip, ptxasOrSkip } from "../support/toolchain-or-skip";

const repo = path.resolve(__dirname, "../../..");
const cli = path.join(repo, "runtime/dist/cli/main.js");
const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-cli-cache-"));
process.on("exit", () => fs.rmSync(cacheDir, { recursive: true, force: true }));

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  // A time limit: a compile that blocks (a FIFO, a folder under /proc) fails its test instead of hanging the suite.
  const r = spawnSync(process.execPath, [cli, "compile", ...args], { cwd: repo, encoding: "utf8", timeout: 120_000, env: { ...process.env, CUDASCRIPT_CACHE_DIR: cacheDir, ...env } });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

function tmp(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-cli-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("--emit ptx -o dir writes a .ptx that ptxas assembles", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const ptxas = ptxasOrSkip(t);
  if (!ptxas) return;
  const dir = tmp(t);
  const r = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx", "-o", dir]);
  assert.equal(r.code, 0, r.err);
  const ptx = fs.readFileSync(path.join(dir, "saxpy.ptx"), "utf8");
  assert.match(ptx, /\.visible \.entry saxpy\(/);
  assert.match(r.out, /wrote .*saxpy\.ptx/);
  const a = assemblePtx(ptxas, ptx, "sm_80");
  assert.ok(a.ok, a.stderr);
});

test("--emit ptx compiles deeply nested kernels: a Horner polynomial, 100 nested ifs, a 500-term sum", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const dir = tmp(t);
  const r = run(["test/corpus/valid/deeply_nested.ts", "--emit", "ptx", "--no-cache", "-o", dir]);
  assert.equal(r.signal, null, "NVRTC must not take the CLI down");
  assert.equal(r.code, 0, r.err);
  const ptx = fs.readFileSync(path.join(dir, "deeply_nested.ptx"), "utf8");
  for (const k of ["horner", "nestedIfs", "longSum"]) assert.match(ptx, new RegExp(`\\.visible \\.entry ${k}\\(`));
});

test("a crash of NVRTC is CS9003 at the kernel and exit code 1, and the CLI lives to say so", (t) => {
  if (!nvrtcOrSkip(t)) return;
  // A 64 KiB stack for NVRTC's compile child: NVRTC really crashes (SIGSEGV) on any kernel.
  const r = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx", "--no-cache"], { CUDASCRIPT_NVRTC_STACK_KIB: "64" });
  assert.equal(r.signal, null);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /saxpy\.ts:\d+:\d+ .*CS9003.*NVRTC crashed \(SIGSEGV\) while compiling saxpy\.cu/);
  assert.equal(r.out, "");
});

test("--emit resources prints registers per kernel", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const r = run(["test/corpus/valid/block_reduce.ts", "--emit", "resources", "--arch", "sm_80"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /kernel\s+registers\s+shared\s+local\s+spill st\/ld/);
  assert.match(r.out, /^blockSum\s+\d+\s+512 B\s+0 B\s+0\/0 B$/m);
});

test("--emit cuda,ptx,cubin -o dir writes all three", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const dir = tmp(t);
  const r = run(["test/corpus/valid/matmul_tiled.ts", "--emit", "cuda,ptx,cubin", "-o", dir]);
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(fs.readdirSync(dir).sort(), ["matmul_tiled.cu", "matmul_tiled.cubin", "matmul_tiled.ptx"]);
  assert.match(fs.readFileSync(path.join(dir, "matmul_tiled.cu"), "utf8"), /extern "C" __global__ void matmulTiled\(/);
});

test("--emit cuda prints CUDA C++ and needs no NVRTC", () => {
  const r = run(["test/corpus/valid/saxpy.ts", "--emit", "cuda", "--nvrtc", "/nonexistent/libnvrtc.so.42"]);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /#line 4 "saxpy\.ts"\nextern "C" __global__ void saxpy\(/);
});

test("without NVRTC, --emit ptx exits 2 and says what to install", () => {
  const r = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx", "--nvrtc", "/nonexistent/libnvrtc.so.42"]);
  assert.equal(r.code, 2);
  assert.match(r.err, /CSN001/);
  assert.match(r.err, /libnvrtc/);
  assert.equal(r.out, "");
});

test("checker errors are printed like `check` and exit 1", () => {
  const r = run(["test/corpus/invalid/cs3001-local-size-from-param.ts", "--emit", "cuda"]);
  assert.equal(r.code, 1);
  assert.match(r.err, /^test\/corpus\/invalid\/cs3001-local-size-from-param\.ts:\d+:\d+ - error CS3001: /m);
  assert.equal(r.out, "");
});

test("a TypeScript syntax error stops compile with CS1020 and exit 1", () => {
  const r = run(["test/corpus/invalid/cs1020-missing-paren.ts", "--emit", "cuda"]);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.err, /^test\/corpus\/invalid\/cs1020-missing-paren\.ts:5:24 - error CS1020: TS1005: '\)' expected\.$/m);
  assert.equal(r.out, "");
});

test("usage errors exit 2", () => {
  assert.equal(run([]).code, 2);
  assert.equal(run(["test/corpus/valid/saxpy.ts", "--emit", "sass"]).code, 2);
  assert.equal(run(["test/corpus/valid/saxpy.ts", "--arch", "volta"]).code, 2);
  assert.equal(run(["test/corpus/valid/saxpy.ts", "--emit", "cubin"]).code, 2, "cubin needs -o");
  assert.equal(run(["no/such/file.ts"]).code, 2);
});

test("-o naming a file, or a path under a file, is a usage error (exit 2) that says to give a folder", (t) => {
  const dir = tmp(t);
  const file = path.join(dir, "out.txt");
  fs.writeFileSync(file, "not a folder");
  for (const target of [file, path.join(file, "sub")]) {
    const r = run(["test/corpus/valid/saxpy.ts", "--emit", "cuda", "-o", target]);
    assert.equal(r.code, 2, r.err);
    assert.match(r.err, /-o names the folder to write into, but .*out\.txt is a file: give a folder \(it is created if missing\)/);
    assert.doesNotMatch(r.err, /internal error/);
  }
  assert.equal(fs.readFileSync(file, "utf8"), "not a folder", "the file was left alone");
});

test("an output file that cannot be written (a folder of that name) is reported by name, exit 2", (t) => {
  const dir = tmp(t);
  fs.mkdirSync(path.join(dir, "saxpy.cu"));
  const r = run(["test/corpus/valid/saxpy.ts", "--emit", "cuda", "-o", dir]);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /cannot write .*saxpy\.cu: EISDIR/);
  assert.doesNotMatch(r.err, /internal error/);
});

test("a FIFO or a folder given as the file is refused at once, exit 2", (t) => {
  const dir = tmp(t);
  const fifo = path.join(dir, "pipe.ts");
  assert.equal(spawnSync("mkfifo", [fifo]).status, 0, "mkfifo");
  for (const [target, why] of [[fifo, /not a regular file \(a FIFO\)/], [dir, /not a regular file \(a folder\)/]] as const) {
    const r = spawnSync(process.execPath, [cli, "compile", target, "--emit", "cuda"], { cwd: repo, encoding: "utf8", timeout: 60_000 });
    assert.equal(r.signal, null, "compile finished");
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, why);
  }
});

test("-o under /proc (where Node's recursive mkdir loops) is an error that names the folder, at once, exit 2", () => {
  const r = run(["test/corpus/valid/saxpy.ts", "--emit", "cuda", "-o", "/proc/cudascript-no-such/out"]);
  assert.equal(r.signal, null, "compile finished");
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /cannot create the output folder \/proc\/cudascript-no-such\/out \(ENOENT\)/);
  assert.doesNotMatch(r.err, /internal error/);
});

test("a cache folder under /proc, or every cache file replaced by a FIFO, still compiles (the caches are skipped), and in bounded time", (t) => {
  if (!nvrtcOrSkip(t)) return;
  const expected = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx"]);
  assert.equal(expected.code, 0, expected.err);
  const underProc = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx"], { CUDASCRIPT_CACHE_DIR: "/proc/cudascript-no-such/cache" });
  assert.equal(underProc.signal, null, "compile with the cache under /proc finished");
  assert.equal(underProc.code, 0, underProc.err);
  assert.equal(underProc.out, expected.out);
  // A cache of FIFOs: the NVRTC entry and V8's code cache of TypeScript (written at the first run's exit).
  const dir = tmp(t);
  const first = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx"], { CUDASCRIPT_CACHE_DIR: dir });
  assert.equal(first.code, 0, first.err);
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).map((f) => path.join(dir, f)).filter((f) => fs.statSync(f).isFile());
  assert.ok(files.some((f) => f.includes("nvrtc-v1")) && files.some((f) => f.includes("v8-code-cache")), files.join("\n"));
  for (const f of files) {
    fs.rmSync(f);
    assert.equal(spawnSync("mkfifo", [f]).status, 0, "mkfifo");
  }
  const fifos = run(["test/corpus/valid/saxpy.ts", "--emit", "ptx"], { CUDASCRIPT_CACHE_DIR: dir });
  assert.equal(fifos.signal, null, "compile with FIFOs in the cache finished");
  assert.equal(fifos.code, 0, fifos.err);
  assert.equal(fifos.out, expected.out);
});
