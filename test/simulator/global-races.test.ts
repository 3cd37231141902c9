/**
 * Global-memory race detection under the sanitizer (runtime/src/simulator/sanitizer/global-races.ts):
 * seeded races are found with their code (CSR066 within a block, CSR067 between blocks), line, both
 * accesses' blocks and threads; correct programs — CUDA's threadFenceReduction "last block" pattern,
 * GPU-Puzzles' tiled matmul, grid-sync kernels, launches that read what an earlier launch wrote — give
 * no finding. Every kernel is real: compiled by the front end and run by the simulator.
 */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { configureSimulator, CudaScriptError } from "cudascript";
import { lastLaunch } from "cudascript/dist/simulator/executor";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

function run(source: string, name: string, grid: number | number[], block: number | number[], args: unknown[], sanitize = true, workers = 1): CudaScriptError | undefined {
  configureSimulator({ sanitize, workers, inProcessThreshold: workers > 1 ? 0 : 1 << 30, mainThreadExecutes: workers === 1, warn: () => {} });
  const k = kernel(compileSource(source), name);
  try {
    k.launch(grid, block)(...args);
  } catch (e) {
    if (e instanceof CudaScriptError) return e;
    throw e;
  }
  return undefined;
}

/** The 1-based line of the first source line containing `marker`. */
function lineOf(source: string, marker: string): number {
  return source.split("\n").findIndex((l) => l.includes(marker)) + 1;
}

interface Other {
  block: number[];
  thread: number[];
  line?: number;
}

function expectRace(e: CudaScriptError | undefined, code: string, source: string, marker: string, otherMarker?: string): Other {
  assert.ok(e, "expected a race finding");
  assert.equal(e.code, code, e.message);
  assert.equal(e.details?.kind, "race", e.message);
  assert.equal(e.details?.line, lineOf(source, marker), e.message);
  const other = (e.details as unknown as { other: Other }).other;
  assert.ok(other, e.message);
  if (otherMarker) assert.equal(other.line, lineOf(source, otherMarker), e.message);
  return other;
}

const HEAD = `import { cuda, f32, i32, u32 } from "cudascript";\n`;

