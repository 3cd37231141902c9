import { cuda, f32 } from "cudascript";

/** Bias + activation. The activation was meant to be picked by a host-side flag. */
export const biasAct = cuda.jit((x: Float32Array, bias: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    let v: f32 = x[i] + bias;
    const activation = "relu"; // @expect CS1001
    if (activation === "relu") v = Math.max(v, 0); // @expect CS1001
    out[i] = v;
  }
});

/** What to write instead: one kernel per activation (or a bool / integer parameter). */
export const biasRelu = cuda.jit((x: Float32Array, bias: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = Math.max(x[i] + bias, 0);
  }
});
