import { cuda, f32 } from "cudascript";

const sum4 = cuda.device((v: Float32Array): f32 => v[0] + v[1] + v[2] + v[3]);

/** Array declarations used directly instead of being bound to a const. */
export const inline = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  cuda.local.array(4, f32)[0] = x[i]; // @expect CS3005
  out[i] = sum4(cuda.local.array(4, f32)); // @expect CS3005
});

export const inlineOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const v = cuda.local.array(4, f32);
  for (let k = 0; k < 4; k++) v[k] = i + k < x.length ? x[i + k] : 0;
  out[i] = sum4(v);
});
