/**
 * Uninitialised shared-memory reads under the sanitizer (docs/simulator.md, "Uninitialised shared
 * memory"): by default a read of an element no thread of the block wrote is a CSR023 *warning* — the
 * run continues, each source line is reported once with its block and thread — and
 * `uninitializedShared: "error"` makes it the stopping CSR023 fault. Both sides: the GPU-Puzzles tiled
 * matmul (whose out-of-matrix threads read tile elements nobody wrote but never store what they
 * computed) completes with the right result; kernels that store, branch on or index with such a value
 * are reported at the read's line, as a warning or, in error mode, as the fault.
 */
import * as assert from "node:assert/strict";
import { describe, it, after, beforeEach } from "node:test";
import { configureSimulator, cuda, CudaScriptError, f32, i32 } from "cudascript";
import { lastLaunchWarnings } from "cudascript/dist/simulator/executor";
import { simulatorOptionsFromEnv } from "cudascript/dist/simulator/backend";
import { compileSource, kernel } from "./helpers";

const TPB = 3;
const SOURCE = `
import { cuda, f32, i32 } from "cudascript";
const TPB = ${TPB};
/** GPU-Puzzles 14 (matrix multiply): threads outside the matrix load nothing but read whole tile rows. */
export const matmul = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array, size: i32) => {
  const aShared = cuda.shared.array(TPB * TPB, f32);
  const bShared = cuda.shared.array(TPB * TPB, f32);
  const i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  const j = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y;
  const li = cuda.threadIdx.x;
  const lj = cuda.threadIdx.y;
  let acc: f32 = 0;
  for (let k = 0; k < size; k += TPB) {
    if (i < size && k + lj < size) aShared[li * TPB + lj] = a[i * size + k + lj];
    if (j < size && k + li < size) bShared[li * TPB + lj] = b[(k + li) * size + j];
    cuda.syncthreads();
    for (let kk = 0; kk < TPB; kk++) {
      if (k + kk < size) acc += aShared[li * TPB + kk] * bShared[kk * TPB + lj]; // MATMUL-READ
    }
    cuda.syncthreads();
  }
  if (i < size && j < size) out[i * size + j] = acc;
});

/** Odd threads' elements are never written; every thread stores its own element. */
export const storesUnwritten = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t % 2 === 0) s[t] = t + 1;
  cuda.syncthreads();
  out[t] = s[t]; // STORE-READ
});

export const branchesOnUnwritten = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t < 32) s[t] = 1;
  cuda.syncthreads();
  const v = s[t]; // BRANCH-READ
  if (v > 0) out[t] = 1;
});

export const indexesWithUnwritten = cuda.jit((table: Int32Array, out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t !== 5) s[t] = t;
  cuda.syncthreads();
  const k = s[t]; // INDEX-READ
  out[t] = table[k];
});
`;
const art = compileSource(SOURCE);
const lineOf = (marker: string) => SOURCE.split("\n").findIndex((l) => l.includes(marker)) + 1;

