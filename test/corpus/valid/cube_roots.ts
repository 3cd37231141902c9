import { cuda } from "cudascript";

/** Numba's cuda.cbrt on f32 (cbrtf), checked against Math.cbrt, which is the same function. */
export const cubeRootsF32 = cuda.jit((x: Float32Array, out: Float32Array, sameAsMath: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    out[i] = cuda.cbrt(x[i]);
    sameAsMath[i] = cuda.cbrt(x[i]) === Math.cbrt(x[i]) ? 1 : 0;
  }
});

/** cuda.cbrt on f64 (cbrt). */
export const cubeRootsF64 = cuda.jit((x: Float64Array, out: Float64Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = cuda.cbrt(x[i]);
});
