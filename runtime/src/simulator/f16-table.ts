/**
 * f16 array elements in simulated kernels are their raw 16-bit storage: the executor hands a kernel a
 * Uint16Array over the device bytes, not a Float16Array. On Node 20/22 the Float16Array is the
 * polyfill's Proxy, and every element access through its traps made f16 kernels ~200x slower than
 * their f32 twins (bench/sim.mjs, "vector add f16").
 *
 * Loads decode through a table of all 65,536 bit patterns; stores encode with `halfBits`. Both are
 * built from the library's own conversion (the platform's Float16Array, else the polyfill's: see
 * ../float16.ts), so the bits are exactly those a Float16Array store gives and host arrays read back
 * what the kernel wrote. Built once per thread, on the first module that uses f16 arrays.
 */
import { Float16Array } from "../float16";

export interface HalfTables {
  /** The value of every f16 bit pattern (a Float32Array holds each f16 exactly). */
  readonly h2f: Float32Array;
  /** The f16 bits `x` rounds to (round to nearest even), as a Float16Array store encodes it. */
  readonly f2h: (x: number) => number;
}

let tables: HalfTables | undefined;

/** The decode table and the encoder (built on first use: a few tens of milliseconds). */
export function halfTables(): HalfTables {
  return (tables ??= buildTables());
}

/** True where Node has its own Float16Array (Node >= 24): its stores are fast, the polyfill's are not. */
const NATIVE = typeof (globalThis as { Float16Array?: unknown }).Float16Array === "function";

function buildTables(): HalfTables {
  const allBits = new Uint16Array(65536);
  for (let b = 0; b < 65536; b++) allBits[b] = b;
  const h2f = Float32Array.from(new Float16Array(allBits.buffer));

  // The library's encoder: a store into a scratch Float16Array, read back through its Uint16Array alias.
  const scratch = new Float16Array(1), scratchBits = new Uint16Array(scratch.buffer);
  const encode = (x: number): number => {
    scratch[0] = x;
    return scratchBits[0]!;
  };
  // Measured (docs/simulator.md, "Half precision"): the native store is faster than any table lookup.
  if (NATIVE) return { h2f, f2h: encode };

  // Polyfill: a store through its Proxy costs ~0.3 µs, so values that already are f16 (every store of a
  // rounded f16 result: nearly all of them) are looked up instead. An f16 value is exact in f32 and its
  // f32 bits above the low 13 (those f16 has no room for) identify it; the table maps those 19 bits to the
  // f16 bits, filled from the decode table. A lookup is only taken when the bits found decode to exactly
  // `x`, so anything else (a value that needs rounding, NaN with its payload) goes to the library.
  const f32 = new Float32Array(1), f32Bits = new Uint32Array(f32.buffer);
  const byF32 = new Uint16Array(1 << 19);
  const filled = new Uint8Array(1 << 19);
  for (let b = 0; b < 65536; b++) {
    const v = h2f[b]!;
    if (v !== v) continue; // NaN: never looked up
    f32[0] = v;
    const key = f32Bits[0]! >>> 13;
    if (filled[key]) throw new Error(`CudaScript simulator: internal error (f16 values ${byF32[key]} and ${b} share an f32 key)`);
    filled[key] = 1;
    byF32[key] = b;
  }
  const f2h = (x: number): number => {
    f32[0] = x;
    const b = byF32[f32Bits[0]! >>> 13]!;
    return h2f[b] === x ? b : encode(x);
  };
  return { h2f, f2h };
}
