import { cuda, f32, i32 } from "cudascript";

/** Per-thread moving window whose size is a kernel parameter. */
export const windowMax = cuda.jit((x: Float32Array, win: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i + win > x.length || i >= out.length) return;
  const buf = cuda.local.array(win, f32); // @expect CS3001
  for (let k = 0; k < win; k++) buf[k] = x[i + k];
  let m: f32 = buf[0];
  for (let k = 1; k < win; k++) m = Math.max(m, buf[k]);
  out[i] = m;
});

const MAX_WIN = 32;

/** Allocate the largest window as a constant and use `win` elements of it. */
export const windowMaxOk = cuda.jit((x: Float32Array, win: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (win > MAX_WIN || i + win > x.length || i >= out.length) return;
  const buf = cuda.local.array(MAX_WIN, f32);
  for (let k = 0; k < win; k++) buf[k] = x[i + k];
  let m: f32 = buf[0];
  for (let k = 1; k < win; k++) m = Math.max(m, buf[k]);
  out[i] = m;
});
