// Uses the libcuda TEST DOUBLE (test/driver-double/libcuda.c), not NVIDIA's driver, in child
// processes run with --expose-gc (children/pinned-dispose-child.ts). The double poisons freed
// pinned memory, so a view that outlives its memory faults: these tests prove that no
// cuda.pinnedArray view ever does, even across backend.dispose().
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { childEnv, doublePathOrSkip, REPO, runNode } from "./helpers";

const CHILD = path.join(REPO, "test", "dist", "gpu", "children", "pinned-dispose-child.js");

describe("pinned memory outlives dispose() while a view can reach it (libcuda TEST DOUBLE, --expose-gc child)", () => {
  it("the double turns a read of freed pinned memory into a segmentation fault", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const r = runNode(["--expose-gc", CHILD, "touch-freed-memory"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu" }));
    assert.equal(r.signal, "SIGSEGV", r.all);
    assert.doesNotMatch(r.out, /from freed pinned memory/);
  });

  it("a pinnedArray kept past backend.dispose() still reads its data, and its memory and context go when it is collected", (t) => {
    const lib = doublePathOrSkip(t);
    if (!lib) return;
    const r = runNode(["--expose-gc", CHILD, "keep-view-past-dispose"], childEnv(lib, { CUDASCRIPT_BACKEND: "gpu" }));
    assert.equal(r.code, 0, `child ${r.signal ? `killed by ${r.signal}` : `exited with ${r.code}`}\n${r.all}`);
    const out = JSON.parse(r.out.trim().split("\n").pop()!) as {
      afterDispose: { livePinned: number; primaryContextDestroyed: boolean; frees: number };
      readsBack: boolean;
      afterCollection: { livePinned: number; primaryContextDestroyed: boolean; frees: number };
    };
    assert.deepEqual(out.afterDispose, { livePinned: 1, primaryContextDestroyed: false, frees: 0 }, "dispose() deferred the free and kept the context retained");
    assert.equal(out.readsBack, true);
    assert.deepEqual(out.afterCollection, { livePinned: 0, primaryContextDestroyed: true, frees: 1 }, "freed once the view was collected, then the context released");
  });
});
