import { cuda, f32 } from "cudascript";

/** A host helper: a plain function is not compiled for the GPU. */
function sigmoid(v: number): number {
  return 1 / (1 + Math.exp(-v));
}

const sigmoidDev = cuda.device((v: f32): f32 => 1 / (1 + Math.exp(-v)));

export const activate = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = sigmoid(x[i]); // @expect CS1008
  }
});

export const activateOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = sigmoidDev(x[i]);
  }
});

// The host may call the plain function.
export function reference(x: Float32Array): Float32Array {
  return x.map(sigmoid);
}
