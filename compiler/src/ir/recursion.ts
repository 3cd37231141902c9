/**
 * Recursion in device functions (issue 31 item 3): which functions are in a call cycle (self or mutual,
 * across files: the IR module holds every device function a kernel reaches). The CUDA C++ generator
 * makes them real calls (`__noinline__`, declared before every body); each call takes a stack frame, so
 * the GPU backend sizes the per-thread stack for the recursion depth (docs/kernel-language.md,
 * "Recursion"); the simulator counts the depth against the same limit.
 */
import type * as IR from "./nodes";

/** How deep recursion may go when the kernel does not say (`cuda.jit(fn, { recursionDepth })`). */
export const DEFAULT_RECURSION_DEPTH = 64;
/** The deepest `recursionDepth` a kernel may ask for. */
export const MAX_RECURSION_DEPTH = 100000;

/** Ids of the device functions that can reach themselves through calls. */
export function recursiveFunctions(module: IR.IrModule): Set<string> {
  const byId = new Map(module.deviceFunctions.map((f) => [f.id, f]));
  const out = new Set<string>();
  for (const f of module.deviceFunctions) {
    const seen = new Set<string>();
    const stack = [...f.callees];
    while (stack.length) {
      const id = stack.pop()!;
      if (id === f.id) {
        out.add(f.id);
        break;
      }
      if (seen.has(id)) continue;
      seen.add(id);
      stack.push(...(byId.get(id)?.callees ?? []));
    }
  }
  return out;
}
