import { cuda, f32 } from "cudascript";

const NBINS = 16;

/** hist[values[i]] += 1 with a global atomic; values are already bin indices in [0, hist.length). */
export const histogram = cuda.jit((values: Int32Array, hist: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < values.length) {
    cuda.atomic.add(hist, values[i], 1);
  }
});

/** Bins float data into NBINS equal bins over [lo, hi); values outside are clamped to the end bins. */
export const histogramF32 = cuda.jit((x: Float32Array, lo: f32, hi: f32, hist: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    let bin = (((x[i] - lo) / (hi - lo)) * NBINS) | 0;
    if (bin < 0) {
      bin = 0;
    } else if (bin >= NBINS) {
      bin = NBINS - 1;
    }
    cuda.atomic.add(hist, bin, 1);
  }
});
