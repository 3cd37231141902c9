import { cuda, i32 } from "cudascript";

var iterations = 10;

/** Logistic map iterated a host-chosen number of times. */
export const logistic = cuda.jit((r: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let v = out[i];
  for (let k = 0; k < iterations; k++) { // @expect CS1010
    v = r[i] * v * (1 - v);
  }
  out[i] = v;
});

export const logisticOk = cuda.jit((r: Float32Array, steps: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let v = out[i];
  for (let k = 0; k < steps; k++) {
    v = r[i] * v * (1 - v);
  }
  out[i] = v;
});

export function configure(n: number): void {
  iterations = n;
}
