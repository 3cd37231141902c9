/**
 * CS5005 (bounds-guard.ts) on kernels written the way Rodinia and PolyBench write them: correct kernels,
 * whose bound comes from a guard in a device function, the launch geometry, a 2-D guard, an early
 * return or a grid-stride loop, get no warning; the missing guard and the off-by-one reads and guards
 * (the sanitizer corpus's seeded bugs, test/corpus/buggy) do.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkKernel, codes } from "../../../test/dist/support/check-sources";

const CORRECT: Record<string, string> = {
  "guard in a device function (if)": `const inBounds = cuda.device((i: i32, n: i32): bool => i < n);
export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, n: i32) => {
  const i = cuda.grid(1);
  if (inBounds(i, n)) y[i] = a * x[i] + y[i];
});`,
  "guard in a device function (early return on its negation)": `const inBounds = cuda.device((i: i32, n: i32): bool => i < n);
export const scale = cuda.jit((x: Float32Array, n: i32) => {
  const index = cuda.grid(1);
  if (!inBounds(index, n)) return;
  x[index] *= 2;
});`,
  "device function that says 'outside' (early return)": `const outside = cuda.device((row: i32, col: i32, rows: i32, cols: i32): bool => row >= rows || col >= cols);
export const transpose = cuda.jit((a: Float32Array, b: Float32Array, rows: i32, cols: i32) => {
  const [row, col] = cuda.grid(2);
  if (outside(row, col, rows, cols)) return;
  b[col * rows + row] = a[row * cols + col];
});`,
  "device function given the array (i < a.length)": `const inRange = cuda.device((a: Float32Array, i: i32): bool => {
  return i < a.length;
});
export const hotspot = cuda.jit((temp: Float32Array, power: Float32Array, out: Float32Array) => {
  const index = cuda.grid(1);
  if (!inRange(out, index)) return;
  out[index] = temp[index] + 0.5 * power[index];
});`,
  "device function with a body (Rodinia's 'checkBounds')": `const checkBounds = cuda.device((i: i32, n: i32): bool => {
  if (i < 0) return false;
  return i < n;
});
export const relu = cuda.jit((x: Float32Array) => {
  const tid = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  if (checkBounds(tid, x.length)) x[tid] = Math.max(x[tid], 0);
});`,
  "bound from the launch geometry (grid * block = length)": `const N = 4096;
const TPB = 256;
export const vecAdd = cuda.jit((a: Float32Array, b: Float32Array, c: Float32Array) => {
  const i = cuda.grid(1);
  c[i] = a[i] + b[i];
});
export function run(): Float32Array {
  const a = new Float32Array(N), b = new Float32Array(N), c = new Float32Array(N);
  vecAdd.launch(N / TPB, TPB)(a, b, c);
  return c;
}`,
  "bound from a 2-D launch geometry (PolyBench 'gemm' tile)": `const NI = 512;
const BS = 16;
export const gemm = cuda.jit((a: Float32Array, b: Float32Array, c: Float32Array, alpha: f32) => {
  const row = cuda.blockIdx.y * BS + cuda.threadIdx.y;
  const col = cuda.blockIdx.x * BS + cuda.threadIdx.x;
  let acc: f32 = 0;
  for (let k = 0; k < NI; k++) acc += a[row * NI + k] * b[k * NI + col];
  c[row * NI + col] = alpha * acc;
});
export function run(): void {
  const a = new Float32Array(NI * NI), b = new Float32Array(NI * NI), c = new Float32Array(NI * NI);
  gemm.launch([NI / BS, NI / BS], [BS, BS])(a, b, c, 1.5);
}`,
  "bound from the geometry of device arrays": `const N = 1 << 16;
export const fill = cuda.jit((out: Float32Array, v: f32) => {
  const i = cuda.grid(1);
  out[i] = v;
});
export function run(): void {
  const d = cuda.deviceArray(N, f32);
  fill.launch(N / 128, 128)(d, 1);
  const e = cuda.toDevice(new Float32Array(N));
  fill.launch(N / 256, 256)(e, 2);
}`,
  "2-D guard (row < n && col < m)": `export const mvt = cuda.jit((a: Float32Array, x: Float32Array, n: i32, m: i32) => {
  const [row, col] = cuda.grid(2);
  if (row < n && col < m) a[row * m + col] += x[col];
});`,
  "early return guard": `export const bfs = cuda.jit((mask: Uint8Array, cost: Int32Array, n: i32) => {
  const tid = cuda.grid(1);
  if (tid >= n) return;
  if (mask[tid] !== 0) cost[tid] += 1;
});`,
  "grid-stride loop": `export const axpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array) => {
  for (let i = cuda.grid(1); i < y.length; i += cuda.gridsize(1)) y[i] += a * x[i];
});`,
  "grid-stride while loop": `export const zero = cuda.jit((x: Float32Array) => {
  let i = cuda.grid(1);
  while (i < x.length) {
    x[i] = 0;
    i += cuda.gridsize(1);
  }
});`,
  "stencil guarded for its neighbours (i + 1 < n)": `export const diff = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i > 0 && i < x.length - 1) out[i] = x[i + 1] - x[i - 1];
});`,
  "CSR row pointers, n + 1 long (spmv)": `export const spmv = cuda.jit((rowPtr: Int32Array, cols: Int32Array, vals: Float32Array, x: Float32Array, y: Float32Array, rows: i32) => {
  const row = cuda.grid(1);
  if (row < rows) {
    let s: f32 = 0;
    for (let j = rowPtr[row]; j < rowPtr[row + 1]; j++) s += vals[j] * x[cols[j]];
    y[row] = s;
  }
});`,
  "forward difference, x one longer than out (shown at the launch)": `const N = 1024;
export const forwardDiff = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i + 1] - x[i];
});
export function run(): Float32Array {
  const x = new Float32Array(N + 1), out = new Float32Array(N);
  forwardDiff.launch(Math.ceil(N / 256), 256)(x, out);
  return out;
}`,
  "guard the checker cannot read (count of valid items)": `export const compact = cuda.jit((x: Float32Array, out: Float32Array, valid: i32) => {
  const t = cuda.threadIdx.x;
  const base = cuda.blockIdx.x * cuda.blockDim.x;
  if (t < valid) out[base + t] = x[base + t + 1];
});`,
};

for (const [name, src] of Object.entries(CORRECT)) {
  test(`no CS5005 on a correct kernel: ${name}`, () => {
    const r = checkKernel(src);
    assert.deepEqual(
      r.diagnostics.map((d) => `${d.code}@${d.span.line - 1}: ${d.message}`),
      [],
    );
  });
}

test("x[i + 1] beside a guarded out[i] is CS5005 on the read, saying the guard covers i only", () => {
  const r = checkKernel(`export const shiftLeft = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i + 1];
  }
});`);
  assert.deepEqual(codes(r), ["CS5005@4"]);
  assert.match(r.diagnostics[0]!.message, /'i \+ 1'/);
  assert.match(r.diagnostics[0]!.message, /i < out\.length/);
  assert.match(r.diagnostics[0]!.message, /unless 'x' is longer than 'out'/);
});

test("a device function's guard is read as written in the kernel: its off-by-one is CS5005 too", () => {
  const r = checkKernel(`const inRange = cuda.device((a: Float32Array, i: i32): bool => i <= a.length);
export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (inRange(x, i)) x[i] = 0;
});`);
  assert.deepEqual(codes(r), ["CS5005@4"]);
  assert.match(r.diagnostics[0]!.message, /inRange\(x, i\)/);
});

test("a guard with <= on a length lets the index reach the length: CS5005", () => {
  const r = checkKernel(`export const scale = cuda.jit((x: Float32Array, out: Float32Array, k: f32) => {
  const i = cuda.grid(1);
  if (i <= x.length) {
    out[i] = k * (i < x.length ? x[i] : 0);
  }
});`);
  assert.deepEqual(codes(r), ["CS5005@4"]);
  assert.match(r.diagnostics[0]!.message, /i <= x\.length/);
});

test("the message quotes the index, whatever its name", () => {
  const r = checkKernel(`export const k = cuda.jit((x: Float32Array) => {
  const index = cuda.grid(1);
  x[index] = 0;
});`);
  assert.deepEqual(codes(r), ["CS5005@3"]);
  assert.match(r.diagnostics[0]!.message, /threads whose index 'index' is ≥ x\.length/);
  assert.doesNotMatch(r.diagnostics[0]!.message, /index index/);
});

test("a launch whose threads outnumber the array is still CS5005 in the kernel", () => {
  const r = checkKernel(`const N = 1000;
export const fill = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  out[i] = 1;
});
export function run(): void {
  fill.launch(Math.ceil(N / 256), 256)(new Float32Array(N));
}`);
  assert.deepEqual(codes(r), ["CS5005@4"]);
});

test("a launch in the file with unknown geometry does not silence the missing guard", () => {
  const r = checkKernel(`export const fill = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  out[i] = 1;
});
export function run(out: Float32Array): void {
  fill.launch(Math.ceil(out.length / 256), 256)(out);
}`);
  assert.deepEqual(codes(r), ["CS5005@3"]);
});
