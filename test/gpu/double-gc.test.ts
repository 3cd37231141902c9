// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver, in a child
// process run with --expose-gc (children/gc-child.ts). Proves the FinalizationRegistry fallback:
// device arrays dropped without free() are reclaimed when garbage-collected, arrays freed with
// free() are never freed a second time, a live array is never touched, and dropped pinned arrays
// return their page-locked memory.
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { childEnv, doublePathOrSkip, REPO, runNode } from "./helpers";

const CHILD = path.join(REPO, "test", "dist", "gpu", "children", "gc-child.js");

describe("GPU backend FinalizationRegistry fallback (libcuda TEST DOUBLE, --expose-gc child)", () => {
  it("reclaims dropped device and pinned arrays exactly once, and never a live one", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const r = runNode(["--expose-gc", CHILD], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu" }));
    assert.equal(r.code, 0, r.all);
    const out = JSON.parse(r.out.trim().split("\n").pop()!) as {
      pointers: string[];
      explicitlyFreed: string[];
      keptPointer: string;
      frees: string[];
      stillThere: string;
      stats: { liveAllocations: number; freedExplicitly: number; freedByFinalizer: number; livePinned: number; pinnedReclaimed: number };
      live: { allocations: number; pinned: number };
      pinnedLiveBefore: number;
      pinnedFrees: number;
    };
    assert.equal(out.pointers.length, 100);
    assert.equal(out.explicitlyFreed.length, 34);
    const count = new Map<string, number>();
    for (const f of out.frees) count.set(f, (count.get(f) ?? 0) + 1);
    // The driver reuses freed addresses, so an address may belong to several allocations in turn:
    // each address is freed exactly as many times as it was handed out.
    const handedOut = new Map<string, number>();
    for (const p of out.pointers) handedOut.set(p, (handedOut.get(p) ?? 0) + 1);
    for (const [p, n] of handedOut) assert.equal(count.get(p), n, `${p} freed exactly once per allocation`);
    assert.equal(out.frees.length, out.pointers.length);
    assert.equal(count.get(out.keptPointer), undefined, "the array still referenced was not freed");
    assert.equal(out.stillThere, "1,2,3", "and it still holds its data");
    assert.equal(out.stats.freedExplicitly, 34);
    assert.equal(out.stats.freedByFinalizer, 66);
    assert.equal(out.stats.liveAllocations, 1);
    assert.equal(out.live.allocations, 1, "the driver holds only the live array");
    assert.equal(out.pinnedLiveBefore, 5);
    assert.equal(out.stats.pinnedReclaimed, 5);
    assert.equal(out.pinnedFrees, 5, "cuMemFreeHost for each dropped pinned array");
    assert.equal(out.live.pinned, 0);
  });
});
