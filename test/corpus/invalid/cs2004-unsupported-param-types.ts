import { cuda, f32 } from "cudascript";

/** Parameter types CudaScript does not have: one diagnostic each, at the annotation, nothing after. */
export const gaps = cuda.jit(
  (
    ticks: i64, // @expect CS2004
    half: f16, // @expect CS2004
    z: complex64, // @expect CS2004
    p: { x: f32; y: f32 }, // @expect CS2004
    out: Float32Array,
  ) => {
    const i = cuda.grid(1);
    if (i < out.length) {
      out[i] = ticks + half * 2;
      out[i] += z.real + p.x + p.y;
    }
  },
);
