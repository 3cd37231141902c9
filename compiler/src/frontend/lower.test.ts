import { test } from "node:test";
import assert from "node:assert/strict";
import type * as IR from "../ir/nodes";
import { checkKernel, checkSources, codes, kernel } from "../../../test/dist/support/check-sources";

/** The IR expression a `decl` of `name` is initialised with. */
function initOf(fn: IR.IrFunction, name: string): IR.Expr {
  let found: IR.Expr | undefined;
  const visit = (stmts: readonly IR.Stmt[]) => {
    for (const s of stmts) {
      if (s.k === "decl" && s.v.name === name && s.init) found = s.init;
      if (s.k === "if") {
        visit(s.then);
        if (s.else) visit(s.else);
      }
      if (s.k === "loop") {
        visit(s.init);
        visit(s.body);
      }
      if (s.k === "block") visit(s.body);
    }
  };
  visit(fn.body);
  if (!found) throw new Error(`no decl ${name}`);
  return found;
}

function varType(fn: IR.IrFunction, name: string): string {
  const e = initOf(fn, name);
  return e.type.kind === "scalar" ? e.type.dtype : e.type.kind;
}

test("untyped float literals next to f32 values stay f32 (no silent f64 promotion)", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) { const v = 2.5 * x[i] + 1; out[i] = v; }
});`);
  assert.deepEqual(codes(r), []);
  assert.equal(varType(kernel(r), "v"), "f32");
});

test("a let initialised with 0 widens to f32 when it accumulates f32 values", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  let acc = 0;
  for (let j = 0; j < x.length; j++) acc += x[j];
  out[0] = acc;
});`);
  assert.deepEqual(codes(r), []);
  const decl = kernel(r).body.find((s): s is IR.DeclStmt => s.k === "decl" && s.v.name === "acc")!;
  assert.equal(decl.v.type.kind === "scalar" && decl.v.type.dtype, "f32");
});

test("(a / b) | 0 and Math.trunc(a / b) on integers are integer division", () => {
  const r = checkKernel(`export const k = cuda.jit((n: i32, out: Int32Array) => {
  const i = cuda.grid(1);
  const q = (i / 4) | 0;
  const t = Math.trunc(n / 3);
  if (i < out.length) out[i] = q + t;
});`);
  assert.deepEqual(codes(r), []);
  const q = initOf(kernel(r), "q");
  assert.equal(q.k, "binary");
  assert.equal((q as IR.BinaryExpr).op, "/");
  assert.equal(varType(kernel(r), "q"), "i32");
  assert.equal(varType(kernel(r), "t"), "i32");
});

test("plain / on integers is true division and cannot index", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i / 2] = 1;
});`);
  assert.deepEqual(codes(r), ["CS2002@3"]);
  assert.match(r.diagnostics[0]!.message, /\(i \/ 2\) \| 0/);
});

test("f64 arithmetic inside an f32 kernel earns a performance hint", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  const s: f64 = 0.1;
  if (i < x.length) x[i] = x[i] * s;
});`);
  assert.deepEqual(codes(r), ["CS5002@4"]);
});

test("compile-time constants fold across module consts, including imported ones", () => {
  const r = checkSources({
    "sizes.ts": `export const TILE = 16;\nexport const AREA = TILE * TILE;\n`,
    "k.ts": `import { cuda, f32 } from "cudascript";\nimport { AREA, TILE } from "./sizes";\nconst HALF = AREA >> 1;\nexport const k = cuda.jit((x: Float32Array) => {\n  const s = cuda.shared.array(HALF + TILE, f32);\n  s[cuda.threadIdx.x] = 0;\n  cuda.syncthreads();\n});\n`,
  }, "k.ts");
  assert.deepEqual(codes(r, 0), []);
  const decl = kernel(r).body.find((s): s is IR.ArrayDeclStmt => s.k === "arrayDecl")!;
  assert.deepEqual(decl.arrayType.shape, [144]);
});

