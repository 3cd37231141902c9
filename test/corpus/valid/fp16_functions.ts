import { cuda, f16, Array2D, Float16Array } from "cudascript";

/**
 * Numba's cuda.fp16 arithmetic and comparisons (ported from numba-cuda's test_intrinsics fp16 tests:
 * hadd … hlt, hrint on float16 operands), one output column per function.
 */
export const fp16Arith = cuda.jit((a: Float16Array, b: Float16Array, c: Float16Array, out: Array2D<f16>, flags: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  const x = a[i], y = b[i], z = c[i];
  out[i][0] = cuda.fp16.hadd(x, y);
  out[i][1] = cuda.fp16.hsub(x, y);
  out[i][2] = cuda.fp16.hmul(x, y);
  out[i][3] = cuda.fp16.hdiv(x, y);
  out[i][4] = cuda.fp16.hneg(x);
  out[i][5] = cuda.fp16.habs(x);
  out[i][6] = cuda.fp16.hmax(x, y);
  out[i][7] = cuda.fp16.hmin(x, y);
  out[i][8] = cuda.fp16.hsqrt(cuda.fp16.habs(x));
  out[i][9] = cuda.fp16.hfloor(x);
  out[i][10] = cuda.fp16.hceil(x);
  out[i][11] = cuda.fp16.htrunc(x);
  out[i][12] = cuda.fp16.hfma(x, y, z);
  out[i][13] = cuda.fp16.hadd(x, 0.5);
  out[i][14] = cuda.fp16.hrint(x);
  flags[i] =
    (cuda.fp16.heq(x, y) ? 1 : 0) + (cuda.fp16.hne(x, y) ? 2 : 0) + (cuda.fp16.hge(x, y) ? 4 : 0) +
    (cuda.fp16.hgt(x, y) ? 8 : 0) + (cuda.fp16.hle(x, y) ? 16 : 0) + (cuda.fp16.hlt(x, y) ? 32 : 0);
});

/** Numba's cuda.fp16 math functions on positive f16 values. */
export const fp16Math = cuda.jit((x: Float16Array, out: Array2D<f16>) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  const v = x[i];
  out[i][0] = cuda.fp16.hsin(v);
  out[i][1] = cuda.fp16.hcos(v);
  out[i][2] = cuda.fp16.hlog(v);
  out[i][3] = cuda.fp16.hlog10(v);
  out[i][4] = cuda.fp16.hlog2(v);
  out[i][5] = cuda.fp16.hexp(v);
  out[i][6] = cuda.fp16.hexp10(v);
  out[i][7] = cuda.fp16.hexp2(v);
  out[i][8] = cuda.fp16.hrsqrt(v);
  out[i][9] = cuda.fp16.hrcp(v);
});
