import { cuda, f32 } from "cudascript";

/** Prefix of a softplus; written with `var` and a leftover `debugger`. */
export const softplus = cuda.jit((x: Float32Array, out: Float32Array) => {
  var i = cuda.grid(1); // @expect CS1011
  if (i >= out.length) return;
  debugger; // @expect CS1011
  const v: f32 = x[i];
  out[i] = v > 20 ? v : Math.log1p(Math.exp(v));
});

export const softplusOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const v: f32 = x[i];
  out[i] = v > 20 ? v : Math.log1p(Math.exp(v));
});
