/**
 * The simulator's profiler (docs/profiling.md) on textbook kernels, every expected count worked out by
 * hand in the comments: naive vs tiled transpose (coalescing), a shared tile [32][32] vs [32][33] (bank
 * conflicts), Harris's reduction steps (divergence, bank conflicts, neither), a 2-D stencil, misaligned
 * offsets, atomics' contention, `?:` and `&&` branches. Real compiler, real simulator; no GPU.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { cuda, type LaunchProfile, type ProfileLine } from "cudascript";
import { emitSimulatorModule } from "@cudascript/compiler";
import { compileFile, compileSource, kernel, REPO } from "../simulator/helpers";
import { relinkIr } from "cudascript/dist/profiler/variant";
import { GPUS, gpuSpec } from "cudascript/dist/profiler/gpus";
import { parseArch } from "@cudascript/compiler/occupancy";

/** The 1-based line of the source line containing `marker`. */
function lineOf(src: string, marker: string): number {
  const i = src.split("\n").findIndex((l) => l.includes(marker));
  assert.ok(i >= 0, `no line with ${marker}`);
  return i + 1;
}
function lineAt(l: LaunchProfile, line: number): ProfileLine {
  const x = l.lines.find((y) => y.line === line);
  assert.ok(x, `no profile for line ${line}: ${l.lines.map((y) => y.line).join(", ")}`);
  return x;
}
function profileOne(run: () => void): LaunchProfile {
  const r = cuda.profile(run);
  assert.equal(r.version, 1);
  assert.equal(r.launches.length, 1);
  return r.launches[0]!;
}

const TRANSPOSE = `
import { cuda, f32, type Array2D } from "cudascript";
export const naive = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const x = cuda.threadIdx.x, y = cuda.threadIdx.y;
  out[x][y] = a[y][x]; // NAIVE
});
export const tiled = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([32, 32], f32);
  const x = cuda.threadIdx.x, y = cuda.threadIdx.y;
  tile[y][x] = a[y][x]; // TILE IN
  cuda.syncthreads();
  out[y][x] = tile[x][y]; // TILE OUT
});
export const padded = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([32, 33], f32);
  const x = cuda.threadIdx.x, y = cuda.threadIdx.y;
  tile[y][x] = a[y][x]; // PAD IN
  cuda.syncthreads();
  out[y][x] = tile[x][y]; // PAD OUT
});
`;

