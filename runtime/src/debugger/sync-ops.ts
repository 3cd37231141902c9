/**
 * Barriers and warp operations of the stepping backend: the semantics are the compiler's, written once
 * (compiler/src/intrinsics/sync.ts), which the simulator's fast loops are held equal to; which operations
 * are barriers is the intrinsic records' effect kind (compiler/src/intrinsics/index.ts).
 */
export { barrierResults, warpResults, type SyncRequest } from "@cudascript/compiler/intrinsics/sync";
export { BARRIER_INTRINSICS as BARRIER_OPS } from "@cudascript/compiler/intrinsics";
