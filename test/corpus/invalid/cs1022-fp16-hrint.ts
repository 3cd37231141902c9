import { cuda, Float16Array } from "cudascript";

/** Rounding f16 values to even: Numba's cuda.fp16.hrint is not available yet. */
export const roundHalves = cuda.jit((x: Float16Array, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = cuda.fp16.hrint(x[i]); // @expect CS1022
});

/** What works: Math.round (halves up), or cuda.fp16.htrunc / hfloor / hceil. */
export const roundHalvesUp = cuda.jit((x: Float16Array, out: Float16Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = Math.round(x[i]);
});