describe("coalescing and bank conflicts: matrix transpose", () => {
  const art = compileSource(TRANSPOSE);
  const a = cuda.ndarray(Float32Array.from({ length: 1024 }, (_, i) => i), [32, 32]);
  const run = (name: string) => {
    const out = cuda.ndarray(new Float32Array(1024), [32, 32]);
    const l = profileOne(() => kernel(art, name).launch([1, 1], [32, 32])(a, out));
    for (let i = 0; i < 32; i++) for (let j = 0; j < 32; j++) assert.equal(out.data[i * 32 + j], a.data[j * 32 + i]);
    return l;
  };

  it("naive: rows read coalesced (4 sectors per warp), columns written one sector per lane (32)", () => {
    // One block of 32×32 threads = 32 warps, warp w is the row y = w, lanes x = 0..31.
    // a[y][x]: 32 consecutive f32 = 128 bytes at y·128 from a 256-byte-aligned base: 4 sectors → 32 × 4 = 128.
    // out[x][y]: lane x at x·128 + y·4: 32 different sectors → 32 × 32 = 1024 (ideal 4 per request: 128).
    const l = run("naive");
    assert.equal(l.kernel, "naive");
    assert.deepEqual([l.grid, l.block], [[1, 1, 1], [32, 32, 1]]);
    const t = l.totals;
    assert.deepEqual(
      [t.globalLoadRequests, t.globalLoadSectors, t.globalStoreRequests, t.globalStoreSectors, t.idealGlobalStoreSectors],
      [32, 128, 32, 1024, 128],
    );
    assert.equal(l.derived.storeSectorsPerRequest, 32);
    assert.equal(l.derived.idealStoreSectorsPerRequest, 4);
    assert.equal(l.derived.loadSectorsPerRequest, 4);
    assert.equal(l.derived.bytesMoved, (128 + 1024) * 32);
    const line = lineAt(l, lineOf(TRANSPOSE, "NAIVE"));
    assert.equal(line.globalStoreSectors, 1024);
    assert.match(line.advice[0]!, /^32 sectors per request, ideal 4: the store/);
    assert.equal(l.lines[0]!.line, line.line, "the worst line comes first");
  });

  it("tiled [32][32]: global accesses coalesced, the column read of the tile is a 32-way bank conflict", () => {
    // tile[x][y] read: lane x reads word x·32 + y, bank (x·32 + y) mod 32 = y for every lane: 32
    // distinct words in one bank → 32 wavefronts per request, 32 requests → 1024 (992 conflicts).
    // tile[y][x] write: words y·32 + x, 32 different banks → 1 wavefront per request.
    const l = run("tiled");
    const t = l.totals;
    assert.deepEqual([t.globalLoadSectors, t.globalStoreSectors], [128, 128]);
    assert.deepEqual([t.sharedStoreRequests, t.sharedStoreWavefronts, t.sharedLoadRequests, t.sharedLoadWavefronts], [32, 32, 32, 1024]);
    assert.equal(l.derived.sharedBankConflicts, 1024 - 32);
    assert.equal(l.derived.sharedLoadConflictFactor, 32);
    assert.match(lineAt(l, lineOf(TRANSPOSE, "TILE OUT")).advice.join(" "), /32-way bank conflict/);
  });

  it("padded [32][33]: no bank conflict", () => {
    // tile[x][y] read: word x·33 + y, bank (x + y) mod 32: 32 different banks → 1 wavefront.
    const l = run("padded");
    const t = l.totals;
    assert.deepEqual([t.sharedStoreWavefronts, t.sharedLoadRequests, t.sharedLoadWavefronts], [32, 32, 32]);
    assert.equal(l.derived.sharedBankConflicts, 0);
    assert.deepEqual(lineAt(l, lineOf(TRANSPOSE, "PAD OUT")).advice, []);
  });
});

const REDUCTIONS = `
import { cuda, f32, type Array1D } from "cudascript";
const TPB = 256;
export const interleaved = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sdata = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  sdata[t] = x[cuda.grid(1)];
  cuda.syncthreads();
  for (let s = 1; s < TPB; s *= 2) { // I LOOP
    if (t % (2 * s) === 0) sdata[t] += sdata[t + s]; // I STEP
    cuda.syncthreads();
  }
  if (t === 0) out[cuda.blockIdx.x] = sdata[0]; // I LAST
});
export const strided = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sdata = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  sdata[t] = x[cuda.grid(1)];
  cuda.syncthreads();
  for (let s = 1; s < TPB; s *= 2) {
    const index = 2 * s * t;
    if (index < TPB) sdata[index] += sdata[index + s]; // S STEP
    cuda.syncthreads();
  }
  if (t === 0) out[cuda.blockIdx.x] = sdata[0];
});
export const sequential = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const sdata = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  sdata[t] = x[cuda.grid(1)];
  cuda.syncthreads();
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) sdata[t] += sdata[t + s]; // Q STEP
    cuda.syncthreads();
  }
  if (t === 0) out[cuda.blockIdx.x] = sdata[0];
});
`;

