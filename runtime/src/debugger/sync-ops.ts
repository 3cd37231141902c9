/**
 * Barriers and warp operations of the stepping backend: the semantics are the compiler's, written once
 * (compiler/src/intrinsics/sync.ts), which the simulator's fast loops are held equal to.
 */
export { BARRIER_OPS, barrierResults, warpResults, type SyncRequest } from "@cudascript/compiler/intrinsics/sync";
