/**
 * The sanitizer's inline fast paths (emitted into the kernel's loops) against its own methods (the
 * complete checks, used as the oracle): random sequences of shared-memory reads, writes, atomics,
 * barriers and warp synchronisations over two blocks must give the same finding — or none — with the
 * same kind, thread, block, element and line (including `s[i] += v`, whose read the kernel does not
 * record: the write that follows replaces the record) — in both uninitializedShared modes (a read of an
 * unwritten element is no finding by itself: its value is tracked to where it matters, which `ops`
 * never lets it reach — test/simulator/uninitialized.test.ts covers that; an atomic update of one is
 * CSR023). Plus cases the fast paths must not get wrong.
 */
import * as assert from "node:assert/strict";
import { describe, it, after } from "node:test";
import { configureSimulator, cuda, CudaScriptError, i32 } from "cudascript";
import { KernelFault, Sanitizer } from "cudascript/dist/simulator/rt";
import { lastLaunchWarnings } from "cudascript/dist/simulator/executor";
import { SIMULATOR_ABI } from "cudascript/dist/simulator/backend";
import { SIM_ABI } from "@cudascript/compiler";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true, uninitializedShared: "warn", warn: (t: string) => void process.stderr.write(t) }));

const SLOTS = 8;
const SOURCE = `
import { cuda, i32 } from "cudascript";
export const ops = cuda.jit((op: Int32Array, idx: Int32Array, val: Int32Array, sync: Int32Array, out: Int32Array) => {
  const s = cuda.shared.array(${SLOTS}, i32);
  const t = cuda.threadIdx.x;
  const nT = cuda.blockDim.x;
  let acc = 0;
  for (let step = 0; step < sync.length; step++) {
    const k = (cuda.blockIdx.x * sync.length + step) * nT + t;
    const o = op[k];
    if (o === 1) {
      acc += s[idx[k]]; // READ
    } else if (o === 2) {
      s[idx[k]] = val[k]; // WRITE
    } else if (o === 3) {
      cuda.atomic.add(s, idx[k], 1); // ATOMIC
    } else if (o === 4) {
      s[idx[k]] += val[k]; // UPDATE
    }
    if (sync[step] === 1) {
      cuda.syncthreads();
    } else if (sync[step] === 2) {
      cuda.syncwarp(0xffffffff);
    }
  }
  // acc is computed but never stored: the reads' values never matter (no CSR068), only their records do.
  out[cuda.grid(1)] = 1;
});

/** Two threads read tile[0], a barrier, then thread 0 reads and rewrites it: no race. */
export const readersThenBarrier = cuda.jit((out: Int32Array) => {
  const tile = cuda.shared.array(4, i32);
  const t = cuda.threadIdx.x;
  if (t === 0) tile[0] = 5;
  cuda.syncthreads();
  let v = 0;
  if (t < 2) v = tile[0];
  cuda.syncthreads();
  if (t === 0) tile[0] = tile[0] + v;
  cuda.syncthreads();
  out[t] = tile[0];
});

/** Reads of a neighbour's element after a warp synchronisation (same warp): ordered; across warps: a race. */
export const warpOrdered = cuda.jit((out: Int32Array, cross: i32) => {
  const tile = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  tile[t] = t;
  cuda.syncwarp(0xffffffff);
  const j = cross === 1 ? (t + 32) % 64 : t ^ 1;
  out[t] = tile[j]; // CROSS
});
`;
const art = compileSource(SOURCE);
const lineOf = (marker: string) => SOURCE.split("\n").findIndex((l) => l.includes(marker)) + 1;
const LINES = { read: lineOf("// READ"), write: lineOf("// WRITE"), atomic: lineOf("// ATOMIC"), update: lineOf("// UPDATE"), cross: lineOf("// CROSS") };

let seed = 2024;
const rnd = (n: number) => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};

interface Finding {
  code: string;
  block: number;
  thread: number;
  index: number;
  line: number;
}

