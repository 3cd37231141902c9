import { cuda, f32 } from "cudascript";

const TPB = 128;
const RADIUS = 2;

/**
 * 5-point stencil with the block's halo staged in shared memory; values outside [0, n) are 0.
 * Launch with blockDim.x == TPB.
 */
export const stencil5 = cuda.jit((x: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(TPB + 2 * RADIUS, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  const n = x.length;
  s[t + RADIUS] = i < n ? x[i] : 0;
  if (t < RADIUS) {
    const left = i - RADIUS;
    s[t] = left >= 0 && left < n ? x[left] : 0;
    const right = i + TPB;
    s[t + TPB + RADIUS] = right < n ? x[right] : 0;
  }
  cuda.syncthreads();
  if (i < n) {
    out[i] = 0.1 * s[t] + 0.2 * s[t + 1] + 0.4 * s[t + 2] + 0.25 * s[t + 3] + 0.05 * s[t + 4];
  }
});

/** 3-point stencil with weights as parameters, read straight from global memory (clamped edges). */
export const stencil3Clamped = cuda.jit((x: Float32Array, out: Float32Array, wl: f32, wc: f32, wr: f32) => {
  const i = cuda.grid(1);
  const n = x.length;
  if (i < n) {
    const l = i > 0 ? i - 1 : 0;
    const r = i < n - 1 ? i + 1 : n - 1;
    out[i] = wl * x[l] + wc * x[i] + wr * x[r];
  }
});
