import { cuda, f64, i32, Array2D } from "cudascript";

const MAX_ITER = 64;

/** Escape-time iteration count of one point: the first k with |z_k|^2 > 4, or MAX_ITER. */
const escapeTime = cuda.device((cr: f64, ci: f64): i32 => {
  let zr: f64 = 0;
  let zi: f64 = 0;
  let count = MAX_ITER;
  for (let k = 0; k < MAX_ITER; k++) {
    const zr2 = zr * zr;
    const zi2 = zi * zi;
    if (zr2 + zi2 > 4) {
      count = k;
      break;
    }
    zi = 2 * zr * zi + ci;
    zr = zr2 - zi2 + cr;
  }
  return count;
});

/** counts[row][col] for c = (x0 + col * dx) + (y0 + row * dy) i. Grid x covers columns. */
export const mandelbrot = cuda.jit((x0: f64, y0: f64, dx: f64, dy: f64, counts: Array2D<i32>) => {
  const [col, row] = cuda.grid(2);
  if (row < counts.shape[0] && col < counts.shape[1]) {
    counts[row][col] = escapeTime(x0 + col * dx, y0 + row * dy);
  }
});

/** The same image with a while loop, into a flat Int32Array of width w. */
export const mandelbrotFlat = cuda.jit((x0: f64, y0: f64, dx: f64, dy: f64, w: i32, counts: Int32Array) => {
  const i = cuda.grid(1);
  if (i < counts.length) {
    const row = (i / w) | 0;
    const col = i % w;
    const cr = x0 + col * dx;
    const ci = y0 + row * dy;
    let zr: f64 = 0;
    let zi: f64 = 0;
    let n = 0;
    while (n < MAX_ITER && zr * zr + zi * zi <= 4) {
      const nz = zr * zr - zi * zi + cr;
      zi = 2 * zr * zi + ci;
      zr = nz;
      n++;
    }
    counts[i] = n;
  }
});