describe("Harris's reduction steps (2 blocks of 256 threads = 8 warps each)", () => {
  const art = compileSource(REDUCTIONS);
  const x = Float32Array.from({ length: 512 }, (_, i) => i % 7);
  const run = (name: string) => {
    const out = new Float32Array(2);
    const l = profileOne(() => kernel(art, name).launch(2, 256)(x, out));
    assert.deepEqual([...out], [x.slice(0, 256).reduce((p, q) => p + q), x.slice(256).reduce((p, q) => p + q)]);
    return l;
  };

  it("interleaved addressing with %: divergent branches, no bank conflict", () => {
    const l = run("interleaved");
    // `t % (2s) === 0`, s = 1, 2, 4, 8, 16: every warp has lanes on both sides → 8 divergent per step;
    // s = 32: lane 0 of warps 0, 2, 4, 6 → 4; s = 64: warps 0, 4 → 2; s = 128: warp 0 → 1.
    // Per block 5·8 + 4 + 2 + 1 = 47 of 8 steps × 8 warps = 64; two blocks: 94 of 128.
    const step = lineAt(l, lineOf(REDUCTIONS, "I STEP"));
    assert.deepEqual([step.branches, step.divergentBranches], [128, 94]);
    // The loop test is block-uniform (it runs at block level around the barrier): 9 evaluations
    // (s = 1 … 256) per block, one branch per warp, none divergent: 2 × 9 × 8 = 144.
    const loop = lineAt(l, lineOf(REDUCTIONS, "I LOOP"));
    assert.deepEqual([loop.branches, loop.divergentBranches], [144, 0]);
    // `t === 0`: 8 warps per block, warp 0 divergent.
    const last = lineAt(l, lineOf(REDUCTIONS, "I LAST"));
    assert.deepEqual([last.branches, last.divergentBranches], [16, 2]);
    // The active lanes t = 2s·k read words t and t + s: distinct banks within a warp → no conflict.
    assert.equal(step.sharedLoadWavefronts, step.sharedLoadRequests);
    assert.equal(l.derived.sharedBankConflicts, 0);
    assert.match(step.advice.join(" "), /diverge/);
  });

  it("strided shared indexing: bank conflicts", () => {
    const l = run("strided");
    const step = lineAt(l, lineOf(REDUCTIONS, "S STEP"));
    // index = 2s·t for the threads with index < 256: 128, 64, 32, 16, 8, 4, 2, 1 of them for s = 1 … 128,
    // consecutive t from 0, so 4, 2, 1, 1, 1, 1, 1, 1 warps with active lanes: 12 requests per site.
    // Words 2s·t (and 2s·t + s) over L active lanes: for 2s ≤ 32, 32/2s banks with L·2s/32 words each;
    // for 2s ≥ 32, one bank with L words. Wavefronts per request: s=1: 2 (×4), s=2: 4 (×2), s=4: 8,
    // s=8 (16 lanes): 8, s=16 (8 lanes): 8, s=32: 4, s=64: 2, s=128: 1 → 8+8+8+8+8+4+2+1 = 47.
    // Two loads (sdata[index], sdata[index + s]) and one store per step; two blocks.
    assert.deepEqual([step.sharedLoadRequests, step.sharedLoadWavefronts], [2 * 2 * 12, 2 * 2 * 47]);
    assert.deepEqual([step.sharedStoreRequests, step.sharedStoreWavefronts], [2 * 12, 2 * 47]);
    // `index < 256` splits a warp from s = 8 on (16, 8, 4, 2, 1 lanes of warp 0): 5 per block.
    assert.deepEqual([step.branches, step.divergentBranches], [2 * 64, 2 * 5]);
    assert.match(step.advice.join(" "), /bank conflict/);
  });

  it("sequential addressing: no bank conflict, divergence only within the last warp", () => {
    const l = run("sequential");
    const step = lineAt(l, lineOf(REDUCTIONS, "Q STEP"));
    // t < s with s = 128, 64, 32: whole warps agree; s = 16, 8, 4, 2, 1: warp 0 splits → 5 per block.
    assert.deepEqual([step.branches, step.divergentBranches], [2 * 64, 2 * 5]);
    // Active warps per step: 4, 2, 1, 1, 1, 1, 1, 1 → 12 requests per site and block, 1 wavefront each.
    assert.deepEqual([step.sharedLoadRequests, step.sharedLoadWavefronts], [2 * 2 * 12, 2 * 2 * 12]);
    assert.equal(l.derived.sharedBankConflicts, 0);
    // Interleaved: 94 divergent of 128 at the step; sequential: 10.
  });
});

const STENCIL = `
import { cuda, f32, type Array2D } from "cudascript";
export const laplace = cuda.jit((u: Array2D<f32>, out: Array2D<f32>) => {
  const x = cuda.threadIdx.x + 1, y = cuda.threadIdx.y + 1;
  out[y][x] = u[y - 1][x] + u[y + 1][x] + u[y][x - 1] + u[y][x + 1] - 4 * u[y][x]; // STENCIL
});
export const shifted = cuda.jit((a: Array1D<f32>, out: Array1D<f32>, off: i32) => {
  const i = cuda.threadIdx.x;
  out[i] = a[i + off]; // SHIFT
});
`.replace("type Array2D", "type Array2D, type Array1D, i32");

