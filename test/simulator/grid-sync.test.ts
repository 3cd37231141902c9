/**
 * Grid synchronisation on the simulator (runtime/src/simulator/grid-sync.ts, compiler/src/js/cooperative.ts):
 * every block reaches g.sync() before any passes it, each block keeps its own shared memory and state
 * across it, a grid larger than the modelled device holds at once is CSR034, and a block or thread that
 * misses a g.sync() the others reach is CSR035.
 */
import * as assert from "node:assert/strict";
import { describe, it, after } from "node:test";
import { configureSimulator, CudaScriptError } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false, workers: 2, inProcessThreshold: 32768, mainThreadExecutes: true }));

const art = compileSource(`
import { cuda, f32, i32 } from "cudascript";

/** Block b publishes a value, then reads what block b-1 published: only right if every block wrote first. */
export const ring = cuda.jit((published: Int32Array, seen: Int32Array, rounds: i32) => {
  const g = cuda.cg.thisGrid();
  const b = cuda.blockIdx.x;
  const nb = cuda.gridDim.x;
  for (let r = 0; r < rounds; r++) {
    if (cuda.threadIdx.x === 0) published[b] = (b + 1) * 100 + r;
    g.sync();
    if (cuda.threadIdx.x === 0) seen[r * nb + b] = published[(b + nb - 1) % nb];
    g.sync();
  }
});

/** Each block's shared memory and per-thread values survive the grid barrier. */
export const keepsShared = cuda.jit((out: Int32Array) => {
  const s = cuda.shared.array(64, i32);
  const t = cuda.threadIdx.x;
  const mine = cuda.blockIdx.x * 1000 + t;
  s[t] = mine;
  cuda.syncthreads();
  cuda.cg.thisGrid().sync();
  out[cuda.grid(1)] = s[63 - t] + (mine - cuda.blockIdx.x * 1000) * 0;
});

export const blockSkips = cuda.jit((a: Int32Array) => {
  const g = cuda.cg.thisGrid();
  if (cuda.blockIdx.x === 3) return;
  a[cuda.grid(1)] = 1;
  g.sync();
});

export const threadSkips = cuda.jit((a: Int32Array) => {
  const g = cuda.cg.thisGrid();
  if (cuda.threadIdx.x < 16) {
    a[cuda.grid(1)] = 1;
    g.sync();
  }
});

export const big = cuda.jit((a: Float32Array) => {
  const g = cuda.cg.thisGrid();
  g.sync();
});
`);

function expectedRing(nb: number, rounds: number): Int32Array {
  const out = new Int32Array(rounds * nb);
  for (let r = 0; r < rounds; r++) for (let b = 0; b < nb; b++) out[r * nb + b] = (((b + nb - 1) % nb) + 1) * 100 + r;
  return out;
}

for (const [label, settings] of [
  ["in the calling thread", { workers: 1, inProcessThreshold: 1 << 30 }],
  ["on a worker pool", { workers: 2, inProcessThreshold: 1, mainThreadExecutes: true }],
] as const) {
  describe(`g.sync() on the simulator, ${label}`, () => {
    it("every block reaches g.sync() before any passes it: block b reads what block b-1 wrote before the barrier, round after round", () => {
      configureSimulator({ sanitize: false, ...settings });
      const nb = 12, rounds = 3;
      const published = new Int32Array(nb), seen = new Int32Array(rounds * nb);
      kernel(art, "ring").launch(nb, 64)(published, seen, rounds);
      assert.deepEqual(seen, expectedRing(nb, rounds));
    });

    it("each block keeps its own shared array and per-thread values across g.sync()", () => {
      configureSimulator({ sanitize: false, ...settings });
      const nb = 5;
      const out = new Int32Array(nb * 64);
      kernel(art, "keepsShared").launch(nb, 64)(out);
      const want = new Int32Array(nb * 64).map((_, i) => Math.floor(i / 64) * 1000 + (63 - (i % 64)));
      assert.deepEqual(out, want);
    });
  });
}

describe("grid synchronisation errors on the simulator", () => {
  it("a grid larger than the modelled A100 holds at once is CSR034, naming the limit and the grid-stride fix", () => {
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    // sm_80: 2048 threads per SM → 8 blocks of 256 per SM, × 108 SMs = 864.
    const a = new Float32Array(1);
    kernel(art, "big").launch(864, 256)(a);
    assert.throws(
      () => kernel(art, "big").launch(865, 256)(a),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR034" && /865 blocks/.test(e.message) && /at most 864 blocks of 256 threads/.test(e.message) && /grid-stride loop/.test(e.message),
    );
  });

  it("a block that returns before a g.sync() the other blocks wait at is CSR035 (without the sanitizer: it would hang a GPU)", () => {
    configureSimulator({ sanitize: false, workers: 1, inProcessThreshold: 1 << 30 });
    assert.throws(
      () => kernel(art, "blockSkips").launch(6, 32)(new Int32Array(6 * 32)),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR035" && /block \(3, 0, 0\) ended without reaching it/.test(e.message),
    );
  });

  it("the sanitizer finds a g.sync() that only some threads of a block reach (CSR035)", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30 });
    assert.throws(
      () => kernel(art, "threadSkips").launch(2, 32)(new Int32Array(64)),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR035" && /thread \(0, 0, 0\) reached g\.sync\(\) but thread \(16, 0, 0\)/.test(e.message),
    );
    configureSimulator({ sanitize: false });
  });

  it("under the sanitizer a correct cooperative kernel runs clean", () => {
    configureSimulator({ sanitize: true, workers: 1, inProcessThreshold: 1 << 30 });
    const nb = 4, rounds = 2;
    const seen = new Int32Array(rounds * nb);
    kernel(art, "ring").launch(nb, 32)(new Int32Array(nb), seen, rounds);
    assert.deepEqual(seen, expectedRing(nb, rounds));
    const out = new Int32Array(3 * 64);
    kernel(art, "keepsShared").launch(3, 64)(out);
    assert.equal(out[64], 1063);
    configureSimulator({ sanitize: false });
  });
});
