import { cuda, f32, Array2D } from "cudascript";

/** A 5-tap filter in constant memory (asymmetric, so a flipped index shows up). */
const FILTER = new Float32Array([0.05, 0.2, 0.5, 0.15, 0.1]);
const RADIUS = 2;

/** 1-D convolution (correlation) with the constant filter; samples outside [0, n) are 0. */
export const conv1dConst = cuda.jit((x: Float32Array, out: Float32Array) => {
  const f = cuda.const.arrayLike(FILTER);
  const i = cuda.grid(1);
  const n = x.length;
  if (i < n) {
    let acc: f32 = 0;
    for (let k = 0; k < f.length; k++) {
      const j = i + k - RADIUS;
      if (j >= 0 && j < n) {
        acc += f[k] * x[j];
      }
    }
    out[i] = acc;
  }
});

/** The same filter passed as an ordinary global-memory argument. */
export const conv1dParam = cuda.jit((x: Float32Array, filter: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const n = x.length;
  const r = (filter.length / 2) | 0;
  if (i < n) {
    let acc: f32 = 0;
    for (let k = 0; k < filter.length; k++) {
      const j = i + k - r;
      if (j < 0 || j >= n) {
        continue;
      }
      acc += filter[k] * x[j];
    }
    out[i] = acc;
  }
});

/** 2-D correlation with an odd-sized filter, zero padding. Grid x covers columns, y rows. */
export const conv2d = cuda.jit((img: Array2D<f32>, filt: Array2D<f32>, out: Array2D<f32>) => {
  const [col, row] = cuda.grid(2);
  const h = img.shape[0];
  const w = img.shape[1];
  const kh = filt.shape[0];
  const kw = filt.shape[1];
  if (row < h && col < w) {
    const rr = (kh / 2) | 0;
    const rc = (kw / 2) | 0;
    let acc: f32 = 0;
    for (let a = 0; a < kh; a++) {
      const y = row + a - rr;
      if (y < 0 || y >= h) {
        continue;
      }
      for (let b = 0; b < kw; b++) {
        const x = col + b - rc;
        if (x >= 0 && x < w) {
          acc += filt[a][b] * img[y][x];
        }
      }
    }
    out[row][col] = acc;
  }
});
