/**
 * Numba's test_record_dtype kernels that record-ports.test.ts does not cover, ported (issue 31's proof):
 * - on Numba's whole `recordtype` {a: f64, b: i32, c: c64, d: u8[5]} (align=True, 32 bytes): set_c (a
 *   c64 value, and a c128 one narrowed as Numba coerces it), record_read_c, set_record over all fields;
 * - record_write_array / record_read_array on `recordwitharray` {g: i32, h: f32[2]} and
 *   record_write_2d_array / record_read_2d_array on `recordwith2darray` {i: i32, j: f32[3][2]} (packed).
 * Array fields are not record fields in CudaScript (docs/kernel-language.md#records: CS2004 / CSR083
 * say to flatten them): flattened into one field per element (`d0`…`d4`, `h0`, `h1`, `j00`…`j21`), they
 * have exactly numpy's bytes, since an array field aligns as its element. Numba writes a record
 * argument back to the host; a CudaScript record parameter is a copy, so the write kernels take a
 * one-record array (docs/kernel-language.md#records, "Record parameters by value").
 * Each runs on the simulator against numpy's bytes computed in plain TypeScript, through the g++
 * emulation of the generated C++ (the simulator's bytes), and through NVRTC (compute_80) + ptxas (sm_80).
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { c64, Complex128Array, Complex64Array, cuda, f32, f64, i32, u8 } from "cudascript";
import { complexArray, type CorpusCase, type HostValue } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { assertCompilesForSm80 } from "../support/toolchain-or-skip";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f32, f64, i32, u8, c64, Complex64Array, Complex128Array, type Array1D } from "cudascript";

// recordtype = np.dtype([("a", f8), ("b", i4), ("c", c8), ("d", (u1, 5))], align=True): d flattened.
interface Rec { a: f64; b: i32; c: c64; d0: u8; d1: u8; d2: u8; d3: u8; d4: u8 }
const Rec = cuda.record({ a: f64, b: i32, c: c64, d0: u8, d1: u8, d2: u8, d3: u8, d4: u8 });
export const setC = cuda.jit((ary: Array1D<Rec>, i: i32, v: Complex64Array) => { ary[i].c = v[0]; });
export const setCFromC128 = cuda.jit((ary: Array1D<Rec>, i: i32, v: Complex128Array) => { ary[i].c = cuda.complex.c64(v[0]); });
export const setRecord = cuda.jit((ary: Array1D<Rec>, i: i32, j: i32) => { ary[i] = ary[j]; });
export const recordReadC = cuda.jit((r: Rec, arr: Complex64Array) => { arr[0] = r.c; });

// recordwitharray = np.dtype([("g", i4), ("h", f4, 2)], align=True): h flattened.
interface RecWithArray { g: i32; h0: f32; h1: f32 }
const RecWithArray = cuda.record({ g: i32, h0: f32, h1: f32 });
export const recordWriteArray = cuda.jit((r: Array1D<RecWithArray>) => { r[0].g = 2; r[0].h0 = 3.0; r[0].h1 = 4.0; });
export const recordReadArray = cuda.jit((r: RecWithArray, a: Array1D<f32>) => { a[0] = r.h0; a[1] = r.h1; });

// recordwith2darray = np.dtype([("i", i4), ("j", f4, (3, 2))]) (packed; every field is at its alignment anyway).
interface RecWith2dArray { i: i32; j00: f32; j01: f32; j10: f32; j11: f32; j20: f32; j21: f32 }
const RecWith2dArray = cuda.record({ i: i32, j00: f32, j01: f32, j10: f32, j11: f32, j20: f32, j21: f32 });
export const recordWrite2dArray = cuda.jit((r: Array1D<RecWith2dArray>) => {
  r[0].i = 3; r[0].j00 = 5.0; r[0].j01 = 6.0; r[0].j10 = 7.0; r[0].j11 = 8.0; r[0].j20 = 9.0; r[0].j21 = 10.0;
});
export const recordRead2dArray = cuda.jit((r: RecWith2dArray, a: Array1D<f32>) => {
  a[0] = r.j00; a[1] = r.j01; a[2] = r.j10; a[3] = r.j11; a[4] = r.j20; a[5] = r.j21;
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__record_numba_ports_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const art = () => makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const Rec = cuda.record({ a: f64, b: i32, c: c64, d0: u8, d1: u8, d2: u8, d3: u8, d4: u8 });
const RecWithArray = cuda.record({ g: i32, h0: f32, h1: f32 });
const RecWith2dArray = cuda.record({ i: i32, j00: f32, j01: f32, j10: f32, j11: f32, j20: f32, j21: f32 });

/** Numba's sample: x = i + 1; a = x / 2, b = x, c = x·1j, d = the digits of x as text ("1" → d0 = 0x31). */
function sample() {
  const r = cuda.recordArray(Rec, 3);
  for (let i = 0; i < 3; i++) {
    const x = i + 1;
    r.set(i, { a: x / 2, b: x, c: { re: 0, im: x }, d0: 0x30 + x, d1: 0, d2: 0, d3: 0, d4: 0 });
  }
  return r;
}

