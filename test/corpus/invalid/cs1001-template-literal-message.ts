import { cuda, f32 } from "cudascript";

const LIMIT = 1000;

/** Clamps activations and reports the first overflowing thread. */
export const clampReport = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let v: f32 = x[i];
  if (v > LIMIT) {
    const msg = `value ${v} too large at ${i}`; // @expect CS1001
    console.log("overflow at index", i);
    v = LIMIT;
  }
  out[i] = v;
});

// Host side: strings and template literals are fine here.
export function describe(n: number): string {
  return `clampReport over ${n} elements, limit ${LIMIT}`;
}
