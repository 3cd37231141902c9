/**
 * Undefined values under the sanitizer (docs/simulator.md, "Undefined values"; issue 32 item 2): a read
 * of shared memory no thread of the block wrote gives an undefined value, which is followed through
 * arithmetic, locals, shared memory and device functions and reported (CSR068) only where it matters —
 * a store to global memory, a branch or loop condition, an index, an atomic's operand, a print — naming
 * the read (the origin) and the use. The GPU-Puzzles tiled matmul (whose out-of-matrix threads read
 * tile elements nobody wrote but never store what they computed) is clean; seeded kernels that store,
 * branch on or index with such a value stop at the use, naming the read's line; with
 * `uninitializedShared: "warn"` the same findings are warnings and the run goes on.
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
/** The undefined value goes through shared memory, a device function and a local before it is stored. */
export const throughSharedAndCalls = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(64, f32);
  const u = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  if (t !== 7) s[t] = 1;
  cuda.syncthreads();
  u[t] = twice(s[t]) + 1; // ORIGIN-READ
  cuda.syncthreads();
  const w = u[t];
  out[t] = w; // GLOBAL-USE
});
const twice = cuda.device((x: f32): f32 => x * 2);

/** Reads nobody wrote, in a value overwritten before use, a select's untaken side and a dead local: clean. */
export const harmlessReads = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t < 32) s[t] = t;
  cuda.syncthreads();
  let v = s[t];
  const dead = s[63 - t] * 3;
  v = 5;
  const pick = t < 32 ? s[t] : 0;
  out[t] = v + pick;
});

/** An unwritten value printed. */
export const printsUnwritten = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t > 0) s[t] = t;
  cuda.syncthreads();
  if (t === 0) console.log("s0 = %d", s[t]); // PRINT-READ
  out[t] = 1;
});

/** A device function with a barrier (inlined into the kernel's pieces) reads the unwritten element. */
const syncedRead = cuda.device((tile: Float32Array, t: i32): f32 => {
  cuda.syncthreads();
  return tile[t] * 2; // SYNCFN-READ
});
export const throughSyncedDevice = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  if (t !== 9) s[t] = 1;
  const v = syncedRead(s, t);
  out[t] = v; // SYNCFN-USE
});

/** Block 0 leaves s[7] unwritten and copies it into u; block 1 writes everything: only block 0 is undefined. */
export const perBlock = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const u = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  u[(t + 1) % 64] = 5;
  if (cuda.blockIdx.x !== 0 || t !== 7) s[t] = 1;
  cuda.syncthreads();
  u[t] = s[t];
  cuda.syncthreads();
  out[cuda.blockIdx.x * 64 + t] = u[t] + u[(t + 1) % 64]; // PERBLOCK-USE
});

