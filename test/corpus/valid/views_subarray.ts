import { cuda, f32, i32 } from "cudascript";

/** Sum of a 1-D view, written through a device function that takes an array: whole arrays and views alike. */
const sumOf = cuda.device((a: Float32Array): f32 => {
  let s: f32 = 0;
  for (let k = 0; k < a.length; k++) s += a[k];
  return s;
});

/** Adds `x` to every element of a view of a shared array, in a device function. */
const addAll = cuda.device((a: Int32Array, x: i32): void => {
  for (let k = 0; k < a.length; k++) a[k] += x;
});

/**
 * One dynamic shared buffer split into two typed regions, as Numba programs slice `cuda.shared.array(0, …)`:
 * the first `bd` f32 slots hold the block's values, the next `bd` i32 slots (after them) their signs.
 * Thread 0 sums the block's values through a view; the signs region gets +1 through a device function.
 */
export const splitDynamicShared = cuda.jit((x: Float32Array, sums: Float32Array, negatives: Int32Array) => {
  const t = cuda.threadIdx.x;
  const bd = cuda.blockDim.x;
  const i = cuda.grid(1);
  const fbuf = cuda.shared.array(0, f32);
  const ibuf = cuda.shared.array(0, i32);
  const values = fbuf.subarray(0, bd);
  const signs = ibuf.subarray(bd, 2 * bd);
  values[t] = i < x.length ? x[i] : 0;
  signs[t] = i < x.length && x[i] < 0 ? 1 : 0;
  cuda.syncthreads();
  if (t === 0) {
    sums[cuda.blockIdx.x] = sumOf(values);
    addAll(signs.subarray(0, 1), 0);
    let n = 0;
    for (let k = 0; k < signs.length; k++) n += signs[k];
    negatives[cuda.blockIdx.x] = n;
  }
});

/**
 * subarray on a global parameter, a static shared array, a local array and a constant array, with
 * TypedArray.prototype.subarray's clamping (negative begin/end count from the end; out of range clamps).
 */
const WEIGHTS = new Float32Array([0.5, 1, 2, 4, 8, 16]);
export const subarrayEverywhere = cuda.jit((x: Float32Array, out: Float32Array, lengths: Int32Array, begin: i32, end: i32) => {
  const i = cuda.grid(1);
  const tile = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  const w = cuda.const.arrayLike(WEIGHTS);
  const scratch = cuda.local.array(8, f32);
  for (let k = 0; k < 8; k++) scratch[k] = k;
  const g = x.subarray(begin, end);
  const sh = tile.subarray(-8);
  const loc = scratch.subarray(2, -2);
  const cw = w.subarray(1, 100);
  if (i === 0) {
    lengths[0] = g.length;
    lengths[1] = sh.length;
    lengths[2] = loc.length;
    lengths[3] = cw.length;
    lengths[4] = x.subarray(end, begin).length;
  }
  if (i < out.length) {
    let s: f32 = 0;
    if (i < g.length) s += g[i];
    s += sh[t % sh.length] + loc[t % loc.length] * cw[t % cw.length];
    out[i] = s;
    if (g.length > 0) cuda.atomic.add(g.subarray(0, 1), 0, 0);
  }
});