describe("a 2-D stencil and misaligned offsets", () => {
  const art = compileSource(STENCIL);
  it("5-point stencil on 64-wide rows: the x ± 1 and interior accesses straddle a sector", () => {
    // Block (32, 4): 4 warps, warp w the row y = w + 1, lanes x = 1 … 32. Rows are 64 f32 = 256 bytes
    // (aligned). u[·][x] covers bytes 4 … 131 of its row: 5 sectors; u[y][x - 1] bytes 0 … 127: 4;
    // u[y][x + 1] bytes 8 … 135: 5. Loads per warp 5 + 5 + 4 + 5 + 5 = 24 (ideal 20): 4 warps → 96 (80).
    // The store out[y][x]: 5 per warp → 20 (ideal 16).
    // FLOPs per thread: 4 additions/subtractions and 1 multiplication → 5 × 128 threads = 640.
    const u = cuda.ndarray(Float32Array.from({ length: 64 * 6 }, (_, i) => (i * 37) % 11), [6, 64]);
    const out = cuda.ndarray(new Float32Array(64 * 6), [6, 64]);
    const l = profileOne(() => kernel(art, "laplace").launch([1, 1], [32, 4])(u, out));
    const t = l.totals;
    assert.deepEqual([t.globalLoadRequests, t.globalLoadSectors, t.idealGlobalLoadSectors], [20, 96, 80]);
    assert.deepEqual([t.globalStoreRequests, t.globalStoreSectors, t.idealGlobalStoreSectors], [4, 20, 16]);
    assert.equal(t.flopsSingle, 640);
    assert.equal(l.derived.arithmeticIntensity, 640 / ((96 + 20) * 32));
    const e = l.derived.estimate!;
    assert.equal(e.gpu, "a100");
    assert.equal(e.boundBy, "memory");
    assert.equal(e.lowerBoundSeconds, ((96 + 20) * 32) / 1555e9);
    const ux = u.data, ox = out.data;
    assert.equal(ox[1 * 64 + 1], Math.fround(Math.fround(Math.fround(Math.fround(ux[1]! + ux[2 * 64 + 1]!) + ux[64]!) + ux[66]!) - Math.fround(4 * ux[65]!)));
  });

  for (const [off, sectors] of [
    [0, 4],
    [1, 5],
    [7, 5],
    [8, 4],
  ] as const) {
    it(`a warp reading 32 f32 from offset ${off}: ${sectors} sectors`, () => {
      // Bytes 4·off … 4·off + 127 from an aligned base: 4 sectors when 4·off is a multiple of 32, else 5.
      const a = new Float32Array(64), out = new Float32Array(32);
      const l = profileOne(() => kernel(art, "shifted").launch(1, 32)(a, out, off));
      assert.deepEqual([l.totals.globalLoadRequests, l.totals.globalLoadSectors, l.totals.globalStoreSectors], [1, sectors, 4]);
      if (sectors === 5) assert.match(lineAt(l, lineOf(STENCIL, "SHIFT")).advice[0]!, /^5 sectors per request, ideal 4: .*not aligned/);
    });
  }

  it("a device-array view at a 4-byte offset is misaligned like the pointer it is", () => {
    const d = cuda.toDevice(new Float32Array(64));
    const out = new Float32Array(32);
    const l = profileOne(() => kernel(art, "shifted").launch(1, 32)(d.slice(1, 64), out, 0));
    assert.equal(l.totals.globalLoadSectors, 5);
  });
});

const MISC = `
import { cuda, f32, i32, u32, type Array1D } from "cudascript";
export const hist = cuda.jit((data: Array1D<i32>, bins: Array1D<u32>) => {
  const i = cuda.grid(1);
  cuda.atomic.add(bins, data[i], 1); // ATOMIC
});
export const pick = cuda.jit((a: Array1D<f32>, out: Array1D<f32>) => {
  const i = cuda.threadIdx.x;
  out[i] = i % 2 === 0 ? a[i] * 2 : a[i]; // SELECT
  if (i < 40 && a[i] > 0) out[i] = 1; // AND
});
`;

