/** `cudascript check` as a user runs it: a real child process, real files, exit codes and output format. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

const repo = path.resolve(__dirname, "../../..");
const cli = path.join(repo, "runtime/dist/cli/main.js");

function run(args: string[], cwd = repo) {
  // A time limit, so that a regression that blocks on a read fails instead of hanging the suite.
  const r = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: "utf8", timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr, signal: r.signal };
}

test("a file with errors prints tsc-style lines and exits 1", () => {
  const r = run(["check", "test/corpus/invalid/cs3001-local-size-from-param.ts"]);
  assert.equal(r.code, 1, r.err);
  assert.match(r.out, /^test\/corpus\/invalid\/cs3001-local-size-from-param\.ts:\d+:\d+ - error CS3001: local array size must be a compile-time constant/m);
  assert.match(r.out, /1 error/);
});

test("a TypeScript syntax error is CS1020 on its line and exits 1", () => {
  const r = run(["check", "test/corpus/invalid/cs1020-missing-paren.ts"]);
  assert.equal(r.code, 1, r.out + r.err);
  assert.match(r.out, /^test\/corpus\/invalid\/cs1020-missing-paren\.ts:5:24 - error CS1020: TS1005: '\)' expected\.$/m);
  assert.match(r.out, /1 error/);
});

test("code nested too deeply is CS1021 on its line, and the other files are still checked", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-deep-"));
  try {
    const head = 'import { cuda, f32 } from "cudascript";\nexport const k = cuda.jit((a: Float32Array, x: f32) => {\n';
    // 1,000 nested parentheses: too deep for TypeScript's own parser.
    fs.writeFileSync(path.join(dir, "a-parens.ts"), `${head}  a[0] = ${"(".repeat(1000)}x${")".repeat(1000)};\n});\n`);
    // A 4,000-term sum: parsed, but too deep for every recursive pass after the parser.
    fs.writeFileSync(path.join(dir, "b-sum.ts"), `${head}  a[0] = ${Array(4000).fill("x").join(" + ")};\n});\nk.launch(1, 32)(new Float32Array(32), 2);\n`);
    fs.writeFileSync(path.join(dir, "c-string.ts"), `${head}  a[0] = "x".length;\n});\n`);
    const r = run(["check", dir], dir);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.out, /^a-parens\.ts:3:\d+ - error CS1021: /m);
    assert.match(r.out, /^b-sum\.ts:3:\d+ - error CS1021: /m);
    assert.match(r.out, /^c-string\.ts:3:10 - error CS1001: /m);
    assert.doesNotMatch(r.out + r.err, /CS9001|CS4004|RangeError|internal error/);
    assert.match(r.out, /Checked 3 files .*: 3 errors/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("the valid corpus folder checks clean and exits 0", () => {
  const r = run(["check", "test/corpus/valid"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /0 errors, 0 warnings/);
});

test("globs select files; warnings alone exit 0", () => {
  const r = run(["check", "test/corpus/invalid/cs5003-*.ts"]);
  assert.equal(r.code, 0, r.out + r.err);
  assert.match(r.out, /warning CS5003/);
});

test("--format json gives machine-readable diagnostics", () => {
  const r = run(["check", "test/corpus/invalid/cs2001-return-element.ts", "--format", "json"]);
  assert.equal(r.code, 1);
  const j = JSON.parse(r.out);
  assert.equal(j.errors, 1);
  assert.equal(j.diagnostics[0].code, "CS2001");
  assert.equal(typeof j.diagnostics[0].line, "number");
  assert.equal(typeof j.diagnostics[0].message, "string");
});

test("bad usage is a clear message with exit 2, never a stack trace", () => {
  const missing = run(["check", "no/such/file.ts"]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /no such file or folder: no\/such\/file\.ts/);
  assert.doesNotMatch(missing.err, /at .*\.js:\d+/);
  const badFlag = run(["check", "--formt", "json", "x.ts"]);
  assert.equal(badFlag.code, 2);
  assert.match(badFlag.err, /unknown option '--formt'/);
  const badFormat = run(["check", "examples", "--format", "xml"]);
  assert.equal(badFormat.code, 2);
  assert.match(badFormat.err, /--format takes text, json, sarif, not 'xml'/);
  const unknown = run(["chek"]);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command 'chek'/);
});

test("files that do not import cudascript, empty files and broken syntax are fine", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-check-"));
  fs.writeFileSync(path.join(dir, "empty.ts"), "");
  fs.writeFileSync(path.join(dir, "plain.ts"), "export const x = 1;\n");
  fs.writeFileSync(path.join(dir, "broken.ts"), 'import { cuda } from "cudascript";\nexport const k = cuda.jit((x: Float32Array) => { x[ = ;\n');
  const r = run(["check", dir]);
  assert.ok(r.code === 0 || r.code === 1, r.err);
  assert.doesNotMatch(r.out + r.err, /CS9001|internal error/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a FIFO named *.ts and a broken *.ts link are skipped and said so, never read nor counted as checked", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-check-"));
  try {
    fs.writeFileSync(path.join(dir, "plain.ts"), "export const x = 1;\n");
    assert.equal(spawnSync("mkfifo", [path.join(dir, "pipe.ts")]).status, 0, "mkfifo");
    fs.symlinkSync(path.join(dir, "gone.ts"), path.join(dir, "dangling.ts"));
    const r = run(["check", dir]);
    assert.equal(r.signal, null, "check finished");
    assert.equal(r.code, 0, r.err);
    assert.match(r.err, /skipped .*pipe\.ts: not a regular file \(a FIFO\); only regular files are checked/);
    assert.match(r.err, /skipped .*dangling\.ts: a broken symbolic link \(to .*gone\.ts\)/);
    assert.match(r.out, /^Checked 1 file \(0 kernels\): 0 errors, 0 warnings; skipped 2 that are not regular files\.$/m);
    const named = run(["check", path.join(dir, "pipe.ts")]);
    assert.equal(named.signal, null, "check of the FIFO by name finished");
    assert.equal(named.code, 2, named.err);
    assert.match(named.err, /skipped .*pipe\.ts: not a regular file \(a FIFO\)/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("npm links the cudascript command, so the README's `npx cudascript …` works after install", () => {
  const bin = path.join(repo, "node_modules/.bin/cudascript");
  assert.ok(fs.existsSync(bin), `${bin} is missing: runtime/package.json's bin must name a file that exists before the build`);
  const r = spawnSync(bin, ["--version"], { cwd: repo, encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout.trim(), /^\d+\.\d+\.\d+$/);
});