describe("global-memory races: seeded bugs", () => {
  it("a race between blocks on one global element (every block writes out[0]) is CSR067 naming both blocks", () => {
    const src = `${HEAD}export const k = cuda.jit((out: Int32Array) => {
  if (cuda.threadIdx.x === 0) out[0] = cuda.blockIdx.x; // @write
});`;
    const e = run(src, "k", 4, 32, [new Int32Array(1)]);
    const other = expectRace(e, "CSR067", src, "@write", "@write");
    assert.deepEqual(e!.details?.block, [1, 0, 0]);
    assert.deepEqual(other.block, [0, 0, 0]);
    assert.deepEqual(other.thread, [0, 0, 0]);
    assert.match(e!.message, /between blocks.*out\[0\]|out\[0\].*between blocks/);
    // Without the sanitizer the simulator runs it (sequentially, to an answer a GPU need not give).
    assert.equal(run(src, "k", 4, 32, [new Int32Array(1)], false), undefined);
  });

  it("an in-place stencil with a barrier between its reads and writes still races across the block boundary", () => {
    const src = `${HEAD}export const k = cuda.jit((a: Float32Array) => {
  const i = cuda.grid(1);
  const left = i > 0 ? a[i - 1] : 0; // @read
  cuda.syncthreads(); // orders the block's own threads, not the blocks
  a[i] = left + 1; // @write
});`;
    const e = run(src, "k", 2, 32, [new Float32Array(64)]);
    // Block 1's thread 0 reads a[31], which block 0's thread 31 wrote.
    const other = expectRace(e, "CSR067", src, "@read", "@write");
    assert.deepEqual(other.block, [0, 0, 0]);
  });

  it("threads of one block: a global write read by another thread without cuda.syncthreads() is CSR066", () => {
    const src = `${HEAD}export const k = cuda.jit((a: Float32Array, out: Float32Array) => {
  const t = cuda.threadIdx.x;
  a[t] = t; // @write
  out[t] = a[(t + 1) % 32]; // @read
});`;
    const e = run(src, "k", 1, 32, [new Float32Array(32), new Float32Array(32)]);
    expectRace(e, "CSR066", src, "@write", "@read");
  });

  it("the same kernel with cuda.syncthreads() between write and read is clean", () => {
    const src = `${HEAD}export const k = cuda.jit((a: Float32Array, out: Float32Array) => {
  const t = cuda.threadIdx.x;
  a[cuda.grid(1)] = t;
  cuda.syncthreads();
  out[cuda.grid(1)] = a[cuda.blockIdx.x * 32 + ((t + 1) % 32)];
});`;
    assert.equal(run(src, "k", 4, 32, [new Float32Array(128), new Float32Array(128)]), undefined);
  });

  it("a missing grid sync before reading what another block wrote is CSR067; with g.sync() it is clean", () => {
    const body = (sync: string) => `${HEAD}export const k = cuda.jit((a: Float32Array, out: Float32Array) => {
  const g = cuda.cg.thisGrid();
  const i = cuda.grid(1);
  a[i] = i; // @write
  ${sync}
  out[i] = a[(i + 32) % a.length]; // @read
  g.sync();
  out[i] += 1;
});`;
    const buggy = body("");
    // Blocks run in order: block 0 reads a[32..63] before block 1 writes them (write after read), and
    // block 3 reads what block 0 wrote (read after write); the first found is block 1's write.
    const e = run(buggy, "k", 4, 32, [new Float32Array(128), new Float32Array(128)]);
    const other = expectRace(e, "CSR067", buggy, "@write", "@read");
    assert.deepEqual(e!.details?.block, [1, 0, 0]);
    assert.deepEqual(other.block, [0, 0, 0]);
    const fixed = body("g.sync();");
    assert.equal(run(fixed, "k", 4, 32, [new Float32Array(128), new Float32Array(128)]), undefined);
  });

  it("a race hidden behind a threadfence without the atomic (a plain flag) is CSR067", () => {
    const src = `${HEAD}export const k = cuda.jit((partial: Float32Array, flag: Int32Array, out: Float32Array) => {
  const b = cuda.blockIdx.x;
  if (cuda.threadIdx.x === 0) {
    partial[b] = b + 1;
    cuda.threadfence();
    flag[0] = flag[0] + 1; // @flag
    if (flag[0] === cuda.gridDim.x) {
      let s: f32 = 0;
      for (let j = 0; j < cuda.gridDim.x; j++) s += partial[j];
      out[0] = s;
    }
  }
});`;
    const e = run(src, "k", 4, 32, [new Float32Array(4), new Int32Array(1), new Float32Array(1)]);
    expectRace(e, "CSR067", src, "@flag");
  });

  it("the last-block pattern with the atomic but without cuda.threadfence() is a race on the partial sums", () => {
    const src = `${HEAD}export const k = cuda.jit((partial: Float32Array, count: Uint32Array, out: Float32Array) => {
  const isLast = cuda.shared.array(1, i32);
  const b = cuda.blockIdx.x;
  if (cuda.threadIdx.x === 0) {
    partial[b] = b + 1; // @write
    const ticket = cuda.atomic.inc(count, 0, cuda.gridDim.x);
    isLast[0] = ticket === cuda.gridDim.x - 1 ? 1 : 0;
  }
  cuda.syncthreads();
  if (isLast[0] === 1 && cuda.threadIdx.x === 0) {
    let s: f32 = 0;
    for (let j = 0; j < cuda.gridDim.x; j++) s += partial[j]; // @read
    out[0] = s;
  }
});`;
    const e = run(src, "k", 4, 32, [new Float32Array(4), new Uint32Array(1), new Float32Array(1)]);
    const other = expectRace(e, "CSR067", src, "@read", "@write");
    assert.deepEqual(e!.details?.block, [3, 0, 0]);
    assert.deepEqual(other.block, [0, 0, 0]);
  });

  it("the last-block pattern with the fence before the write instead of after it is a race on the partial sums", () => {
    const src = `${HEAD}export const k = cuda.jit((partial: Float32Array, count: Uint32Array, out: Float32Array) => {
  const isLast = cuda.shared.array(1, i32);
  const b = cuda.blockIdx.x;
  if (cuda.threadIdx.x === 0) {
    cuda.threadfence();
    partial[b] = b + 1; // @write
    const ticket = cuda.atomic.inc(count, 0, cuda.gridDim.x);
    isLast[0] = ticket === cuda.gridDim.x - 1 ? 1 : 0;
  }
  cuda.syncthreads();
  if (isLast[0] === 1 && cuda.threadIdx.x === 0) {
    let s: f32 = 0;
    for (let j = 0; j < cuda.gridDim.x; j++) s += partial[j]; // @read
    out[0] = s;
  }
});`;
    const e = run(src, "k", 4, 32, [new Float32Array(4), new Uint32Array(1), new Float32Array(1)]);
    expectRace(e, "CSR067", src, "@read", "@write");
  });

  it("a plain write of a counter other blocks update atomically is a race; atomics among themselves, and plain reads, are not", () => {
    const src = `${HEAD}export const k = cuda.jit((count: Int32Array, out: Int32Array) => {
  cuda.atomic.add(count, 0, 1); // @atomic
  cuda.syncthreads();
  if (cuda.threadIdx.x === 0) out[cuda.blockIdx.x] = count[0]; // @read
  if (cuda.threadIdx.x === 0 && cuda.blockIdx.x === 1) count[0] = 0; // @reset
});`;
    const e = run(src, "k", 3, 32, [new Int32Array(1), new Int32Array(3)]);
    // Block 1 resets count[0], which block 0 read (and updated) with nothing ordering the two blocks.
    expectRace(e, "CSR067", src, "@reset", "@read");
    const afterAtomics = `${HEAD}export const k = cuda.jit((count: Int32Array) => {
  cuda.atomic.add(count, 0, 1); // @atomic
  if (cuda.threadIdx.x === 0 && cuda.blockIdx.x === 1) count[0] = 0; // @reset
});`;
    // Within block 1: thread 0 resets it, then thread 1's atomic comes with no barrier in between.
    expectRace(run(afterAtomics, "k", 3, 32, [new Int32Array(1)]), "CSR066", afterAtomics, "@atomic", "@reset");
    const atomicsOnly = `${HEAD}export const k = cuda.jit((count: Int32Array) => {
  cuda.atomic.add(count, 0, 1);
});`;
    assert.equal(run(atomicsOnly, "k", 8, 64, [new Int32Array(1)]), undefined);
  });

  it("a race through a device function's array parameter is found at the device function's line", () => {
    const src = `${HEAD}const put = cuda.device((a: Int32Array, v: i32): void => {
  a[0] = v; // @write
});
export const k = cuda.jit((out: Int32Array) => {
  if (cuda.threadIdx.x === 0) put(out, cuda.blockIdx.x);
});`;
    const e = run(src, "k", 2, 32, [new Int32Array(1)]);
    expectRace(e, "CSR067", src, "@write", "@write");
  });

  it("two parameters bound to one device array see the same elements", () => {
    const src = `${HEAD}export const k = cuda.jit((a: Float32Array, b: Float32Array) => {
  const i = cuda.grid(1);
  a[i] = 1; // @write
  const v = b[(i + 32) % b.length]; // @read
  if (v > 5) a[i] = v;
});`;
    const d = cuda_toDevice(new Float32Array(64));
    const e = run(src, "k", 2, 32, [d, d]);
    expectRace(e, "CSR067", src, "@write", "@read");
  });
});

