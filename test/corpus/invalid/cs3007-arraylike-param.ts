import { cuda, f32 } from "cudascript";

/** Tries to put a kernel argument in constant memory. */
export const polyConst = cuda.jit((coef: Float32Array, x: Float32Array, out: Float32Array) => {
  const c = cuda.const.arrayLike(coef); // @expect CS3007
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = c[0] + c[1] * x[i];
});

const COEF = new Float32Array([1, 0.5, 0.25]);

export const polyConstOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const c = cuda.const.arrayLike(COEF);
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let acc: f32 = 0;
  for (let k = 2; k >= 0; k--) acc = acc * x[i] + c[k];
  out[i] = acc;
});
