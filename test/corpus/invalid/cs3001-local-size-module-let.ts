import { cuda, f32 } from "cudascript";

/** Histogram bin count, configurable on the host. */
let bins = 16;

export function setBins(n: number): void {
  bins = n;
}

export const localHist = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const h = cuda.local.array(bins, f32); // @expect CS3001
  h[0] = x[i];
  out[i] = h[0];
});

const BINS = 16;

export const localHistOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const h = cuda.local.array(BINS, f32);
  for (let b = 0; b < BINS; b++) h[b] = 0;
  h[Math.min((x[i] * BINS) | 0, BINS - 1)] += 1;
  out[i] = h[0];
});
