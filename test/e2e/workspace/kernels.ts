import { cuda, f32, f64, i32 } from "cudascript";

const MAX_ITER = 96;

/**
 * out = a * x + y, one element per thread.
 * @run grid=4096 block=256 args=[scalar(2.5), random(1<<20, f32), random(1<<20, f32), zeros(1<<20, f32)]
 */
export const saxpy = cuda.jit((a: f32, x: Float32Array, y: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = a * x[i] + y[i];
  }
});

/**
 * Escape-time counts of the Mandelbrot set, one pixel per thread, into a flat row-major image.
 * @run grid=1536 block=128 args=[scalar(-2.2), scalar(-1.2), scalar(0.0125), scalar(0.0125), scalar(256), zeros([192, 256], i32)]
 */
export const mandelbrot = cuda.jit((x0: f64, y0: f64, dx: f64, dy: f64, w: i32, counts: Int32Array) => {
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

/** Scales a vector in place. No @run tag: Run Kernel explains how to add one. */
export const scale = cuda.jit((s: f32, v: Float32Array) => {
  const i = cuda.grid(1);
  if (i < v.length) v[i] = v[i] * s;
});
