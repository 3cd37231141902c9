import { cuda, f32 } from "cudascript";

/** Host-configurable threshold: mutable module state. */
let threshold = 0.5;

export function setThreshold(t: number): void {
  threshold = t;
}

export const binarize = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] > threshold ? 1 : 0; // @expect CS1010
  }
});

/** Pass it as a parameter instead. */
export const binarizeOk = cuda.jit((x: Float32Array, t: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] > t ? 1 : 0;
  }
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  binarizeOk.launch(Math.ceil(x.length / 256), 256)(x, threshold, out);
  return out;
}