type Mode = "warn" | "error";
interface Outcome {
  fault?: Finding;
  /** Warnings (mode "warn"): the first per source line. */
  warnings: Finding[];
}

function firstPerLine(list: Finding[]): Finding[] {
  return list.filter((w, k) => list.findIndex((x) => x.line === w.line) === k);
}

/** Replays the op tables through the Sanitizer's methods (the oracle), in the simulator's order. */
function oracle(nT: number, blocks: number, steps: number, op: Int32Array, idx: Int32Array, val: Int32Array, sync: Int32Array, mode: Mode): Outcome {
  const S = new Sanitizer({ name: "ops", file: "f.ts", line: 1 }, nT, 1, 1);
  const warnings: Finding[] = [];
  const finding = (f: KernelFault): Finding => ({ code: f.code, block: f.block![0], thread: f.thread![0], index: f.details().index!, line: f.details().line! });
  S.reuse({ mode, warn: (f) => warnings.push(finding(f)) });
  const sites = [{ kind: "read", fn: "ops", file: "f.ts", line: LINES.read, col: 1 }, { kind: "write", fn: "ops", file: "f.ts", line: LINES.write, col: 1 }, { kind: "atomic", fn: "ops", file: "f.ts", line: LINES.atomic, col: 1 }, { kind: "write", fn: "ops", file: "f.ts", line: LINES.update, col: 1 }];
  S.setSites(sites);
  const shared = new Int32Array(SLOTS);
  S.register(0, shared, "s");
  for (let b = 0; b < blocks; b++) {
    S.beginBlock(b, 0, 0);
    shared.fill(0);
    for (let step = 0; step < steps; step++) {
      for (let t = 0; t < nT; t++) {
        const k = (b * steps + step) * nT + t;
        const o = op[k]!, i = idx[k]!;
        try {
          if (o === 1) S.r(0, i, t, 0);
          else if (o === 2) {
            S.w(0, i, t, 1, shared[i] !== val[k]);
            shared[i] = val[k]!;
          } else if (o === 3) {
            S.a(0, i, t, 2);
            shared[i]!++;
          } else if (o === 4) {
            // the complete checks: record the read, then check the write (the kernel skips the record)
            S.r(0, i, t, 3);
            S.w(0, i, t, 3, val[k] !== 0);
            shared[i]! += val[k]!;
          }
        } catch (e) {
          const f = e as { code: string; details(): { line?: number } };
          return { fault: { code: f.code, block: b, thread: t, index: i, line: f.details().line! }, warnings: firstPerLine(warnings) };
        }
      }
      if (sync[step] === 1) S.sync();
      else if (sync[step] === 2) for (let w = 0; w < nT; w += 32) S.warpSync(w);
    }
  }
  return { warnings: firstPerLine(warnings) };
}

function simulate(nT: number, blocks: number, op: Int32Array, idx: Int32Array, val: Int32Array, sync: Int32Array): Outcome {
  let fault: Finding | undefined;
  try {
    kernel(art, "ops").launch(blocks, nT)(cuda.toDevice(op), cuda.toDevice(idx), cuda.toDevice(val), cuda.toDevice(sync), cuda.deviceArray(blocks * nT, i32));
  } catch (e) {
    assert.ok(e instanceof CudaScriptError, String(e));
    const d = e.details!;
    fault = { code: e.code, block: d.block![0], thread: d.thread![0], index: d.index!, line: d.line! };
  }
  const warnings = lastLaunchWarnings().map((w) => ({ code: w.code, block: w.details!.block![0], thread: w.details!.thread![0], index: w.details!.index!, line: w.details!.line! }));
  return fault ? { fault, warnings } : { warnings };
}

