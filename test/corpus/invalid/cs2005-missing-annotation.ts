import { cuda, f32 } from "cudascript";

/** The scale parameter has no type: TypeScript would infer `any`, and a kernel needs the dtype. */
export const scaleAdd = cuda.jit(
  (
    scale, // @expect CS2005
    x: Float32Array,
    out: Float32Array,
  ) => {
    const i = cuda.grid(1);
    if (i < out.length) out[i] = x[i] + 1;
  },
);

export const scaleAddOk = cuda.jit((scale: f32, x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = x[i] * scale + 1;
});
