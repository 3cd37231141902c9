/**
 * The per-thread stack of kernels that reach recursive device functions (issue 31 item 3). Each nested
 * call of a recursive function takes a stack frame, and CUDA's default per-thread stack (1 KiB) fails
 * silently or with an illegal address when recursion runs past it. So before launching such a kernel the
 * GPU backend makes the context's stack (cuCtxSetLimit(CU_LIMIT_STACK_SIZE)) at least
 * (recursionDepth + 1) × the largest stack frame the driver's JIT reports for the module (its ptxas-style
 * info log, "N bytes stack frame"), or DEFAULT_FRAME_BYTES per frame when the log has none. The
 * simulator stops at the same depth with CSR086 (compiler/src/ir/recursion.ts).
 */

/** Bytes per frame assumed when the JIT reports no frame sizes. */
export const DEFAULT_FRAME_BYTES = 256;

/** The largest "N bytes stack frame" of a ptxas-style report, or undefined when it has none. */
export function largestStackFrame(infoLog: string): number | undefined {
  let largest: number | undefined;
  for (const m of infoLog.matchAll(/(\d+) bytes stack frame/g)) largest = Math.max(largest ?? 0, Number(m[1]));
  return largest;
}

/** The per-thread stack bytes a kernel of this recursion depth needs: one frame per level and the kernel's own, rounded up to 16. */
export function recursionStackBytes(depth: number, infoLog: string): number {
  const frame = Math.max(largestStackFrame(infoLog) ?? DEFAULT_FRAME_BYTES, 16);
  return Math.ceil(((depth + 1) * frame) / 16) * 16;
}