describe("atomics and other conditionals", () => {
  const art = compileSource(MISC);
  it("atomics: requests with contention (lanes per address)", () => {
    // 64 threads = 2 warps; warp 0 all into bin 3 (contention 32), warp 1 into 32 distinct bins 0..31
    // (contention 1): 2 requests, contention sum 33, max 32. Sectors: bin 3 → 1; bins 0..31 → 4.
    const data = Int32Array.from({ length: 64 }, (_, i) => (i < 32 ? 3 : i - 32));
    const bins = new Uint32Array(32);
    const l = profileOne(() => kernel(art, "hist").launch(1, 64)(data, bins));
    const t = l.totals;
    assert.deepEqual([t.globalAtomicRequests, t.globalAtomicSectors, t.atomicMaxContention, t.atomicContentionSum], [2, 5, 32, 33]);
    assert.equal(l.derived.atomicContention, 33 / 2);
    assert.equal(bins[3], 33);
    assert.match(lineAt(l, lineOf(MISC, "ATOMIC")).advice[0]!, /up to 32 lanes of a warp update the same address/);
  });

  it("`?:` and `&&` are branches; divergent when the active lanes disagree", () => {
    // 64 threads = 2 warps. `i % 2 === 0 ? …`: both warps divergent. `i < 40 && …`: warp 0 all true,
    // warp 1 lanes 32..39 true → divergent. The `if` of the && result: a[i] > 0 only where a[i] = 1
    // (i = 5): warp 0 divergent, warp 1 (8 of its lanes test a[i] > 0, all false) not.
    const a = Float32Array.from({ length: 64 }, (_, i) => (i === 5 ? 1 : -1));
    const l = profileOne(() => kernel(art, "pick").launch(1, 64)(a, new Float32Array(64)));
    const sel = lineAt(l, lineOf(MISC, "SELECT"));
    assert.deepEqual([sel.branches, sel.divergentBranches], [2, 2]);
    const and = lineAt(l, lineOf(MISC, "AND"));
    // Two conditionals on the line: the && (2 branches, 1 divergent) and the if (2, 1).
    assert.deepEqual([and.branches, and.divergentBranches], [4, 2]);
    assert.equal(l.derived.branchEfficiency, (6 - 4) / 6);
  });
});

const WIDTHS = `
import { cuda, f64, f16, type Array1D } from "cudascript";
export const wide = cuda.jit((x: Array1D<f64>, out: Array1D<f64>) => {
  const t = cuda.threadIdx.x;
  const a = cuda.shared.array(64, f64);
  const h = cuda.shared.array(64, f16);
  a[t] = x[t]; // F64 UNIT
  a[2 * t] = x[t]; // F64 STRIDE 2
  h[t] = 1; // F16
  cuda.syncthreads();
  const hv: f64 = h[t];
  out[t] = a[t] + hv;
});
`;

describe("shared accesses of 8 and 2 bytes", () => {
  it("f64 per half-warp, f16 by the word that holds the element", () => {
    // One warp. f64 a[t]: lanes 0–15 cover words 0–31 (2 each), one per bank → 1 wavefront per
    // half-warp, 2 per request. a[2t]: lanes 0–15 cover words 4t, 4t + 1 (t < 16): banks 4t mod 32
    // and 4t + 1 mod 32, lanes t and t + 8 on the same banks → 2 per half-warp, 4 per request.
    // f16 h[t]: lanes 2w and 2w + 1 share word w: 16 words in 16 banks → 1 wavefront.
    const art = compileSource(WIDTHS);
    const l = profileOne(() => kernel(art, "wide").launch(1, 32)(new Float64Array(32), new Float64Array(32)));
    assert.deepEqual([lineAt(l, lineOf(WIDTHS, "F64 UNIT")).sharedStoreRequests, lineAt(l, lineOf(WIDTHS, "F64 UNIT")).sharedStoreWavefronts], [1, 2]);
    assert.equal(lineAt(l, lineOf(WIDTHS, "F64 STRIDE 2")).sharedStoreWavefronts, 4);
    assert.equal(lineAt(l, lineOf(WIDTHS, "F16")).sharedStoreWavefronts, 1);
    // Global f64 loads of 32 lanes: 256 bytes = 8 sectors, the ideal for 8-byte elements.
    assert.deepEqual([l.totals.globalLoadSectors, l.derived.idealLoadSectorsPerRequest], [16, 8]);
  });
});

