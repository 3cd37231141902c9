/**
 * cuda.guvectorize: the checker reads the layout (CS3008), checks the function's annotations against it
 * (CS3009) and makes `<name>_guvectorize` (gufuncs.ts), which reaches every backend like a user's kernel.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateCuda } from "../cuda/generate";
import { checkSources, codes, kernel } from "../../../test/dist/support/check-sources";

const header = `import { cuda, f32, f64, i32, c64, type Array1D, type Array2D } from "cudascript";\n`;
const check = (body: string) => checkSources({ "k.ts": header + body });
const paramText = (p: { name: string; type: { kind: string; dtype?: string; rank?: number } }): string =>
  `${p.name}:${p.type.kind === "array" ? `${p.type.dtype}[${p.type.rank}]` : p.type.kind === "scalar" ? p.type.dtype : p.type.kind}`;

test("(m,n),(n,p)->(m,p) makes <name>_guvectorize: loop shape, each input as [loop, core…] with three loop strides, each output as [loop, core…]; its spans are the call", () => {
  const r = check(`export const matmul = cuda.guvectorize((a: Array2D<f32>, b: Array2D<f32>, c: Array2D<f32>): void => {
  c[0][0] = a[0][0] * b[0][0];
}, "(m,n),(n,p)->(m,p)");
`);
  assert.deepEqual(codes(r), []);
  const k = kernel(r, "matmul_guvectorize");
  assert.deepEqual(k.params.map(paramText), ["d1:i32", "d2:i32", "in0:f32[3]", "in0s0:i32", "in0s1:i32", "in0s2:i32", "in1:f32[3]", "in1s0:i32", "in1s1:i32", "in1s2:i32", "out0:f32[3]"]);
  assert.deepEqual(k.callees, [r.module.deviceFunctions[0]!.id], "the function is a device function the kernel calls");
  assert.equal(k.span.line, 2);
  assert.equal(k.span.col, 23, "the span of cuda.guvectorize(…)");
  // The row views reach the C++ as pointers to row l of each argument, with the row's extents.
  assert.match(generateCuda(r.module).source, /matmul\(&in0\[[^;]*\* in0_stride0\], in0_shape1, in0_shape2, in0_stride1, in0_stride2, &in1\[/);
});

test("a () input is a scalar parameter taken from a 1-D array of one value per loop index; a () output is [loop, 1], the function's out[0]", () => {
  const r = check(`function addScalar(x: Array1D<i32>, y: i32, res: Array1D<i32>): void {
  for (let i = 0; i < x.length; i++) res[i] = x[i] + y;
}
export const addRows = cuda.guvectorize(addScalar, "(n),()->(n)");
export const dot = cuda.guvectorize((a: Array1D<f64>, b: Float64Array, out: Array1D<f64>): void => {
  out[0] = a[0] * b[0];
}, "(n),(n)->()");
`);
  assert.deepEqual(codes(r), []);
  assert.deepEqual(kernel(r, "addRows_guvectorize").params.map(paramText), ["d1:i32", "d2:i32", "in0:i32[2]", "in0s0:i32", "in0s1:i32", "in0s2:i32", "in1:i32[1]", "in1s0:i32", "in1s1:i32", "in1s2:i32", "out0:i32[2]"]);
  assert.deepEqual(kernel(r, "dot_guvectorize").params.map(paramText).slice(-1), ["out0:f64[2]"]);
});

test("the layout is read at build time: missing, not a literal, malformed, or past 2 core dimensions is CS3008 at the layout", () => {
  const r = check(`const fn = cuda.device((a: Array1D<f32>, o: Array1D<f32>): void => {});
const L = "(n)->(n)";
export const a = cuda.guvectorize(fn);
export const b = cuda.guvectorize(fn, L);
export const c = cuda.guvectorize(fn, "(n)->(n");
export const d = cuda.guvectorize(fn, "(a,b,c)->(n)");
export const e = cuda.guvectorize(fn, "(n)->(n)", "cuda");
`);
  assert.deepEqual(codes(r), ["CS3008@3", "CS3008@4", "CS3008@5", "CS3008@6", "CS3008@7"]);
  const [missing, literal, malformed, rank, extra] = r.diagnostics;
  assert.match(missing!.message, /takes the function and its layout string.*"\(n\),\(n\)->\(\)"/);
  assert.match(literal!.message, /must be a string literal/);
  assert.equal(literal!.span.col, 39, "at the layout argument");
  assert.match(malformed!.message, /bad layout "\(n\)->\(n": expected ',' or '\)' after 'n'/);
  assert.equal(malformed!.span.col, 39 + 1 + 7, "at the offending character");
  assert.match(rank!.message, /3 core dimensions/);
  assert.match(extra!.message, /takes two arguments.*remove this argument/);
});

test("the function against its layout: parameter count, each parameter's rank, a () output, the result, complex dtypes (CS3009, saying the signature to write)", () => {
  const r = check(`export const a = cuda.guvectorize((x: Array1D<f32>, out: Array1D<f32>): void => {}, "(n),(n)->()");
export const b = cuda.guvectorize((x: Array1D<f32>, y: f32, out: Array1D<f32>): void => {}, "(n),(n)->()");
export const c = cuda.guvectorize((x: Array1D<f32>, y: Array1D<f32>, out: f32): void => {}, "(n),(n)->()");
export const d = cuda.guvectorize((x: Array1D<f32>, out: Array1D<f32>): f32 => x[0], "(n)->(n)");
export const e = cuda.guvectorize((x: Array2D<f32>, out: Array1D<f32>): void => {}, "(n)->(n)");
export const f = cuda.guvectorize((x: Array1D<c64>, out: Array1D<c64>): void => {}, "(n)->(n)");
`);
  assert.deepEqual(codes(r), ["CS3009@1", "CS3009@2", "CS3009@3", "CS3009@4", "CS3009@5", "CS3009@6"]);
  const m = r.diagnostics.map((d) => d.message);
  assert.match(m[0]!, /has 2 inputs and 1 output, so .* takes 3 parameters .* but it takes 2: write \(in1: Array1D<f32>, in2: Array1D<f32>, out: Array1D<f32>\): void/);
  assert.match(m[1]!, /'y' is input 2 .*core dimensions \(n\) make it a 1-D array, so write y: Array1D<f32>/);
  assert.match(m[2]!, /'out' is output 1 .*a \(\) output is a one-element array the function writes as out\[0\] = …, so write out: Array1D<f32>/);
  assert.match(m[3]!, /returns nothing/);
  assert.match(m[4]!, /'x' is input 1 .* so write x: Array1D<f32>/);
  assert.match(m[5]!, /complex numbers/);
});

test("a kernel, or a name that is no function, is CS1025 at the argument; an imported function's problem is reported at this file's argument", () => {
  const r = checkSources({
    "main.ts": `import { cuda } from "cudascript";\nimport { norm } from "./lib";\nexport const k = cuda.jit((x: Float32Array) => {});\nexport const a = cuda.guvectorize(k, "(n)->()");\nexport const b = cuda.guvectorize(norm, "(n)->()");\n`,
    "lib.ts": `import { cuda, f32, type Array1D } from "cudascript";\nexport const norm = cuda.device((v: Array1D<f32>): f32 => v[0]);\n`,
  });
  assert.deepEqual(codes(r, 0), ["CS1025@4", "CS3009@5", "CS3009@5"]);
  assert.match(r.diagnostics[0]!.message, /'k' is a kernel/);
  assert.match(r.diagnostics[1]!.message, /takes 2 parameters .* but it takes 1/);
  assert.match(r.diagnostics[2]!.message, /returns nothing/);
});
