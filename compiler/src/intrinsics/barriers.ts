/**
 * Block barriers (`cuda.syncthreads` and its count/and/or forms), the grid barrier (`g.sync()`) and the
 * memory fences. The simulator computes the barriers over every thread that reached them (their
 * semantics: intrinsics/sync.ts barrierResults); a fence is nothing on the simulator, whose threads of a
 * block run one after another and see each other's writes in order.
 */
import { call } from "../cuda/precedence";
import { param, sig, type IntrinsicRecord } from "./record";

function barrier(name: string, cuda: string, numba: string, text: string, predicate: boolean, jsBarrier?: string): IntrinsicRecord {
  return {
    jsBarrier,
    name,
    paths: [`cuda.${name}`],
    numba,
    effect: "barrier",
    uniformity: "block",
    signatures: [predicate ? sig("i32", param("predicate", "truthy")) : sig("void")],
    doc: { signature: `cuda.${name}(${predicate ? "predicate: boolean | number" : ""}): ${predicate ? "i32" : "void"}`, text, cuda: `${cuda}(${predicate ? "p" : ""})` },
    cuda: (c) => call(cuda, c.t),
  };
}

function fence(name: string, cuda: string, numba: string, text: string): IntrinsicRecord {
  return {
    name,
    paths: [`cuda.${name}`],
    numba,
    effect: "fence",
    uniformity: "args",
    signatures: [sig("void")],
    doc: { signature: `cuda.${name}(): void`, text, cuda: `${cuda}()` },
    cuda: () => call(cuda, []),
    js: () => "undefined",
  };
}

export const BARRIER_RECORDS: readonly IntrinsicRecord[] = [
  barrier(
    "syncthreads",
    "__syncthreads",
    "cuda.syncthreads()",
    "Barrier for every thread of the block: waits until all have reached it and their shared/global writes are visible to the block. Every thread of the block must reach the same call (not inside a condition that depends on the thread — see CS5001).",
    false,
  ),
  barrier("syncthreadsCount", "__syncthreads_count", "cuda.syncthreads_count(predicate)", "`syncthreads`, returning how many threads of the block passed a true predicate.", true, "$c"),
  barrier("syncthreadsAnd", "__syncthreads_and", "cuda.syncthreads_and(predicate)", "`syncthreads`, returning non-zero if the predicate is true for every thread of the block.", true, "($c === $n ? 1 : 0)"),
  barrier("syncthreadsOr", "__syncthreads_or", "cuda.syncthreads_or(predicate)", "`syncthreads`, returning non-zero if the predicate is true for any thread of the block.", true, "($c > 0 ? 1 : 0)"),
  {
    name: "gridSync",
    // `g.sync()` of `const g = cuda.cg.thisGrid()`: typed by frontend/lower-grid-group.ts.
    paths: [],
    numba: "cuda.cg.this_grid().sync()",
    effect: "grid",
    uniformity: "block",
    lowering: "frontend/lower-grid-group.ts (g.sync() of const g = cuda.cg.thisGrid(), only in a kernel's own body)",
    signatures: [sig("void")],
    doc: { signature: "g.sync(): void", text: "A barrier of every thread of the grid; its kernel is launched cooperatively.", cuda: "cs_grid_sync(workspace)" },
    cuda: (c) => {
      // The lowerer allows g.sync() only in a kernel's own body, where the workspace parameter is.
      if (!c.gridWorkspace) throw new Error("g.sync() outside a kernel's own body");
      return call("cs_grid_sync", [c.gridWorkspace]);
    },
  },
  fence("threadfence", "__threadfence", "cuda.threadfence()", "Memory fence: this thread's writes before the fence are seen by every thread of the device before its writes after it. Not a barrier."),
  fence("threadfenceBlock", "__threadfence_block", "cuda.threadfence_block()", "Memory fence at block scope: ordering of this thread's writes as seen by the threads of its block."),
  fence("threadfenceSystem", "__threadfence_system", "cuda.threadfence_system()", "Memory fence at system scope: also orders writes as seen by the host and peer devices."),
];
