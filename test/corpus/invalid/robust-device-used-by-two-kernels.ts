import { cuda, f32, i32 } from "cudascript";

/** A device function with one mistake, called from two kernels: reported once, in the device function. */
const weight = cuda.device((k: i32): f32 => {
  const table = [0.1, 0.2, 0.4, 0.2, 0.1]; // @expect CS1002
  return table[k];
});

export const blurA = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < 2 || i >= x.length - 2) return;
  let acc: f32 = 0;
  for (let k = 0; k < 5; k++) acc += weight(k) * x[i + k - 2];
  out[i] = acc;
});

export const blurB = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < 2 || i >= x.length - 2) return;
  out[i] = weight(2) * x[i];
});
