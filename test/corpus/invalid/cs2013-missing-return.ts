import { cuda, f32, i32 } from "cudascript";

/** Piecewise function with a missing final case. */
const piecewise = cuda.device((v: f32): f32 => { // @expect CS2013
  if (v < 0) {
    return 0;
  } else if (v < 1) {
    return v * v;
  }
});

/** Linear search whose "not found" path falls off the end. */
const indexOf = cuda.device((keys: Int32Array, key: i32): i32 => { // @expect CS2013
  for (let k = 0; k < keys.length; k++) {
    if (keys[k] === key) return k;
  }
});

const piecewiseOk = cuda.device((v: f32): f32 => {
  if (v < 0) {
    return 0;
  } else if (v < 1) {
    return v * v;
  }
  return 2 * v - 1;
});

export const applyPiecewise = cuda.jit((x: Float32Array, out: Float32Array, keys: Int32Array, at: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = piecewise(x[i]) + piecewiseOk(x[i]);
  }
  if (i < at.length) {
    at[i] = indexOf(keys, i);
  }
});