describe("Numba test_record_dtype ports (complex field, array fields flattened)", () => {
  it("check without errors; the flattened records have numpy's layouts", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
    // numpy: recordtype itemsize 32 (c at 12, d at 20), recordwitharray 12, recordwith2darray 28.
    assert.deepEqual([Rec.itemsize, Rec.layout.fields.find((f) => f.name === "c")!.offset, Rec.layout.fields.find((f) => f.name === "d0")!.offset], [32, 12, 20]);
    assert.equal(RecWithArray.itemsize, 12);
    assert.equal(RecWith2dArray.itemsize, 28);
  });

  it("set_c (c64 and coerced c128), set_record and record_read_c on the simulator", () => {
    for (let i = 0; i < 3; i++) {
      const got = sample(), got2 = sample(), expect = sample();
      kernel(art(), "setC").launch(1, 1)(got, i, Complex64Array.wrap(new Float32Array([0, 43])));
      kernel(art(), "setCFromC128").launch(1, 1)(got2, i, Complex128Array.wrap(new Float64Array([0, 43])));
      expect.set(i, { ...expect.get(i), c: { re: 0, im: 43 } });
      assert.deepEqual(got.bytes, expect.bytes, `setC i=${i}`);
      assert.deepEqual(got2.bytes, expect.bytes, `setCFromC128 i=${i}`);
    }
    for (const [i, j] of [[0, 1], [1, 2], [0, 2]] as const) {
      const got = sample(), expect = sample();
      kernel(art(), "setRecord").launch(1, 1)(got, i, j);
      expect.set(i, expect.get(j));
      assert.deepEqual(got.bytes, expect.bytes);
    }
    const arr = new Complex64Array(1);
    kernel(art(), "recordReadC").launch(1, 1)({ ...sample().get(0), c: { re: 4, im: 5 } }, arr);
    assert.deepEqual([...new Float32Array(arr.buffer)], [4, 5]);
  });

  it("record_write_array / record_read_array / record_write_2d_array / record_read_2d_array (flattened) on the simulator", () => {
    const w = cuda.recordArray(RecWithArray, 1);
    kernel(art(), "recordWriteArray").launch(1, 1)(w);
    assert.deepEqual(w.get(0), { g: 2, h0: 3, h1: 4 });
    // numpy's bytes of (2, [3.0, 4.0]): i4 2, f4 3.0, f4 4.0.
    assert.deepEqual([...w.bytes], [...new Uint8Array(new Int32Array([2]).buffer), ...new Uint8Array(new Float32Array([3, 4]).buffer)]);
    const a = new Float32Array(2);
    kernel(art(), "recordReadArray").launch(1, 1)({ g: 0, h0: 4, h1: 5 }, a);
    assert.deepEqual([...a], [4, 5]);
    const w2 = cuda.recordArray(RecWith2dArray, 1);
    kernel(art(), "recordWrite2dArray").launch(1, 1)(w2);
    assert.deepEqual(w2.get(0), { i: 3, j00: 5, j01: 6, j10: 7, j11: 8, j20: 9, j21: 10 });
    const a2 = new Float32Array(6);
    kernel(art(), "recordRead2dArray").launch(1, 1)({ i: 0, j00: 5, j01: 6, j10: 7, j11: 8, j20: 9, j21: 10 }, a2);
    assert.deepEqual([...a2], [5, 6, 7, 8, 9, 10]);
  });

  it("the g++ emulation of the generated C++ leaves the simulator's bytes", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const v43 = complexArray(new Float32Array([0, 43]));
    const values: Record<string, HostValue> = { rec: sample().bytes, one: 1, two: 2, zero: 0, v: v43, w: new Uint8Array(12), w2: new Uint8Array(28) };
    const launches = [
      { kernel: "setC", grid: 1, block: 1, args: ["rec", "one", "v"] },
      { kernel: "setRecord", grid: 1, block: 1, args: ["rec", "zero", "two"] },
      { kernel: "recordWriteArray", grid: 1, block: 1, args: ["w"] },
      { kernel: "recordWrite2dArray", grid: 1, block: 1, args: ["w2"] },
    ];
    const c: CorpusCase = { name: "record numba ports", setup: () => values, launches, reference: () => ({}) };
    const { outputs } = await emulateCase(gxx, "record-numba-ports", gen, c, values);
    const rec = sample(), w = cuda.recordArray(RecWithArray, 1), w2 = cuda.recordArray(RecWith2dArray, 1);
    kernel(art(), "setC").launch(1, 1)(rec, 1, Complex64Array.wrap(new Float32Array([0, 43])));
    kernel(art(), "setRecord").launch(1, 1)(rec, 0, 2);
    kernel(art(), "recordWriteArray").launch(1, 1)(w);
    kernel(art(), "recordWrite2dArray").launch(1, 1)(w2);
    assert.equal(compareArrays("rec", rec.bytes, outputs.get("rec")!), undefined);
    assert.equal(compareArrays("w", w.bytes, outputs.get("w")!), undefined);
    assert.equal(compareArrays("w2", w2.bytes, outputs.get("w2")!), undefined);
  });

  it("the generated C++ compiles with NVRTC (compute_80) and assembles with ptxas (sm_80)", (t) => {
    assertCompilesForSm80(t, generateCuda(check.module, { lineDirectives: false }).source, "numba_ports.cu");
  });
});