const printed: string[] = [];
const sink = (text: string) => void printed.push(text);
after(() => configureSimulator({ sanitize: false, uninitializedShared: "warn", warn: (t: string) => void process.stderr.write(t), workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));
beforeEach(() => {
  printed.length = 0;
  configureSimulator({ sanitize: true, uninitializedShared: "warn", warn: sink, workers: 1, inProcessThreshold: 1 << 30, mainThreadExecutes: true });
});

function matmulOnce(size: number): { out: Float32Array; want: Float32Array } {
  const a = new Float32Array(size * size).map((_, k) => (k % 7) - 3);
  const b = new Float32Array(size * size).map((_, k) => (k % 5) - 2);
  const want = new Float32Array(size * size);
  for (let i = 0; i < size; i++)
    for (let j = 0; j < size; j++) {
      let s = 0;
      for (let k = 0; k < size; k++) s = Math.fround(s + Math.fround(a[i * size + k]! * b[k * size + j]!));
      want[i * size + j] = s;
    }
  const out = cuda.deviceArray(size * size, f32);
  const blocks = Math.ceil(size / TPB);
  kernel(art, "matmul").launch([blocks, blocks], [TPB, TPB])(cuda.toDevice(a), cuda.toDevice(b), out, size);
  return { out: out.copyToHost() as Float32Array, want };
}

describe("uninitialised shared reads: a warning by default", () => {
  it("the GPU-Puzzles matmul runs to completion under the sanitizer with the right result and one warning", () => {
    const { out, want } = matmulOnce(8);
    assert.deepEqual(Array.from(out), Array.from(want));
    const warnings = lastLaunchWarnings();
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    const w = warnings[0]!;
    assert.equal(w.code, "CSR023");
    assert.equal(w.details?.kind, "uninitialized-shared");
    assert.equal(w.details?.line, lineOf("// MATMUL-READ"));
    assert.ok(w.details?.block && w.details.thread, "names the block and the thread");
    assert.equal(printed.length, 1, printed.join(""));
    assert.match(printed[0]!, new RegExp(`^cudascript: CSR023 warning: uninitialised shared memory read of 'aShared\\[\\d+\\]' at \\S+:${lineOf("// MATMUL-READ")}:\\d+ in kernel 'matmul', block \\(\\d+, \\d+, 0\\), thread \\(\\d+, \\d+, 0\\)`));
    assert.match(printed[0]!, /uninitializedShared: "error"|--uninitialized-shared error/);
  });

  it("a source line is printed once per process, though every launch reports it", () => {
    matmulOnce(8);
    matmulOnce(5);
    assert.equal(lastLaunchWarnings().length, 1);
    assert.ok(printed.length <= 1, printed.join(""));
  });

  it("the same with the blocks spread over two workers", () => {
    configureSimulator({ workers: 2, inProcessThreshold: 0, mainThreadExecutes: false });
    const { out, want } = matmulOnce(8);
    assert.deepEqual(Array.from(out), Array.from(want));
    const warnings = lastLaunchWarnings();
    assert.equal(warnings.length, 1, JSON.stringify(warnings));
    assert.equal(warnings[0]!.details?.line, lineOf("// MATMUL-READ"));
  });

  for (const [name, marker, args] of [
    ["storesUnwritten", "// STORE-READ", () => [cuda.deviceArray(64, i32)]],
    ["branchesOnUnwritten", "// BRANCH-READ", () => [cuda.deviceArray(64, i32)]],
    ["indexesWithUnwritten", "// INDEX-READ", () => [cuda.toDevice(new Int32Array(64)), cuda.deviceArray(64, i32)]],
  ] as const) {
    it(`${name}: warned at the read's line, with the thread that read it`, () => {
      kernel(art, name).launch(1, 64)(...args());
      const w = lastLaunchWarnings();
      assert.equal(w.length, 1, JSON.stringify(w));
      assert.equal(w[0]!.code, "CSR023");
      assert.equal(w[0]!.details?.line, lineOf(marker));
      assert.deepEqual(w[0]!.details?.thread, [name === "storesUnwritten" ? 1 : name === "branchesOnUnwritten" ? 32 : 5, 0, 0]);
    });
  }

  it("a run with no uninitialised read reports no warning", () => {
    const size = TPB * 2; // whole tiles: every element read was written
    const { out, want } = matmulOnce(size);
    assert.deepEqual(Array.from(out), Array.from(want));
    assert.deepEqual(lastLaunchWarnings(), []);
    assert.deepEqual(printed, []);
  });
});

describe('uninitialised shared reads with uninitializedShared: "error"', () => {
  for (const [name, marker, args, thread] of [
    ["matmul", "// MATMUL-READ", undefined, undefined],
    ["storesUnwritten", "// STORE-READ", () => [cuda.deviceArray(64, i32)], [1, 0, 0]],
    ["branchesOnUnwritten", "// BRANCH-READ", () => [cuda.deviceArray(64, i32)], [32, 0, 0]],
    ["indexesWithUnwritten", "// INDEX-READ", () => [cuda.toDevice(new Int32Array(64)), cuda.deviceArray(64, i32)], [5, 0, 0]],
  ] as const) {
    it(`${name}: stops with CSR023 at the read's line`, () => {
      configureSimulator({ uninitializedShared: "error" });
      assert.throws(
        () => (args ? kernel(art, name).launch(1, 64)(...args()) : matmulOnce(8)),
        (e: unknown) =>
          e instanceof CudaScriptError &&
          e.code === "CSR023" &&
          e.details?.line === lineOf(marker) &&
          (thread === undefined || JSON.stringify(e.details?.thread) === JSON.stringify(thread)) &&
          /uninitialised shared memory read/.test(e.message),
      );
      assert.deepEqual(printed, []);
    });
  }
});

describe("the uninitializedShared option", () => {
  it("refuses another value with CSR018, naming the accepted ones", () => {
    assert.throws(
      () => configureSimulator({ uninitializedShared: "ignore" as never }),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR018" && /'warn' or 'error'/.test(e.message) && /ignore/.test(e.message),
    );
  });
  it("reads CUDASCRIPT_UNINITIALIZED_SHARED, and refuses a bad value with CSR018", () => {
    const old = process.env.CUDASCRIPT_UNINITIALIZED_SHARED;
    try {
      process.env.CUDASCRIPT_UNINITIALIZED_SHARED = "error";
      assert.equal(simulatorOptionsFromEnv().uninitializedShared, "error");
      delete process.env.CUDASCRIPT_UNINITIALIZED_SHARED;
      assert.equal(simulatorOptionsFromEnv().uninitializedShared, "warn");
      process.env.CUDASCRIPT_UNINITIALIZED_SHARED = "stop";
      assert.throws(() => simulatorOptionsFromEnv(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR018" && /CUDASCRIPT_UNINITIALIZED_SHARED/.test(e.message));
    } finally {
      if (old === undefined) delete process.env.CUDASCRIPT_UNINITIALIZED_SHARED;
      else process.env.CUDASCRIPT_UNINITIALIZED_SHARED = old;
    }
  });
});