test("device functions imported from another module are followed and typed", () => {
  const r = checkSources({
    "lib.ts": `import { cuda, f32 } from "cudascript";\nexport const sq = cuda.device((v: f32): f32 => v * v);\n`,
    "k.ts": `import { cuda } from "cudascript";\nimport { sq } from "./lib";\nexport const k = cuda.jit((x: Float32Array) => {\n  const i = cuda.grid(1);\n  if (i < x.length) x[i] = sq(x[i]);\n});\n`,
  }, "k.ts");
  assert.deepEqual(codes(r, 0), []);
  assert.equal(r.module.deviceFunctions.length, 1);
  assert.equal(r.module.deviceFunctions[0]!.name, "sq");
  assert.equal(r.module.deviceFunctions[0]!.returnType.kind === "scalar" && r.module.deviceFunctions[0]!.returnType.dtype, "f32");
});

test("device function return types are inferred when not annotated", () => {
  const r = checkKernel(`const twice = cuda.device((v: i32) => v * 2);
export const k = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = twice(i);
});`);
  assert.deepEqual(codes(r), []);
  const dev = r.module.deviceFunctions[0]!;
  assert.equal(dev.returnType.kind === "scalar" && dev.returnType.dtype, "i32");
});

test("recursion (self and mutual) compiles when the result types are written; a recursive function without one is CS1007 at the call that closes the cycle", () => {
  const ok = checkKernel(`const a: (n: i32) => i32 = cuda.device((n: i32): i32 => (n <= 0 ? 0 : b(n - 1)));
const b: (n: i32) => i32 = cuda.device((n: i32): i32 => a(n));
const f = cuda.device((n: i32): i32 => (n < 2 ? n : f(n - 1) + f(n - 2)));
export const k = cuda.jit((out: Int32Array) => {
  out[0] = a(3) + f(5);
});`);
  assert.deepEqual(codes(ok), []);
  const bad = checkKernel(`const g = cuda.device((n: i32) => (n < 2 ? n : g(n - 1)));
export const k = cuda.jit((out: Int32Array) => {
  out[0] = g(3);
});`);
  assert.ok(codes(bad).includes("CS1007@1"), codes(bad).join(","));
  assert.match(bad.diagnostics.find((d) => d.code === "CS1007")!.message, /result type must be written .*cuda\.device\(\(n: i32\): i32 => …\)/);
});

test("destructuring cuda.grid(2) gives two i32 locals; 2-D arrays index with [i][j] and .shape[d]", () => {
  const r = checkKernel(`export const k = cuda.jit((m: Array2D<f32>) => {
  const [row, col] = cuda.grid(2);
  if (row < m.shape[0] && col < m.shape[1]) m[row][col] = 0;
});`);
  assert.deepEqual(codes(r), []);
  assert.equal(varType(kernel(r), "row"), "i32");
});

test("bitwise operators follow JavaScript: i32 results, >>> gives u32", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const a = x[i] ^ (x[i] << 13);
    const b = x[i] >>> 17;
    x[i] = a + b;
  }
});`);
  assert.deepEqual(codes(r), []);
  assert.equal(varType(kernel(r), "a"), "i32");
  assert.equal(varType(kernel(r), "b"), "u32");
});

test("mixed i32/u32 comparisons compare the values, as JavaScript does", () => {
  const r = checkKernel(`export const k = cuda.jit((n: u32, x: Int32Array) => {
  const i = cuda.grid(1);
  const inside = i < n;
  if (inside && i < x.length) x[i] = 1;
});`);
  assert.deepEqual(codes(r), []);
  const cmp = initOf(kernel(r), "inside") as IR.CompareExpr;
  assert.equal(cmp.operandType.dtype, "f64");
});

test("a missing bounds guard is a warning with a fix hint; guards in any form silence it", () => {
  const bad = checkKernel(`export const k = cuda.jit((a: f32, x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  out[i] = a * x[i];
});`);
  assert.deepEqual(codes(bad), ["CS5005@3"]);
  assert.deepEqual(bad.diagnostics[0]!.fix, { kind: "addBoundsGuard", indexText: "i", arrayText: "out" });
  for (const guard of ["if (i >= out.length) return;\n  out[i] = a * x[i];", "if (i < out.length) out[i] = a * x[i];", "const ok = i < out.length;\n  if (ok) out[i] = a * x[i];"]) {
    const good = checkKernel(`export const k = cuda.jit((a: f32, x: Float32Array, out: Float32Array) => {\n  const i = cuda.grid(1);\n  ${guard}\n});`);
    assert.deepEqual(codes(good), [], guard);
  }
});

test("a barrier after a thread-dependent early return is a divergent barrier", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  cuda.syncthreads();
  x[i] = 0;
});`);
  assert.deepEqual(codes(r), ["CS5001@4"]);
});