describe("sanitizer fast paths against the complete checks", () => {
  for (const mode of ["error", "warn"] as const)
  it(`random shared-memory access sequences: the same finding (or none) either way (uninitialised reads: ${mode})`, () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30, uninitializedShared: mode, warn: () => {} });
    const outcomes: Record<string, number> = {};
    for (let trial = 0; trial < 300; trial++) {
      const nT = [32, 48, 64][rnd(3)]!, blocks = 2, steps = 4 + rnd(10);
      const n = blocks * steps * nT;
      const op = new Int32Array(n), idx = new Int32Array(n), val = new Int32Array(n), sync = new Int32Array(steps);
      const owners = Array.from({ length: SLOTS }, () => rnd(nT));
      const active = 1 + rnd(4); // threads doing something per step: more → more races
      for (let b = 0; b < blocks; b++)
        for (let step = 0; step < steps; step++) {
          const base = (b * steps + step) * nT;
          if (step === 0 && rnd(4) !== 0) {
            for (let i = 0; i < SLOTS; i++) {
              op[base + owners[i]!] = 2; // initialise (mostly)
              idx[base + owners[i]!] = i;
            }
            continue;
          }
          for (let a = 0; a < active; a++) {
            const t = rnd(3) === 0 ? rnd(nT) : owners[rnd(SLOTS)]!;
            op[base + t] = [1, 1, 1, 1, 2, 2, 2, 3, 4, 4][rnd(10)]!;
            idx[base + t] = rnd(SLOTS);
            val[base + t] = rnd(3);
          }
        }
      for (let step = 0; step < steps; step++) sync[step] = step === 0 ? 1 : [0, 1, 1, 2][rnd(4)]!;
      const want = oracle(nT, blocks, steps, op, idx, val, sync, mode);
      const got = simulate(nT, blocks, op, idx, val, sync);
      assert.deepEqual(got, want, `trial ${trial} (nT ${nT}, steps ${steps})`);
      // Only an atomic update of an unwritten element (a stored result) stops the run with CSR023.
      if (want.fault?.code === "CSR023") assert.equal(want.fault.line, LINES.atomic, `trial ${trial}: no uninitialised read stops the run`);
      const key = want.fault ? `${want.fault.code} block ${want.fault.block}` : "clean";
      outcomes[key] = (outcomes[key] ?? 0) + 1;
      for (const w of want.warnings) outcomes[`${w.code} warning block ${w.block}`] = (outcomes[`${w.code} warning block ${w.block}`] ?? 0) + 1;
    }
    // The sequences must exercise every outcome, not only the first few accesses.
    const expected = ["clean", "CSR021 block 0", "CSR023 block 0", "CSR021 block 1", "CSR023 block 1"];
    for (const k of expected) assert.ok((outcomes[k] ?? 0) > 0, `${k}: ${JSON.stringify(outcomes)}`);

  });

  it("several readers before a barrier do not make a later write after it a race", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30, uninitializedShared: "error" });
    const out = cuda.deviceArray(64, i32);
    kernel(art, "readersThenBarrier").launch(1, 64)(out);
    assert.equal((out.copyToHost() as Int32Array)[0], 10);
  });

  it("a warp synchronisation orders accesses within the warp, not across warps", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30, uninitializedShared: "error" });
    const out = cuda.deviceArray(64, i32);
    kernel(art, "warpOrdered").launch(1, 64)(out, 0);
    assert.deepEqual(Array.from(out.copyToHost() as Int32Array).slice(0, 4), [1, 0, 3, 2]);
    assert.throws(
      () => kernel(art, "warpOrdered").launch(1, 64)(out, 1),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR021" && e.details?.line === LINES.cross && /reads it after thread \(32, 0, 0\) wrote it/.test(e.message),
    );
  });
  it("the runtime implements the compiler's module ABI, and refuses artifacts built for another one", () => {
    assert.equal(SIMULATOR_ABI, SIM_ABI);
    const stale = { ...art, hash: `${art.hash}-stale`, simulator: { ...art.simulator, abi: SIM_ABI - 1 } };
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    assert.throws(
      () => kernel(stale, "readersThenBarrier").launch(1, 64)(cuda.deviceArray(64, i32)),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR002" && /rebuild the program/.test(e.message),
    );
  });
});