const MASKED = `
import { cuda, f32, type Array1D } from "cudascript";
export const early = cuda.jit((x: Array1D<f32>, out: Array1D<f32>) => {
  const tile = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  if (t >= 40) return; // RETURN
  tile[t] = x[t]; // FILL
  cuda.syncthreads();
  if (t < 20) out[t] = tile[t + 20]; // HALF
});
`;

describe("threads that returned before a barrier", () => {
  it("take no part in later requests and branches", () => {
    // Block of 64 = 2 warps. `t >= 40`: warp 0 all false, warp 1 split (32–39 stay) → 2 branches, 1
    // divergent. tile[t] = x[t] by threads 0–39: 2 requests; x[t] 4 sectors (warp 0) + 1 (lanes 32–39,
    // bytes 128–159) = 5, ideal 4 + ceil(8·4/32) = 5. `t < 20` by the 40 remaining threads only: warp 0
    // split, warp 1 (lanes 32–39) all false → 2 branches, 1 divergent. out[t] by lanes 0–19: bytes 0–79,
    // 3 sectors, ideal 3; tile[t + 20]: words 20–39, 20 banks → 1 wavefront.
    const art = compileSource(MASKED);
    const x = Float32Array.from({ length: 64 }, (_, i) => i);
    const out = new Float32Array(64);
    const l = profileOne(() => kernel(art, "early").launch(1, 64)(x, out));
    assert.deepEqual([...out.slice(0, 20)], [...x.slice(20, 40)]);
    const ret = lineAt(l, lineOf(MASKED, "RETURN"));
    assert.deepEqual([ret.branches, ret.divergentBranches], [2, 1]);
    const fill = lineAt(l, lineOf(MASKED, "FILL"));
    assert.deepEqual([fill.globalLoadRequests, fill.globalLoadSectors, fill.idealGlobalLoadSectors, fill.sharedStoreRequests, fill.sharedStoreWavefronts], [2, 5, 5, 2, 2]);
    assert.deepEqual([fill.globalLoadLanes, fill.sharedStoreLanes], [40, 40]);
    const half = lineAt(l, lineOf(MASKED, "HALF"));
    assert.deepEqual([half.branches, half.divergentBranches, half.branchLanes], [2, 1, 40]);
    assert.deepEqual([half.globalStoreRequests, half.globalStoreSectors, half.idealGlobalStoreSectors, half.sharedLoadRequests, half.sharedLoadWavefronts], [1, 3, 3, 1, 1]);
  });
});

describe("FLOPs", () => {
  it("count + - * / of floats, an fma as two; not % , comparisons, conversions or Math functions", () => {
    // Per thread: fma (2) + one f32 addition (1) + one f64 multiplication (1, double) + Math.sqrt (0),
    // 64 threads → 192 single, 64 double.
    const art = compileSource(`
import { cuda, f32, f64, type Array1D } from "cudascript";
export const mix = cuda.jit((a: Array1D<f32>, d: Array1D<f64>) => {
  const t = cuda.threadIdx.x;
  const x: f32 = cuda.fma(a[t], a[t], 1) + Math.sqrt(a[t]);
  a[t] = x;
  d[t] = d[t] * 2;
});
`);
    const l = profileOne(() => kernel(art, "mix").launch(1, 64)(new Float32Array(64).fill(4), new Float64Array(64)));
    assert.deepEqual([l.totals.flopsSingle, l.totals.flopsDouble], [192, 64]);
  });
});

const LOOPS = `
import { cuda, f32, type Array1D } from "cudascript";
export const counted = cuda.jit((a: Array1D<f32>, out: Array1D<f32>) => {
  const t = cuda.threadIdx.x;
  let acc: f32 = 0;
  if (t < 40) {
    for (let k = 0; k < 16; k++) acc += a[k]; // COUNTED
  }
  out[t] = acc;
});
export const broken = cuda.jit((out: Array1D<f32>) => {
  const t = cuda.threadIdx.x;
  let n: f32 = 0;
  for (let k = 0; k < 16; k++) { // BROKEN
    if (k === t) break; // EXIT
    n += 1;
  }
  out[t] = n;
});
`;

