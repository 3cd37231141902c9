/**
 * cuda.vectorize / cuda.reduce: the checker makes a kernel from the scalar function (ufuncs.ts), reports
 * what cannot be one with CS1025/CS1026/CS2031, and the kernel reaches every backend like a user's.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateCuda } from "../cuda/generate";
import { checkKernel, checkSources, codes, kernel } from "../../../test/dist/support/check-sources";

test("cuda.vectorize makes <name>_vectorize: output shape, output, then each input with its three broadcast strides; its spans are the call", () => {
  const r = checkKernel(`export const add = cuda.vectorize((a: f32, b: f64): f64 => a + b);\n`);
  assert.deepEqual(codes(r), []);
  const k = kernel(r, "add_vectorize");
  assert.deepEqual(
    k.params.map((p) => `${p.name}:${p.type.kind === "array" ? `${p.type.dtype}[]` : p.type.kind === "scalar" ? p.type.dtype : p.type.kind}`),
    ["d1:i32", "d2:i32", "out:f64[]", "in0:f32[]", "in0s0:i32", "in0s1:i32", "in0s2:i32", "in1:f64[]", "in1s0:i32", "in1s1:i32", "in1s2:i32"],
  );
  // The scalar function is a device function of the file, called by the kernel.
  assert.deepEqual(k.callees, [r.module.deviceFunctions[0]!.id]);
  assert.equal(r.module.deviceFunctions[0]!.name, "add");
  assert.equal(k.span.line, 2);
  assert.equal(k.span.col, 20, "the span of cuda.vectorize(…)");
});

test("cuda.reduce makes <name>_reduce with a 256-slot shared tree, and both kernels go through the CUDA C++ generator", () => {
  const r = checkKernel(`function longer(a: i32, b: i32): i32 {\n  return a > b ? a : b;\n}\nexport const longest = cuda.reduce(longer);\nexport const twice = cuda.vectorize(longer);\n`);
  assert.deepEqual(codes(r), []);
  assert.deepEqual(r.module.kernels.map((k) => k.name).sort(), ["longest_reduce", "twice_vectorize"]);
  assert.equal(r.staticSharedBytes.get(kernel(r, "longest_reduce").id), 256 * 4);
  const cuda = generateCuda(r.module).source;
  assert.match(cuda, /__global__[^(]*longest_reduce\(/);
  assert.match(cuda, /__global__[^(]*twice_vectorize\(/);
});

test("a function declaration becomes a device function only when a ufunc takes it; kernels can call a vectorized cuda.device function", () => {
  const r = checkKernel(`const sq = cuda.device((x: f32): f32 => x * x);
export const squares = cuda.vectorize(sq);
export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = sq(x[i]);
});
`);
  assert.deepEqual(codes(r), []);
  assert.deepEqual(r.module.kernels.map((k) => k.name).sort(), ["k", "squares_vectorize"]);
});

test("an imported scalar function with an array parameter is CS1026 at this file's argument (its own file cannot say it is a ufunc)", () => {
  const r = checkSources({
    "main.ts": `import { cuda } from "cudascript";\nimport { norm } from "./lib";\nexport const norms = cuda.vectorize(norm);\n`,
    "lib.ts": `import { cuda, f32 } from "cudascript";\nexport const norm = cuda.device((v: Float32Array): f32 => v[0]);\n`,
  });
  assert.deepEqual(codes(r, 0), ["CS1026@3"]);
  assert.match(r.diagnostics[0]!.message, /'v' is an array: write v: f32/);
});

test("the bad arguments: a kernel, Math.sqrt, an unknown name (CS1025); an ambiguous result type or complex values (CS1026, saying what to write); mixed reduce types (CS2031)", () => {
  const r = checkSources({ "k.ts": `import { cuda, f32, f64, i32, c64 } from "cudascript";
export const k = cuda.jit((x: Float32Array) => {});
export const a = cuda.vectorize(k);
export const b = cuda.vectorize(Math.sqrt);
export const c = cuda.reduce(nowhere);
export const d = cuda.vectorize((x: f32, n: i32) => { if (n > 0) return x * n; return n < 0; });
export const e = cuda.reduce((x: f64, y: f32): f64 => x + y);
export const f = cuda.vectorize((z: c64): c64 => z);
` });
  assert.deepEqual(codes(r), ["CS1025@2", "CS1025@3", "CS1025@4", "CS1026@5", "CS2031@6", "CS1026@7"]);
  assert.match(r.diagnostics[5]!.message, /complex numbers \(c64\/c128\) yet: write a cuda\.jit kernel/);
  assert.match(r.diagnostics[3]!.message, /returns both bool and f32 values .*write the result type, e.g. \(x: f32, n: i32\): f32 => …/);
  assert.match(r.diagnostics[4]!.message, /\(f64, f32\) => f64: write \(a: f64, b: f64\): f64/);
});

test("an unwritten result type is inferred as TypeScript infers it: (a: i32, b: i32) => a ^ b is i32, i32 * f64 is f64; no CS1026", () => {
  const r = checkKernel(`export const x = cuda.reduce((a: i32, b: i32) => a ^ b);
export const s = cuda.vectorize((n: i32, k: f64) => n * k);
export const m = cuda.reduce((a: f32, b: f32) => {
  if (a > b) return a;
  return b;
});
`);
  assert.deepEqual(codes(r), []);
  const result = (name: string) => {
    const t = r.module.deviceFunctions.find((f) => f.name === name)!.returnType;
    return t.kind === "scalar" ? t.dtype : t.kind;
  };
  assert.deepEqual(["x", "s", "m"].map(result), ["i32", "f64", "f32"]);
  assert.equal(kernel(r, "x_reduce").params.find((p) => p.name === "out")?.type.kind ?? "array", "array");
});

test("a result that is bool on one path and a number on another is ambiguous for a ufunc and a device function alike (CS1026 with the signature to write); no return at all is CS1026", () => {
  const r = checkKernel(`const pick = cuda.device((x: i32) => { if (x > 0) return x; return x < -5; });
function maybe(x: f32) {
  if (x > 0) return x > 1;
  return 2 * x;
}
export const m = cuda.vectorize(maybe);
export const v = cuda.vectorize((x: f32) => {});
export const k = cuda.jit((out: Int32Array) => {
  out[0] = pick(3);
});
`);
  assert.deepEqual(codes(r), ["CS1026@1", "CS1026@2", "CS1026@7"]);
  assert.match(r.diagnostics[0]!.message, /'pick' is ambiguous: it returns both bool and i32 values.*\(x: i32\): i32 => …/);
  assert.match(r.diagnostics[2]!.message, /must return a value/);
});
