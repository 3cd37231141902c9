/**
 * Gives freed simulator device memory back to the system now. A device array is a SharedArrayBuffer,
 * whose memory V8 releases only when a garbage collection finds the buffer unreachable — and V8 does
 * not count shared buffers as memory pressure, so a loop of `deviceArray` + `free()` that allocates
 * little else never triggers one (30 × 64 MiB took RSS to 2 GiB). `free()` drops the backend's hold on
 * the buffer; once enough bytes are freed, this runs a full collection in the calling thread (and each
 * worker thread, which holds its own handle on every buffer a launch gave it until its own collection).
 */
import * as v8 from "node:v8";
import * as vm from "node:vm";

/** Freed bytes that may wait for a collection: below this, V8's own collections (or the next free) pick them up. */
const RECLAIM_AFTER_BYTES = 32 * 2 ** 20;

/**
 * Whether `freed` bytes (freed since the last reclaim) are worth a full collection now: at least
 * RECLAIM_AFTER_BYTES, and at least the JavaScript heap in use, since a full collection's cost grows
 * with the heap — so a program with a large heap pays for one per heap's worth of freed memory.
 */
export function worthReclaiming(freed: number): boolean {
  return freed >= RECLAIM_AFTER_BYTES && freed >= v8.getHeapStatistics().used_heap_size;
}

let collect: (() => void) | undefined | null = null;

/**
 * V8's full garbage collection: `globalThis.gc` under --expose-gc, else the same function taken from a
 * context made while the flag is briefly on (the flag is turned off again, so the program's own
 * contexts do not gain a `gc`). Undefined where that is not allowed: then memory comes back at V8's
 * next collection, as before.
 */
function fullCollection(): (() => void) | undefined {
  if (collect !== null) return collect;
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === "function") return (collect = exposed);
  try {
    v8.setFlagsFromString("--expose-gc");
    collect = vm.runInNewContext("gc") as () => void;
  } catch {
    collect = undefined;
  } finally {
    v8.setFlagsFromString("--no-expose-gc");
  }
  return collect;
}

/** Collects garbage now, so that the memory of freed device arrays goes back to the system. */
export function reclaimFreedMemory(): void {
  fullCollection()?.();
}