test("a barrier under a block-uniform condition is fine", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (cuda.blockIdx.x > 0) cuda.syncthreads();
  if (i < x.length) x[i] = 0;
});`);
  assert.deepEqual(codes(r), []);
});

test("static shared memory over 48 KiB is reported on the kernel with each array as a related location", () => {
  const r = checkKernel(`const N = 8192;
export const k = cuda.jit((x: Float32Array) => {
  const a = cuda.shared.array(N, f32);
  const b = cuda.shared.array(N, f32);
  a[0] = 0; b[0] = 0;
});`);
  assert.deepEqual(codes(r), ["CS3003@2"]);
  assert.equal(r.diagnostics[0]!.related.length, 2);
  assert.equal(r.staticSharedBytes.get(kernel(r).id), 65536);
});

test("constant launch configurations that can never run are errors at the launch site", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = 0;
});
export function main(x: Float32Array) {
  k.launch(4, [64, 32])(x);
  k.launch(0, 128)(x);
  k.launch(4, 128)(x, x);
}`);
  assert.deepEqual(codes(r), ["CS4001@6", "CS4002@7", "CS4004@8"]);
  assert.equal(r.launchSites.length, 3);
});

test("the checker never throws, whatever the input", () => {
  const inputs = [
    "",
    "import { cuda } from 'cudascript';",
    "import { cuda } from 'cudascript'; export const k = cuda.jit(",
    "import { cuda } from 'cudascript'; export const k = cuda.jit((x: Float32Array) => { x[ = ; });",
    "import { cuda } from 'cudascript'; export const k = cuda.jit((x) => { for (;;) { } while (",
    "import { cuda } from 'cudascript'; const k = cuda.device((a: f32): f32 => { if (a) { return",
    "import { cuda, f32 } from 'cudascript'; export const k = cuda.jit((x: Float32Array) => { const s = cuda.shared.array([, 4], f32); s[0][0] = x; });",
  ];
  for (const text of inputs) {
    const r = checkSources({ "k.ts": text });
    assert.ok(r.diagnostics.every((d) => d.code !== "CS9001"), `internal error on ${JSON.stringify(text)}: ${r.diagnostics.map((d) => d.message).join("; ")}`);
  }
});

test("i32 vs u32 comparisons and Math.max widen the original values, never through u32", () => {
  const r = checkKernel(`export const k = cuda.jit((s: i32, u: Uint32Array, out: Float64Array) => {
  const lt = s < u[0];
  const m = Math.max(s, u[0]);
  out[0] = lt ? m : 0;
});`);
  assert.deepEqual(codes(r), []);
  const cmp = initOf(kernel(r), "lt") as IR.CompareExpr;
  assert.equal(cmp.operandType.dtype, "f64");
  assert.equal(cmp.left.k, "convert");
  const inner = (cmp.left as IR.ConvertExpr).value;
  assert.equal(inner.k === "var" && inner.v.name, "s", "s is widened directly, not converted to u32 first");
  assert.equal(varType(kernel(r), "m"), "f64");
});