describe("loop tests", () => {
  const art = compileSource(LOOPS);
  it("a counted loop without early exits: counted once per entry, exactly as at every test", () => {
    // 64 threads = 2 warps; threads 0–39 enter: 17 tests each (k = 0 … 16). Warp 0: 17 branches, warp 1
    // (lanes 32–39): 17; none divergent; lanes 40 × 17 = 680.
    const l = profileOne(() => kernel(art, "counted").launch(1, 64)(new Float32Array(16).fill(1), new Float32Array(64)));
    const loop = lineAt(l, lineOf(LOOPS, "COUNTED"));
    assert.deepEqual([loop.branches, loop.divergentBranches, loop.branchLanes], [34, 0, 680]);
    // a[k]: one request per warp and k, all lanes on one element (1 sector): 2 × 16.
    assert.deepEqual([loop.globalLoadRequests, loop.globalLoadSectors], [32, 32]);
  });

  it("a loop that can break is counted at every test", () => {
    // One warp. Lane t < 16 tests k = 0 … t (t + 1 tests, all true) and breaks at k = t; lanes 16–31
    // test 17 times. The k-th test: lanes with more than k tests, all true for k < 16, lanes 16–31
    // false at k = 16: 17 branches, none divergent, lanes 136 + 16 × 17 = 408. `k === t`: the k-th
    // evaluation (k = 0 … 15) has lane k true and lanes 16–31 false: 16 branches, all divergent.
    const out = new Float32Array(32);
    const l = profileOne(() => kernel(art, "broken").launch(1, 32)(out));
    assert.equal(out[5], 5);
    const loop = lineAt(l, lineOf(LOOPS, "BROKEN"));
    assert.deepEqual([loop.branches, loop.divergentBranches, loop.branchLanes], [17, 0, 408]);
    const exit = lineAt(l, lineOf(LOOPS, "EXIT"));
    assert.deepEqual([exit.branches, exit.divergentBranches], [16, 16]);
  });
});

describe("long loops", () => {
  it("a kernel without barriers keeps exact counts when its warps are added up as they end", () => {
    // 2 warps × 40,000 iterations: 80,000 requests in one block, past the pool's limit (65,536), so
    // warp 0's are added up when warp 1 starts. Each request: 32 consecutive f32 at an aligned offset
    // (i·64 + t) → 4 sectors. The loop test: 40,001 evaluations per lane, none divergent.
    const art = compileSource(`
import { cuda, f32, i32, type Array1D } from "cudascript";
export const sweep = cuda.jit((a: Array1D<f32>, out: Array1D<f32>, n: i32) => {
  const t = cuda.threadIdx.x;
  let acc: f32 = 0;
  for (let i = 0; i < n; i++) acc += a[(i % 16) * 64 + t];
  out[t] = acc;
});
`);
    const l = profileOne(() => kernel(art, "sweep").launch(1, 64)(new Float32Array(1024).fill(1), new Float32Array(64), 40000));
    assert.deepEqual([l.totals.globalLoadRequests, l.totals.globalLoadSectors], [80000, 320000]);
    assert.deepEqual([l.totals.branches, l.totals.divergentBranches], [80002, 0]);
  });
});

