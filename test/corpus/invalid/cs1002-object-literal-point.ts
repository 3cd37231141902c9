import { cuda, f32 } from "cudascript";

const norm2 = cuda.device((px: f32, py: f32): f32 => Math.sqrt(px * px + py * py));

/** Distance of each point from the origin. */
export const distances = cuda.jit((xs: Float32Array, ys: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const p = { x: xs[i], y: ys[i] }; // @expect CS1002
    out[i] = norm2(p.x, p.y);
  }
});

/** Same kernel, with two scalars instead of an object. */
export const distancesOk = cuda.jit((xs: Float32Array, ys: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = norm2(xs[i], ys[i]);
  }
});

export function run(xs: Float32Array, ys: Float32Array): Float32Array {
  const out = new Float32Array(xs.length);
  distancesOk.launch(Math.ceil(xs.length / 256), 256)(xs, ys, out);
  return out;
}
