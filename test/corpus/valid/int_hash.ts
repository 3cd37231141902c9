import { cuda, i32, u32 } from "cudascript";

/**
 * A per-thread xorshift32 generator seeded from (seed + i) | 1, run `rounds` times, then one LCG step
 * (u32 arithmetic wraps modulo 2^32).
 */
export const xorshiftRng = cuda.jit((seed: u32, rounds: i32, out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    let s: u32 = (seed + i) | 1;
    for (let r = 0; r < rounds; r++) {
      s ^= s << 13;
      s ^= s >>> 17;
      s ^= s << 5;
    }
    s = s * 1664525 + 1013904223;
    out[i] = s;
  }
});

/** Integer division, remainder, shifts and bitwise operators on i32 (b is never 0). */
export const intOps = cuda.jit(
  (a: Int32Array, b: Int32Array, quot: Int32Array, rem: Int32Array, mix: Int32Array, low: Uint16Array) => {
    const i = cuda.grid(1);
    if (i < a.length) {
      const x = a[i];
      const y = b[i];
      quot[i] = (x / y) | 0;
      rem[i] = x % y;
      const bits = ((x << 3) ^ (y >> 2)) & 0xffff;
      mix[i] = (bits | (x >>> 28)) - (~y & 7) + (-x >> 4);
      low[i] = x & 0xffff;
    }
  },
);