describe("the profiling variant", () => {
  it("is emitted from the artifact's IR: relinked, the plain variant is byte-identical to the embedded one", () => {
    for (const src of [TRANSPOSE, REDUCTIONS, STENCIL, MISC]) {
      const art = compileSource(src);
      assert.equal(emitSimulatorModule(relinkIr(art.ir!)).source, art.simulator.js);
      assert.equal(emitSimulatorModule(relinkIr(art.ir!), { sanitize: true }).source, art.simulator.jsSanitize);
      assert.doesNotMatch(art.simulator.js, /\$P\b/, "the plain variant has no counting hooks");
    }
  });

  it("leaves results and plain runs unchanged, and reports source text from a real file", () => {
    const art = compileFile(path.join(REPO, "examples", "transpose.ts"));
    const n = 64;
    const a = cuda.ndarray(Float32Array.from({ length: n * n }, (_, i) => i), [n, n]);
    const out = cuda.ndarray(new Float32Array(n * n), [n, n]);
    const r = cuda.profile(() => kernel(art, "transposeNaive").launch([2, 2], [32, 32])(a, out), { gpu: "h100" });
    assert.equal(r.gpu, "h100");
    const l = r.launches[0]!;
    assert.equal(l.lines[0]!.text, "out[x][y]");
    assert.match(l.lines[0]!.advice[0]!, /the store `out\[x\]\[y\]`/);
    assert.equal(l.derived.estimate!.gpuName, "H100 SXM5");
    const plain = cuda.ndarray(new Float32Array(n * n), [n, n]);
    kernel(art, "transposeNaive").launch([2, 2], [32, 32])(a, plain);
    assert.deepEqual([...plain.data], [...out.data]);
  });

  it("names GPUs by the occupancy calculator's architectures, with their rates", () => {
    for (const g of GPUS) {
      assert.equal(parseArch(g.arch).name, g.arch, g.id);
      assert.ok(g.bandwidth > 1e11 && g.peakSingle > 1e12 && g.peakDouble > 1e11, g.id);
    }
    assert.equal(gpuSpec("A100").id, "a100");
    assert.equal(gpuSpec("a100_80gb").id, "a100-80gb");
  });

  it("refuses an artifact built without its IR with CSR092", () => {
    const art = compileSource(TRANSPOSE);
    const bare = { ...art, hash: `${art.hash}-noir`, ir: undefined };
    const a = cuda.ndarray(new Float32Array(1024), [32, 32]);
    assert.throws(
      () => cuda.profile(() => kernel(bare, "naive").launch([1, 1], [32, 32])(a, a)),
      (e: Error & { code?: string }) => e.code === "CSR092" && /includeIr: false/.test(e.message),
    );
  });

  it("refuses an unknown GPU with CSR090", () => {
    assert.throws(
      () => cuda.profile(() => {}, { gpu: "b9000" }),
      (e: Error & { code?: string }) => e.code === "CSR090" && /a100/.test(e.message),
    );
  });

  it("profiles async work and nests", async () => {
    const art = compileSource(TRANSPOSE);
    const a = cuda.ndarray(new Float32Array(1024), [32, 32]);
    const r = await cuda.profile(async () => {
      await Promise.resolve();
      const inner = cuda.profile(() => kernel(art, "naive").launch([1, 1], [32, 32])(a, a));
      assert.equal(inner.launches.length, 1);
      kernel(art, "padded").launch([1, 1], [32, 32])(a, a);
    });
    assert.deepEqual(
      r.launches.map((x) => x.kernel),
      ["naive", "padded"],
    );
  });
});

const ONCE_PER_BLOCK = `
import { cuda, f32, i32, type Array1D } from "cudascript";
export const uniformSelect = cuda.jit((x: Array1D<f32>, out: Array1D<f32>, k: i32) => {
  const sh = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  const half = t < 32 ? 1 : 2; // REMAT
  sh[t] = x[t] * half;
  cuda.syncthreads();
  const m = k > 3 ? k : 3; // UNIFORM
  if (t === 0) out[0] = sh[m] * half; // FIRST
});
`;

describe("conditions a kernel with barriers computes once per block", () => {
  const art = compileSource(ONCE_PER_BLOCK);
  it("a block-uniform `?:` is one branch per warp; a recomputed local's `?:` is counted where the source has it", () => {
    // One block of 64 threads = 2 warps. `k > 3 ? k : 3` is computed once for the block (uniform), yet
    // every warp evaluates it: 2 branches, none divergent, 64 lanes. `t < 32 ? 1 : 2` is evaluated once
    // per thread where it is declared (2 branches, none divergent: warp 0 all true, warp 1 all false),
    // although the simulator recomputes `half` in the later piece. `t === 0`: 2 branches, warp 0 divergent.
    const l = profileOne(() => kernel(art, "uniformSelect").launch(1, 64)(new Float32Array(64), new Float32Array(1), 5));
    const uni = lineAt(l, lineOf(ONCE_PER_BLOCK, "UNIFORM"));
    assert.deepEqual([uni.branches, uni.divergentBranches, uni.branchLanes], [2, 0, 64]);
    const remat = lineAt(l, lineOf(ONCE_PER_BLOCK, "REMAT"));
    assert.deepEqual([remat.branches, remat.divergentBranches, remat.branchLanes], [2, 0, 64]);
    const first = lineAt(l, lineOf(ONCE_PER_BLOCK, "FIRST"));
    assert.deepEqual([first.branches, first.divergentBranches, first.branchLanes], [2, 1, 64]);
    assert.equal(l.totals.branches, 6);
  });
});
