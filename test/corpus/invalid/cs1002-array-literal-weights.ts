import { cuda, f32 } from "cudascript";

/** 3-tap smoothing filter; the weights were written as an array literal inside the kernel. */
export const smooth3 = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const n = x.length;
  if (i < 1 || i >= n - 1) return;
  const w = [0.25, 0.5, 0.25]; // @expect CS1002
  let acc: f32 = 0;
  for (let k = 0; k < 3; k++) {
    acc += w[k] * x[i + k - 1];
  }
  out[i] = acc;
});

// The fix: a module-level constant typed array in constant memory.
const WEIGHTS = new Float32Array([0.25, 0.5, 0.25]);

export const smooth3Const = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const n = x.length;
  if (i < 1 || i >= n - 1) return;
  const w = cuda.const.arrayLike(WEIGHTS);
  let acc: f32 = 0;
  for (let k = 0; k < 3; k++) {
    acc += w[k] * x[i + k - 1];
  }
  out[i] = acc;
});