describe("global-memory races: where and how launches run", () => {
  const src = `${HEAD}export const k = cuda.jit((out: Int32Array) => {
  if (cuda.threadIdx.x === 0) out[0] = cuda.blockIdx.x; // @write
});`;

  it("with several workers configured, a sanitized launch runs on one executor and still sees every block", () => {
    const e = run(src, "k", 64, 32, [new Int32Array(1)], true, 2);
    expectRace(e, "CSR067", src, "@write", "@write");
    assert.equal(lastLaunch()?.executors, 1);
  });

  it("under a deadline (cudascript run --timeout) it runs in one worker, which can be stopped", () => {
    configureSimulator({ sanitize: true, workers: 2, inProcessThreshold: 0, mainThreadExecutes: true, deadline: Date.now() + 60_000, warn: () => {} });
    try {
      const k = kernel(compileSource(src), "k");
      assert.throws(() => k.launch(64, 32)(new Int32Array(1)), (e: unknown) => e instanceof CudaScriptError && e.code === "CSR067");
      assert.equal(lastLaunch()?.executors, 1);
    } finally {
      configureSimulator({ deadline: Infinity });
    }
  });

  it("a 2-D array's element is named by its indices", () => {
    const src2 = `${HEAD}export const k = cuda.jit((m: Float32Array2D) => {
  m[1][cuda.threadIdx.x] = cuda.blockIdx.x; // @write
});`.replace("Float32Array2D", "Array2D<f32>").replace("import { cuda, f32, i32, u32 }", "import { cuda, f32, i32, u32, type Array2D }");
    const d = (require("cudascript") as typeof import("cudascript")).cuda.deviceArray([2, 32], (require("cudascript") as typeof import("cudascript")).f32);
    const e = run(src2, "k", 2, 32, [d]);
    expectRace(e, "CSR067", src2, "@write", "@write");
    assert.match(e!.message, /'m\[1\]\[0\]'/);
  });

  it("within a warp, cuda.syncwarp() orders global accesses; across warps only a barrier does", () => {
    const body = (sync: string, other: string) => `${HEAD}export const k = cuda.jit((a: Int32Array, out: Int32Array) => {
  const t = cuda.threadIdx.x;
  a[t] = t;
  ${sync}
  out[t] = a[${other}]; // @read
});`;
    assert.equal(run(body("cuda.syncwarp(0xffffffff);", "t ^ 1"), "k", 1, 64, [new Int32Array(64), new Int32Array(64)]), undefined);
    const e = run(body("cuda.syncwarp(0xffffffff);", "(t + 32) % 64"), "k", 1, 64, [new Int32Array(64), new Int32Array(64)]);
    expectRace(e, "CSR066", body("cuda.syncwarp(0xffffffff);", "(t + 32) % 64"), "@read");
  });
});

