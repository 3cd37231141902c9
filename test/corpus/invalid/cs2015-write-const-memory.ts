import { cuda, f32 } from "cudascript";
import { SOBEL_X } from "./cs1010-helpers";

const GAUSS5 = new Float32Array([0.0625, 0.25, 0.375, 0.25, 0.0625]);

/** 5-tap blur that "normalizes" the constant weights in place. */
export const blur5 = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < 2 || i >= x.length - 2) return;
  const w = cuda.const.arrayLike(GAUSS5);
  if (i === 2) w[2] = 0.375; // @expect CS2015
  let acc: f32 = 0;
  for (let k = 0; k < 5; k++) acc += w[k] * x[i + k - 2];
  out[i] = acc;
});

/** Sobel along x on a 1-pixel-high image strip; reads only. */
export const sobelRow = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < 1 || i >= x.length - 1) return;
  const k = cuda.const.arrayLike(SOBEL_X);
  out[i] = k[3] * x[i - 1] + k[4] * x[i] + k[5] * x[i + 1];
});

export const scaleWeights = cuda.jit((out: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  const w = cuda.const.arrayLike(GAUSS5);
  if (i < 5) {
    w[i] *= s; // @expect CS2015
    out[i] = w[i];
  }
});
