/**
 * The simulator's warp match and uniform-vote intrinsics (cuda.matchAnySync, matchAllSync, eqSync) and
 * cuda.lanemaskLt against their CUDA definitions written out in plain JavaScript: partial masks,
 * lanes that a divergent branch leaves inactive, float values compared by their bits, 2-D blocks, and
 * the sanitizer's divergent-warp finding (CSR025) when a mask names a lane that did not arrive.
 */
import * as assert from "node:assert/strict";
import { describe, it, after } from "node:test";
import { configureSimulator, CudaScriptError } from "cudascript";
import { compileSource, kernel } from "./helpers";

after(() => configureSimulator({ sanitize: false }));

const art = compileSource(`
import { cuda, f32, u32 } from "cudascript";

export const maskedMatch = cuda.jit((keys: Int32Array, mask: u32, out: Uint32Array) => {
  const t = cuda.threadIdx.x;
  const k = keys[t];
  if (((mask >>> cuda.laneid) & 1) !== 0) {
    out[t * 4 + 0] = cuda.matchAnySync(mask, k);
    out[t * 4 + 1] = cuda.matchAllSync(mask, k);
    out[t * 4 + 2] = cuda.eqSync(mask, k > 0) ? 1 : 0;
  }
  out[t * 4 + 3] = cuda.lanemaskLt();
});

export const evenLanes = cuda.jit((keys: Float32Array, out: Uint32Array) => {
  const t = cuda.threadIdx.x;
  const v: f32 = keys[t];
  if (t % 2 === 0) {
    out[t * 3 + 0] = cuda.matchAnySync(0x55555555, v);
    out[t * 3 + 1] = cuda.matchAllSync(0x55555555, v);
    out[t * 3 + 2] = cuda.eqSync(0x55555555, v > 0) ? 1 : 0;
  }
});

export const lanemask2d = cuda.jit((out: Uint32Array) => {
  const t = cuda.threadIdx.y * cuda.blockDim.x + cuda.threadIdx.x;
  out[t] = cuda.lanemaskLt();
});

export const fullMaskInBranch = cuda.jit((which: u32, out: Uint32Array) => {
  const t = cuda.threadIdx.x;
  if (t % 2 === 0) {
    if (which === 0) out[t] = cuda.matchAnySync(0xffffffff, t >> 2);
    else if (which === 1) out[t] = cuda.matchAllSync(0xffffffff, 1);
    else out[t] = cuda.eqSync(0xffffffff, true) ? 1 : 0;
  }
});
`);

/** The lanes of `lanes` in the warp starting at `w` whose value is `same` as lane `self`'s. */
function lanesLike(value: (i: number) => number, w: number, self: number, lanes: number, same: (a: number, b: number) => boolean = (a, b) => a === b): number {
  let m = 0;
  for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1 && same(value(w + l), value(w + self))) m |= 1 << l;
  return m >>> 0;
}

/** Whether `p` is the same (all true or all false) over the lanes of `lanes`. */
function uniform(p: (i: number) => boolean, w: number, lanes: number): number {
  let yes = 0, no = 0;
  for (let l = 0; l < 32; l++) if ((lanes >>> l) & 1) (p(w + l) ? yes++ : no++);
  return yes === 0 || no === 0 ? 1 : 0;
}

describe("simulator: warp match intrinsics", () => {
  for (const [mask, label] of [
    [0xffffffff, "the full warp"],
    [0x0f0f00ff, "a partial mask (the other lanes skip the call)"],
  ] as const) {
    it(`matchAnySync / matchAllSync / eqSync compare the lanes of ${label}; lanemaskLt is the lanes below`, () => {
      const T = 96;
      // Warp 0: keys -1..1 by lane (mixed signs); warps 1 and 2: one key, positive then negative.
      const keys = Int32Array.from({ length: T }, (_, t) => (t < 32 ? (t % 3) - 1 : t < 64 ? 5 : -5));
      const out = new Uint32Array(T * 4);
      kernel(art, "maskedMatch").launch(1, T)(keys, mask, out);
      for (let t = 0; t < T; t++) {
        const w = t & ~31, lane = t & 31;
        const got = [...out.subarray(t * 4, t * 4 + 4)];
        const lanemask = ((1 << lane) - 1) >>> 0;
        if (!((mask >>> lane) & 1)) {
          assert.deepEqual(got, [0, 0, 0, lanemask], `thread ${t} (not in the mask)`);
          continue;
        }
        const peers = lanesLike((i) => keys[i]!, w, lane, mask);
        const all = peers === mask ? mask : 0;
        assert.deepEqual(got, [peers, all, uniform((i) => keys[i]! > 0, w, mask), lanemask], `thread ${t}`);
      }
      // Not vacuous: warp 1 holds one key (matchAllSync gives the mask), warp 0 does not.
      assert.equal(out[32 * 4 + 1], mask);
      assert.equal(out[0 * 4 + 1], 0);
      // eqSync: uniform when all true (warp 1) and when all false (warp 2), not over mixed signs (warp 0).
      assert.deepEqual([out[0 * 4 + 2], out[32 * 4 + 2], out[64 * 4 + 2]], [0, 1, 1]);
    });
  }

  it("inside a divergent branch only the active lanes of the mask count; floats compare by bits (0 ≠ -0, NaN = NaN)", () => {
    const pool = [0, -0, NaN, 2.5, -1];
    const keys = Float32Array.from({ length: 32 }, (_, t) => pool[(t >> 1) % pool.length]!);
    for (let t = 20; t < 32; t++) keys[t] = t % 2 ? -7 : 3; // odd lanes (inactive) differ; even lanes agree
    const out = new Uint32Array(32 * 3);
    kernel(art, "evenLanes").launch(1, 32)(keys, out);
    const even = 0x55555555;
    for (let t = 0; t < 32; t += 2) {
      const peers = lanesLike((i) => keys[i]!, 0, t, even, Object.is);
      assert.deepEqual([...out.subarray(t * 3, t * 3 + 3)], [peers, peers === even ? even : 0, uniform((i) => keys[i]! > 0, 0, even)], `lane ${t}`);
    }
    // -0 and 0 are told apart and NaN matches NaN (lanes 0, 2: key 0 and -0; lanes 4 and 14: NaN).
    assert.equal((out[0]! >>> 2) & 1, 0);
    assert.equal((out[4 * 3]! >>> 14) & 1, 1);
  });

  it("lanemaskLt follows the linear thread id in a 2-D block (warps span rows)", () => {
    const out = new Uint32Array(8 * 12);
    kernel(art, "lanemask2d").launch(1, [8, 12])(out);
    assert.deepEqual([...out], Array.from({ length: 96 }, (_, t) => ((1 << (t & 31)) - 1) >>> 0));
  });

  it("with the sanitizer, a full mask in a branch half the warp skips is a divergent-warp fault (CSR025)", () => {
    configureSimulator({ sanitize: true });
    try {
      for (const [which, name] of [[0, "matchAnySync"], [1, "matchAllSync"], [2, "eqSync"]] as const) {
        assert.throws(
          () => kernel(art, "fullMaskInBranch").launch(1, 32)(which, new Uint32Array(32)),
          (e: unknown) => e instanceof CudaScriptError && e.code === "CSR025" && e.message.includes(`cuda.${name}()`) && e.message.includes("lane 1 "),
          name,
        );
      }
    } finally {
      configureSimulator({ sanitize: false });
    }
  });
});
