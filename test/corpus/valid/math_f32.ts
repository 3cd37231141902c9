import { cuda, f32 } from "cudascript";

/** Math.min / Math.max / Math.sqrt / Math.abs on f32 values. */
export const mathOps = cuda.jit((x: Float32Array, y: Float32Array, out: Float32Array, lo: f32, hi: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const a = Math.abs(x[i]);
    const root = Math.sqrt(a);
    const clamped = Math.min(Math.max(y[i], lo), hi);
    out[i] = root * clamped + Math.max(x[i], y[i]) - Math.min(a, 0.5);
  }
});

/** Polar coordinates in f32: radius with sqrt, angle in degrees with atan2 and Math.PI. */
export const toPolar = cuda.jit((x: Float32Array, y: Float32Array, radius: Float32Array, degrees: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    const xi = x[i];
    const yi = y[i];
    radius[i] = Math.sqrt(xi * xi + yi * yi);
    degrees[i] = Math.atan2(yi, xi) * (180 / Math.PI);
  }
});