test("launchBounds takes a constant max threads per block, or [max, minBlocksPerMultiprocessor]; anything else is CS2014", () => {
  const one = checkKernel(`const MAX = 128;
export const k = cuda.jit((x: Float32Array) => { x[0] = 1; }, { launchBounds: MAX * 2 });`);
  assert.deepEqual(codes(one), []);
  assert.deepEqual(kernel(one).options.launchBounds, { maxThreadsPerBlock: 256 });
  const two = checkKernel(`export const k = cuda.jit((x: Float32Array) => { x[0] = 1; }, { launchBounds: [256, 2] });`);
  assert.deepEqual(kernel(two).options.launchBounds, { maxThreadsPerBlock: 256, minBlocksPerMultiprocessor: 2 });
  for (const bad of ["2048", "0", "[128, 0]", "[128, 2, 1]", "[]", "1.5", "true", "[n, 2]"]) {
    const r = checkKernel(`let n = 4;
export const k = cuda.jit((x: Float32Array) => { x[0] = 1; }, { launchBounds: ${bad} });`);
    assert.deepEqual(codes(r), ["CS2014@2"], bad);
    assert.match(r.diagnostics[0]!.message, /launchBounds: \[256, 2\]/, bad);
    assert.equal(kernel(r).options.launchBounds, undefined, bad);
  }
});

test("a constant launch with more threads per block than the kernel's launchBounds is CS4007", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = 0;
}, { launchBounds: [128, 4] });
export function main(x: Float32Array) {
  k.launch(4, [16, 16])(x);
  k.launch(4, 128)(x);
  k.launch(4, 2048)(x);
}`);
  assert.deepEqual(codes(r), ["CS4007@6", "CS4001@8"]);
  assert.match(r.diagnostics[0]!.message, /256 threads is over the launchBounds of 'k' \(128 threads per block\).*at most 128 threads/);
});

test("a 2-D/3-D constant array is a module cuda.ndarray with a constant shape; otherwise CS3007 says what to write", () => {
  const ok = checkKernel(`const ROWS = 2;
const DATA = new Float32Array([1, 2, 3, 4, 5, 6]);
const M = cuda.ndarray(DATA, [ROWS, 3]);
const C = cuda.ndarray(Int32Array.of(1, 2, 3, 4, 5, 6, 7, 8), [2, 2, 2]);
export const k = cuda.jit((out: Float32Array) => {
  const m = cuda.const.arrayLike(M);
  const c = cuda.const.arrayLike(C);
  out[0] = m[1][2] + c[1][0][1];
});`);
  assert.deepEqual(codes(ok), []);
  assert.deepEqual(ok.module.constArrays.map((c) => [c.name, c.dtype, c.shape, c.values.length]), [["M", "f32", [2, 3], 6], ["C", "i32", [2, 2, 2], 8]]);
  const bad = (decl: string) =>
    checkKernel(`let rows = 2;
const M = ${decl};
export const k = cuda.jit((out: Float32Array) => {
  const m = cuda.const.arrayLike(M);
  out[0] = m[0][0];
});`);
  const nonConstant = bad("cuda.ndarray(new Float32Array([1, 2, 3, 4, 5, 6]), [rows, 3])");
  assert.deepEqual(codes(nonConstant), ["CS3007@4"]);
  assert.match(nonConstant.diagnostics[0]!.message, /'M' cannot go to constant memory: the shape of a constant N-D array must be 1 to 3 constant whole numbers/);
  const mismatch = bad("cuda.ndarray(new Float32Array([1, 2, 3, 4, 5]), [2, 3])");
  assert.match(mismatch.diagnostics[0]!.message, /shape \[2, 3\] holds 6 elements but the data has 5/);
  const notLiteral = bad("cuda.ndarray(new Float32Array(6), [2, 3])");
  assert.match(notLiteral.diagnostics[0]!.message, /typed array of literal numbers/);
});

test("constant arrays of i64/u64, f16 and c64/c128 keep exact values; an element that does not fit its dtype is CS2025 at the element", () => {
  const ok = checkSources({
    "k.ts": `import { cuda, Float16Array, Complex64Array, Complex128Array } from "cudascript";
