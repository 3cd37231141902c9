/**
 * N-D kernel parameters carry element strides (docs/abi.md): a kernel reading and writing an F-order
 * array, a transposed view and its row views (in the kernel, and passed to a device function, whole
 * and as a subarray) computes what it computes on C-order copies of the same values — in the g++
 * emulation of the generated C++ (strided host buffers) and on the simulator (F-order host arrays,
 * F-order device arrays and transposed device views). The reference is plain TypeScript on logical indices.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { cuda, f32 } from "cudascript";
import type { CorpusCase, HostNDArray } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f32, type Array2D, type Array3D } from "cudascript";
const rowSum = cuda.device((r: Float32Array): f32 => {
  let s: f32 = 0;
  for (let j = 0; j < r.length; j++) s += r[j] * (j + 1);
  return s;
});
export const mix = cuda.jit((a: Array2D<f32>, b: Array3D<f32>, out: Array2D<f32>) => {
  const [i, j] = cuda.grid(2);
  if (i < a.shape[0] && j < a.shape[1]) {
    const row = a[i];
    out[i][j] = row[j] * 1000 + rowSum(a[i]) + rowSum(row.subarray(1)) * 0.5;
  }
  if (i < b.shape[0] && j < b.shape[1]) for (let k = 0; k < b.shape[2]; k++) b[i][j][k] += i * 100 + j * 10 + k;
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__strided_arrays_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);

const R = 3, C = 4;
const B: readonly [number, number, number] = [2, 3, 5];
/** Element strides of `shape` in C order and in F order. */
const cStrides = (s: readonly number[]) => s.map((_, d) => s.slice(d + 1).reduce((x, y) => x * y, 1));
const fStrides = (s: readonly number[]) => s.map((_, d) => s.slice(0, d).reduce((x, y) => x * y, 1));
const at = (idx: readonly number[], strides: readonly number[]) => idx.reduce((o, x, d) => o + x * strides[d]!, 0);

/** The logical values: a[i][j], b[i][j][k]. */
const aValue = (i: number, j: number) => i * 7 + j * 3 + 1;
const bValue = (i: number, j: number, k: number) => i * 31 + j * 5 - k;

/** A host buffer holding `value` laid out with `strides`. */
function laidOut(shape: readonly number[], strides: readonly number[], value: (...idx: number[]) => number): Float32Array {
  const span = 1 + shape.reduce((o, n, d) => o + (n - 1) * strides[d]!, 0);
  const data = new Float32Array(span).fill(-1); // gaps, if any, stay -1
  const walk = (prefix: number[]) => {
    if (prefix.length === shape.length) return void (data[at(prefix, strides)] = value(...prefix));
    for (let x = 0; x < shape[prefix.length]!; x++) walk([...prefix, x]);
  };
  walk([]);
  return data;
}

/** Plain TypeScript: out[i][j] and the updated b[i][j][k], on logical indices. */
const rowSum = (i: number, from: number) => {
  let s = 0;
  for (let j = from; j < C; j++) s = Math.fround(s + Math.fround(aValue(i, j) * (j - from + 1)));
  return s;
};
const outValue = (i: number, j: number) => Math.fround(Math.fround(Math.fround(aValue(i, j) * 1000) + rowSum(i, 0)) + Math.fround(rowSum(i, 1) * 0.5));
const bAfter = (i: number, j: number, k: number) => bValue(i, j, k) + i * 100 + j * 10 + k;

// The layouts under test: a in F order, b a transposed view (the transpose of a C-order [5, 3, 2]), out in F order.
const A_STRIDES = fStrides([R, C]);
const B_STRIDES = [...cStrides([...B].reverse())].reverse();
const OUT_STRIDES = fStrides([R, C]);

