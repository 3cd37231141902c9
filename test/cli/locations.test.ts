/**
 * One column convention: every command prints a location as file:line:col with a 1-based line and
 * column, as tsc does (check, compile, run's build errors and warnings, run's kernel faults).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as path from "node:path";
import { cli, STRING_IN_KERNEL, tempDir } from "./cli-helpers";

test("check, compile and run print the same error at the same 1-based line:col", (t) => {
  const dir = tempDir(t, { "bad.ts": STRING_IN_KERNEL });
  const expected = /^bad\.ts:3:10 - error CS1001: strings are not supported in kernels/m; // `"x"` is at column 10 of `  a[0] = "x".length;`
  const check = cli(["check", "bad.ts"], { cwd: dir });
  assert.match(check.out, expected, check.all);
  const compile = cli(["compile", "--emit", "cuda", "bad.ts"], { cwd: dir });
  assert.match(compile.err, expected, compile.all);
  const run = cli(["run", "bad.ts"], { cwd: dir });
  assert.equal(run.code, 1, run.all);
  assert.match(run.err, expected, run.all);
  // The source line, with the range marked under column 10.
  assert.match(run.err, /\n3 {3}a\[0\] = "x"\.length;\n {11}~/, run.err);
});

test("run's build warnings are 1-based too", (t) => {
  const dir = tempDir(t, {
    "warn.ts": 'import { cuda } from "cudascript";\nconst k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n     a[i] = 1;\n});\nlet size = 32; // a length the checker cannot see: CS5005 stays\nk.launch(1, 32)(new Float32Array(size));\n',
  });
  const r = cli(["run", "warn.ts"], { cwd: dir });
  assert.equal(r.code, 0, r.all);
  assert.match(r.err, /^warn\.ts:4:6 - warning CS5005: /m); // `a` after five spaces
});

test("a kernel fault names its TypeScript location 1-based", (t) => {
  const dir = tempDir(t, {
    "fault.ts": 'import { cuda } from "cudascript";\nconst k = cuda.jit((a: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < a.length) a[i + 1] = 1;\n});\nk.launch(1, 32)(new Float32Array(32));\n',
  });
  const r = cli(["run", path.join(dir, "fault.ts")], { cwd: dir });
  assert.equal(r.code, 1, r.all);
  assert.match(r.err, /error CSR020: out-of-bounds write of array 'a' at .*fault\.ts:4:21 /, r.err); // `a[i + 1]` at column 21
});
