import { cuda, f32, i32 } from "cudascript";

/** Counts how many of the 4 neighbours are above a threshold. */
const countAbove = cuda.device((x: Float32Array, i: i32, t: f32): i32 => {
  const offsets = new Int32Array(4); // @expect CS1003
  let c = 0;
  for (let k = 0; k < 4; k++) {
    const j = i + offsets[k];
    if (j >= 0 && j < x.length && x[j] > t) c++;
  }
  return c;
});

export const neighbours = cuda.jit((x: Float32Array, t: f32, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = countAbove(x, i, t);
  }
});