const strided: CorpusCase = {
  name: "mix",
  setup: () => ({
    a: { data: laidOut([R, C], A_STRIDES, aValue), shape: [R, C], strides: A_STRIDES } satisfies HostNDArray,
    b: { data: laidOut(B, B_STRIDES, bValue), shape: B, strides: B_STRIDES } satisfies HostNDArray,
    out: { data: new Float32Array(R * C), shape: [R, C], strides: OUT_STRIDES } satisfies HostNDArray,
  }),
  launches: [{ kernel: "mix", grid: [1, 1], block: [4, 4], args: ["a", "b", "out"] }],
  reference: () => ({ out: laidOut([R, C], OUT_STRIDES, outValue), b: laidOut(B, B_STRIDES, bAfter) }),
};

describe("strided N-D kernel arguments (F order, transposed views) on every backend", () => {
  it("the kernel checks", () => assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error"), []));

  it("g++ emulation of the generated C++: F-order and transposed buffers give the plain-TypeScript results", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const { outputs } = await emulateCase(gxx, "strided", gen, strided, strided.setup());
    const want = strided.reference({});
    assert.equal(compareArrays("out", want.out as Float32Array, outputs.get("out")!), undefined);
    assert.equal(compareArrays("b", want.b as Float32Array, outputs.get("b")!), undefined);
  });

  it("simulator: F-order host arrays, an F-order device array and a transposed device view equal the C-order run", () => {
    const k = kernel(makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes }), "mix");
    // C order: the values of a, b and out in row-major host arrays.
    const cA = cuda.ndarray(laidOut([R, C], cStrides([R, C]), aValue), [R, C]);
    const cB = cuda.ndarray(laidOut(B, cStrides(B), bValue), B);
    const cOut = cuda.ndarray(new Float32Array(R * C), [R, C]);
    k.launch([1, 1], [4, 4])(cA, cB, cOut);
    assert.equal(compareArrays("out (C order)", laidOut([R, C], cStrides([R, C]), outValue), cOut.data as Float32Array), undefined);

    // Host arrays in F order / with the transposed strides: copied in and back in their own layout.
    const fA = cuda.ndarray(laidOut([R, C], A_STRIDES, aValue), [R, C], { order: "F" });
    const tB = cuda.ndarray(laidOut(B, B_STRIDES, bValue), B, { strides: B_STRIDES.map((s) => s * 4) });
    const fOut = cuda.ndarray(new Float32Array(R * C), [R, C], { order: "F" });
    k.launch([1, 1], [4, 4])(fA, tB, fOut);
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) assert.equal(fOut[i][j], cOut[i][j], `out[${i}][${j}]`);
    for (let i = 0; i < B[0]; i++) for (let j = 0; j < B[1]; j++) for (let x = 0; x < B[2]; x++) assert.equal(tB[i][j][x], cB[i][j][x], `b[${i}][${j}][${x}]`);

    // Device arrays: a in F order, b the .T of a C-order [5, 3, 2] array, out in F order.
    const dA = cuda.toDevice(cuda.ndarray(laidOut([R, C], A_STRIDES, aValue), [R, C], { order: "F" }));
    assert.equal(dA.isFContiguous() && !dA.isCContiguous(), true);
    const dBase = cuda.toDevice(cuda.ndarray(laidOut([...B].reverse(), cStrides([...B].reverse()), (x, j, i) => bValue(i!, j!, x!)), [...B].reverse()));
    const dOut = cuda.deviceArray([R, C], f32, { order: "F" });
    k.launch([1, 1], [4, 4])(dA, dBase.T, dOut);
    const backOut = dOut.copyToHost();
    assert.deepEqual(backOut.strides, [4, 4 * R], "copyToHost of an F-order array is an F-order host array");
    for (let i = 0; i < R; i++) for (let j = 0; j < C; j++) assert.equal(backOut[i][j], cOut[i][j], `device out[${i}][${j}]`);
    const backB = dBase.copyToHost();
    for (let i = 0; i < B[0]; i++) for (let j = 0; j < B[1]; j++) for (let x = 0; x < B[2]; x++) assert.equal(backB[x][j][i], cB[i][j][x], `device b[${i}][${j}][${x}]`);
  });
});