/** A loop bounded by an unwritten value. */
export const loopsOnUnwritten = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  if (t !== 3) s[t] = 2;
  cuda.syncthreads();
  const n = s[t]; // LOOP-READ
  let acc = 0;
  for (let k = 0; k < n; k++) acc += k;
  out[t] = 1;
});
`;
const art = compileSource(SOURCE);
const lineOf = (marker: string) => SOURCE.split("\n").findIndex((l) => l.includes(marker)) + 1;

const printed: string[] = [];
const sink = (text: string) => void printed.push(text);
after(() => configureSimulator({ sanitize: false, uninitializedShared: "error", warn: (t: string) => void process.stderr.write(t), workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));
beforeEach(() => {
  printed.length = 0;
  configureSimulator({ sanitize: true, uninitializedShared: "error", warn: sink, workers: 1, inProcessThreshold: 1 << 30, mainThreadExecutes: true });
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

/** The seeded kernels: name, the read's marker, the use's marker, the use, arguments, the thread found. */
const SEEDED = [
  ["storesUnwritten", "// STORE-READ", "// STORE-READ", "a value stored to global memory", () => [cuda.deviceArray(64, i32)], [1, 0, 0]],
  ["branchesOnUnwritten", "// BRANCH-READ", "if (v > 0)", "a branch condition", () => [cuda.deviceArray(64, i32)], [32, 0, 0]],
  ["indexesWithUnwritten", "// INDEX-READ", "out[t] = table[k]", "an array index", () => [cuda.toDevice(new Int32Array(64)), cuda.deviceArray(64, i32)], [5, 0, 0]],
  ["throughSharedAndCalls", "// ORIGIN-READ", "// GLOBAL-USE", "a value stored to global memory", () => [cuda.deviceArray(64, f32)], [7, 0, 0]],
  ["printsUnwritten", "// PRINT-READ", "// PRINT-READ", "a printed value", () => [cuda.deviceArray(64, i32)], [0, 0, 0]],
  ["throughSyncedDevice", "// SYNCFN-READ", "// SYNCFN-USE", "a value stored to global memory", () => [cuda.deviceArray(64, f32)], [9, 0, 0]],
  ["loopsOnUnwritten", "// LOOP-READ", "for (let k = 0; k < n; k++)", "a loop condition", () => [cuda.deviceArray(64, i32)], [3, 0, 0]],
] as const;

describe("undefined values: reported where they matter (CSR068)", () => {
  it("the GPU-Puzzles matmul runs clean under the sanitizer with the right result", () => {
    const { out, want } = matmulOnce(8);
    assert.deepEqual(Array.from(out), Array.from(want));
    assert.deepEqual(lastLaunchWarnings(), []);
    assert.deepEqual(printed, []);
  });

  it("the same with the blocks spread over two workers", () => {
    configureSimulator({ workers: 2, inProcessThreshold: 0, mainThreadExecutes: false });
    const { out, want } = matmulOnce(8);
    assert.deepEqual(Array.from(out), Array.from(want));
    assert.deepEqual(lastLaunchWarnings(), []);
  });

  it("reads whose values never matter are silent (overwritten, untaken select side, dead local)", () => {
    const out = cuda.deviceArray(64, i32);
    kernel(art, "harmlessReads").launch(1, 64)(out);
    const got = out.copyToHost() as Int32Array;
    assert.deepEqual(Array.from(got), Array.from({ length: 64 }, (_, t) => 5 + (t < 32 ? t : 0)));
    assert.deepEqual(lastLaunchWarnings(), []);
  });

  for (const [name, readMarker, useMarker, use, args, thread] of SEEDED) {
    it(`${name}: stops at the use (${use}), naming the read's line as the origin`, () => {
      assert.throws(
        () => kernel(art, name).launch(1, 64)(...args()),
        (e: unknown) => {
          assert.ok(e instanceof CudaScriptError, String(e));
          assert.equal(e.code, "CSR068", e.message);
          assert.equal(e.details?.kind, "undefined-value");
          assert.equal(e.details?.line, lineOf(useMarker), e.message);
          assert.deepEqual(e.details?.thread, thread, e.message);
          assert.ok(e.message.includes(`undefined value used as ${use}`), e.message);
          assert.match(e.message, new RegExp(`from the read of shared memory '\\w+' at \\S+:${lineOf(readMarker)}:\\d+`));
          return true;
        },
      );
      assert.deepEqual(printed, []);
    });
  }

  it("an undefined value stored into shared memory stays in its block: the next blocks start defined", () => {
    configureSimulator({ uninitializedShared: "warn" });
    const out = cuda.deviceArray(64 * 3, i32);
    kernel(art, "perBlock").launch(3, 64)(out);
    const w = lastLaunchWarnings();
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.equal(w[0]!.details?.line, lineOf("// PERBLOCK-USE"));
    assert.deepEqual(w[0]!.details?.block, [0, 0, 0]);
    assert.deepEqual(w[0]!.details?.thread, [6, 0, 0], "thread 6 reads u[7] first");
    configureSimulator({ uninitializedShared: "error" });
    assert.throws(() => kernel(art, "perBlock").launch(3, 64)(cuda.deviceArray(64 * 3, i32)), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR068" && JSON.stringify(e.details?.thread) === "[6,0,0]");
  });

  it('uninitializedShared: "warn" reports the same use once as a warning and the run goes on', () => {
    configureSimulator({ uninitializedShared: "warn" });
    const out = cuda.deviceArray(64, i32);
    kernel(art, "storesUnwritten").launch(1, 64)(out);
    const w = lastLaunchWarnings();
    assert.equal(w.length, 1, JSON.stringify(w));
    assert.equal(w[0]!.code, "CSR068");
    assert.equal(w[0]!.details?.line, lineOf("// STORE-READ"));
    assert.equal(printed.length, 1, printed.join(""));
    assert.match(printed[0]!, /^cudascript: CSR068 warning: undefined value used as a value stored to global memory at \S+ in kernel 'storesUnwritten'/);
    const got = out.copyToHost() as Int32Array;
    assert.equal(got[2], 3, "the run went on");
  });
});

describe("the uninitializedShared option", () => {
  it("refuses another value with CSR018, naming the accepted ones", () => {
    assert.throws(
      () => configureSimulator({ uninitializedShared: "ignore" as never }),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR018" && /'warn' or 'error'/.test(e.message) && /ignore/.test(e.message),
    );
  });
  it("reads CUDASCRIPT_UNINITIALIZED_SHARED (default error), and refuses a bad value with CSR018", () => {
    const old = process.env.CUDASCRIPT_UNINITIALIZED_SHARED;
    try {
      process.env.CUDASCRIPT_UNINITIALIZED_SHARED = "warn";
      assert.equal(simulatorOptionsFromEnv().uninitializedShared, "warn");
      delete process.env.CUDASCRIPT_UNINITIALIZED_SHARED;
      assert.equal(simulatorOptionsFromEnv().uninitializedShared, "error");
      process.env.CUDASCRIPT_UNINITIALIZED_SHARED = "stop";
      assert.throws(() => simulatorOptionsFromEnv(), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR018" && /CUDASCRIPT_UNINITIALIZED_SHARED/.test(e.message));
    } finally {
      if (old === undefined) delete process.env.CUDASCRIPT_UNINITIALIZED_SHARED;
      else process.env.CUDASCRIPT_UNINITIALIZED_SHARED = old;
    }
  });
});