describe("global-memory races: views of one allocation", () => {
  it("a device array and a slice of it are the same elements: a write through one races with a read through the other", () => {
    const src = `${HEAD}export const k = cuda.jit((a: Float32Array, b: Float32Array) => {
  const i = cuda.grid(1);
  a[i] = 1; // @write
  const v = b[cuda.threadIdx.x]; // @read
  if (v > 5) a[i] = v;
});`;
    const d = cuda_toDevice(new Float32Array(64)) as { slice(b: number, e: number): unknown };
    // b is d[32..64): block 0 reads d[32..63] through it, then block 1 writes them through a.
    const e = run(src, "k", 2, 32, [d, d.slice(32, 64)]);
    const other = expectRace(e, "CSR067", src, "@write", "@read");
    assert.deepEqual(e!.details?.block, [1, 0, 0]);
    assert.deepEqual(other.block, [0, 0, 0]);
  });
});

describe("global-memory races: parameters the kernel only reads or only writes", () => {
  const src = `${HEAD}export const k = cuda.jit((a: Float32Array, b: Float32Array) => {
  const i = cuda.grid(1);
  let v: f32 = 0;
  if (cuda.blockIdx.x === 0) v = b[i + 32]; // @read
  a[i] = v + 1; // @write
});`;
  it("a write-only parameter bound to the memory of a read one: block 1's write after block 0's read is found", () => {
    const d = cuda_toDevice(new Float32Array(64));
    const e = run(src, "k", 2, 32, [d, d]);
    const other = expectRace(e, "CSR067", src, "@write", "@read");
    assert.deepEqual(other.block, [0, 0, 0]);
  });
  it("the same kernel on separate arrays is clean (neither parameter is checked against the other)", () => {
    assert.equal(run(src, "k", 2, 32, [cuda_toDevice(new Float32Array(64)), cuda_toDevice(new Float32Array(64))]), undefined);
  });
});

