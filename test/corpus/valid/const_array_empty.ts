import { cuda } from "cudascript";

/** Filter taps chosen at build time; a configuration with no taps is an empty constant array. */
const NO_TAPS = new Float64Array([]);
const TWO_TAPS = new Float64Array([0.5, 0.25]);

/** out = x + Σ taps[k]·x shifted by k+1: with an empty constant array the loop runs zero times. */
export const noTaps = cuda.jit((x: Float64Array, out: Float64Array) => {
  const taps = cuda.const.arrayLike(NO_TAPS);
  const i = cuda.grid(1);
  if (i < out.length) {
    let acc = x[i];
    for (let k = 0; k < taps.length; k++) {
      if (i + k + 1 < x.length) acc += taps[k] * x[i + k + 1];
    }
    out[i] = acc;
  }
});

/** The same kernel with two taps, so both shapes of the constant array go through every backend. */
export const twoTaps = cuda.jit((x: Float64Array, out: Float64Array) => {
  const taps = cuda.const.arrayLike(TWO_TAPS);
  const i = cuda.grid(1);
  if (i < out.length) {
    let acc = x[i];
    for (let k = 0; k < taps.length; k++) {
      if (i + k + 1 < x.length) acc += taps[k] * x[i + k + 1];
    }
    out[i] = acc;
  }
});
