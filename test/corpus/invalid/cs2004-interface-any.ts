import { cuda, f32, i32 } from "cudascript";

interface Params {
  scale: number;
  offset: number;
}

export const affine = cuda.jit((p: Params, x: Float32Array) => { // @expect CS2004
  const i = cuda.grid(1);
  if (i < x.length) x[i] = 0;
});

export const anything = cuda.jit((x: Float32Array, extra: any) => { // @expect CS2004
  const i = cuda.grid(1);
  if (i < x.length) x[i] = 1;
});

/** One scalar parameter per field. */
export const affineOk = cuda.jit((scale: f32, offset: f32, x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = x[i] * scale + offset;
});

const helperOk = cuda.device((x: Int32Array, i: i32): i32 => x[i] * 2);
export const doubleOk = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = helperOk(x, i);
});