const A = new BigInt64Array([-9223372036854775808n, 9223372036854775807n]);
const B = cuda.ndarray(new BigUint64Array([18446744073709551615n, 0n, 1n, 2n]), [2, 2]);
const H = new Float16Array([0.1, -0, NaN]);
const Z = Complex64Array.wrap(new Float32Array([1, -2, Infinity, 0.5]));
const W = new Complex128Array(new Float64Array([0.1, 0.2]));
export const k = cuda.jit((a: BigInt64Array, h: Float16Array, z: Float32Array) => {
  const ca = cuda.const.arrayLike(A), cb = cuda.const.arrayLike(B), ch = cuda.const.arrayLike(H), cz = cuda.const.arrayLike(Z), cw = cuda.const.arrayLike(W);
  a[0] = ca[1] + cb[1][0];
  h[0] = ch[0];
  z[0] = cz[1].re + cz[0].im;
  z[1] = cw[0].re;
});`,
  });
  assert.deepEqual(codes(ok, 0), []);
  const byName = new Map(ok.module.constArrays.map((c) => [c.name, c]));
  assert.deepEqual(byName.get("A")!.values, [-(2n ** 63n), 2n ** 63n - 1n]);
  assert.deepEqual([byName.get("B")!.dtype, byName.get("B")!.shape, byName.get("B")!.values[0]], ["u64", [2, 2], 2n ** 64n - 1n]);
  assert.deepEqual(byName.get("H")!.values, [0.0999755859375, -0, NaN]);
  assert.deepEqual([byName.get("Z")!.dtype, byName.get("Z")!.shape, byName.get("Z")!.values], ["c64", [2], [1, -2, Infinity, 0.5]]);
  assert.deepEqual([byName.get("W")!.dtype, byName.get("W")!.shape], ["c128", [1]]);

  const bad = checkKernel(`const U = new BigUint64Array([1n, -1n]);
const I = new BigInt64Array([9223372036854775808n]);
const S = new Int8Array([100, 200, 1.5]);
export const k = cuda.jit((out: Int32Array) => {
  const u = cuda.const.arrayLike(U), i = cuda.const.arrayLike(I), s = cuda.const.arrayLike(S);
  out[0] = s[0];
});`);
  assert.deepEqual(codes(bad), ["CS2025@1", "CS2025@2", "CS2025@3", "CS2025@3"]);
  assert.match(bad.diagnostics[0]!.message, /-1n does not fit in u64 \(0n … 18446744073709551615n\): a BigUint64Array would store 18446744073709551615n; write a value in range/);
  assert.match(bad.diagnostics[2]!.message, /200 does not fit in i8 \(whole numbers -128 … 127\): a Int8Array would store -56/);
  assert.match(bad.diagnostics[3]!.message, /1\.5 does not fit in i8/);
});

test("constant arrays: numbers in a BigInt64Array, bigints in a Float32Array and un-wrapped complex data are CS3007 saying what to write", () => {
  const message = (decl: string) => {
    const r = checkSources({
      "k.ts": `import { cuda, Complex64Array } from "cudascript";
const C = ${decl};
export const k = cuda.jit((out: Float32Array) => {
  const c = cuda.const.arrayLike(C);
  out[0] = 0;
});`,
    });
    assert.deepEqual(codes(r, 0), ["CS3007@4"], decl);
    return r.diagnostics[0]!.message;
  };
  assert.match(message("new BigInt64Array([1, 2])"), /a BigInt64Array holds bigints: write 1n, not 1/);
  assert.match(message("new Float32Array([1n])"), /a Float32Array holds numbers: write 1, not 1n/);
  assert.match(message("new Complex64Array([1, 2])"), /write Complex64Array\.wrap\(new Float32Array\(\[re0, im0, re1, im1, …\]\)\)/);
  assert.match(message("Complex64Array.wrap(new Float32Array([1, 2, 3]))"), /an even number of parts \(re, im per element\), got 3/);
  assert.match(message("cuda.ndarray(new BigInt64Array([1n, 2n, 3n]), [2, 2])"), /shape \[2, 2\] holds 4 elements but the data has 3/);
});