describe("global-memory races: correct programs give no finding", () => {
  it("CUDA's threadFenceReduction: partial sums, threadfence, atomicInc ticket, the last block sums them", () => {
    const src = `${HEAD}const TPB = 64;
export const k = cuda.jit((x: Float32Array, partial: Float32Array, count: Uint32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const amLast = cuda.shared.array(1, i32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) {
    partial[cuda.blockIdx.x] = tile[0];
    cuda.threadfence();
    const ticket = cuda.atomic.inc(count, 0, cuda.gridDim.x);
    amLast[0] = ticket === cuda.gridDim.x - 1 ? 1 : 0;
  }
  cuda.syncthreads();
  if (amLast[0] === 1) {
    if (t === 0) {
      let s: f32 = 0;
      for (let j = 0; j < cuda.gridDim.x; j++) s += partial[j];
      out[0] = s;
      count[0] = 0;
    }
  }
});`;
    const n = 64 * 16;
    const out = new Float32Array(1);
    const e = run(src, "k", 16, 64, [Float32Array.from({ length: n }, (_, j) => j % 7), new Float32Array(16), new Uint32Array(1), out]);
    assert.equal(e, undefined, e?.message);
    assert.equal(out[0], Array.from({ length: n }, (_, j) => j % 7).reduce((a, b) => a + b, 0));
  });

  it("threadFenceReduction with every thread writing its part before the barrier that precedes the fence", () => {
    const src = `${HEAD}export const k = cuda.jit((parts: Float32Array, count: Uint32Array, out: Float32Array) => {
  const amLast = cuda.shared.array(1, i32);
  const t = cuda.threadIdx.x;
  parts[cuda.grid(1)] = t;
  cuda.syncthreads();
  if (t === 0) {
    cuda.threadfence();
    amLast[0] = cuda.atomic.inc(count, 0, cuda.gridDim.x) === cuda.gridDim.x - 1 ? 1 : 0;
  }
  cuda.syncthreads();
  if (amLast[0] === 1) {
    let s: f32 = 0;
    for (let j = t; j < parts.length; j += cuda.blockDim.x) s += parts[j];
    cuda.atomic.add(out, 0, s);
  }
});`;
    const e = run(src, "k", 8, 32, [new Float32Array(256), new Uint32Array(1), new Float32Array(1)]);
    assert.equal(e, undefined, e?.message);
  });

  it("GPU-Puzzles' tiled matmul", () => {
    const src = `${HEAD}const TPB = 3;
export const k = cuda.jit((out: Float32Array, a: Float32Array, b: Float32Array, size: i32) => {
  const aShared = cuda.shared.array([TPB, TPB], f32);
  const bShared = cuda.shared.array([TPB, TPB], f32);
  const i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  const j = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y;
  const li = cuda.threadIdx.x;
  const lj = cuda.threadIdx.y;
  let acc: f32 = 0;
  for (let k0 = 0; k0 < size; k0 += TPB) {
    if (i < size && k0 + lj < size) aShared[li][lj] = a[i * size + (k0 + lj)];
    if (j < size && k0 + li < size) bShared[li][lj] = b[(k0 + li) * size + j];
    cuda.syncthreads();
    for (let kk = 0; kk < Math.min(TPB, size - k0); kk++) acc += aShared[li][kk] * bShared[kk][lj];
    cuda.syncthreads();
  }
  if (i < size && j < size) out[i * size + j] = acc;
});`;
    const size = 8;
    const e = run(src, "k", [3, 3], [3, 3], [new Float32Array(size * size), Float32Array.from({ length: 64 }, (_, j) => j), Float32Array.from({ length: 64 }, (_, j) => j % 5), size]);
    assert.equal(e, undefined, e?.message);
  });

  it("a grid-sync kernel: every block writes, g.sync(), every block reads its neighbour's element", () => {
    const src = `${HEAD}export const k = cuda.jit((a: Float32Array, out: Float32Array) => {
  const g = cuda.cg.thisGrid();
  const i = cuda.grid(1);
  for (let step = 0; step < 3; step++) {
    a[i] = i + step;
    g.sync();
    out[i] += a[(i + 32) % a.length];
    g.sync();
  }
});`;
    const e = run(src, "k", 4, 32, [new Float32Array(128), new Float32Array(128)]);
    assert.equal(e, undefined, e?.message);
  });

  it("launches are ordered: a second launch reads and overwrites what the first wrote", () => {
    const src = `${HEAD}export const w = cuda.jit((a: Float32Array) => {
  a[cuda.grid(1)] = cuda.blockIdx.x;
});
export const r = cuda.jit((a: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  out[i] = a[(i + 32) % a.length];
});`;
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30, mainThreadExecutes: true });
    const art = compileSource(src);
    const a = new Float32Array(128), out = new Float32Array(128);
    const d = cuda_toDevice(a);
    kernel(art, "w").launch(4, 32)(d);
    kernel(art, "r").launch(4, 32)(d, out);
    kernel(art, "w").launch(4, 32)(d);
    kernel(art, "w").launch(4, 32)(d);
  });

  it("a histogram with atomics only, and a block that reads what its own threads wrote after a barrier", () => {
    const src = `${HEAD}export const k = cuda.jit((data: Uint8Array, hist: Uint32Array, scratch: Float32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, data[i] & 15, 1);
  scratch[i] = i;
  cuda.syncthreads();
  const t = cuda.threadIdx.x;
  scratch[i] += scratch[cuda.blockIdx.x * cuda.blockDim.x + ((t + 1) % cuda.blockDim.x)] * 0;
});`;
    const e = run(src, "k", 8, 64, [Uint8Array.from({ length: 512 }, (_, j) => j * 7), new Uint32Array(16), new Float32Array(512)]);
    assert.ok(e, "the last line is itself a race (thread t writes scratch[i] while t-1 reads it)");
    const clean = `${HEAD}export const k = cuda.jit((data: Uint8Array, hist: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < data.length) cuda.atomic.add(hist, data[i] & 15, 1);
});`;
    assert.equal(run(clean, "k", 8, 64, [Uint8Array.from({ length: 512 }, (_, j) => j * 7), new Uint32Array(16)]), undefined);
  });
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const cuda_toDevice = (a: Float32Array): unknown => (require("cudascript") as typeof import("cudascript")).cuda.toDevice(a);
