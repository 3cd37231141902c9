import { cuda, f16, i32, Float16Array, Complex64Array, Complex128Array, type Array1D, type Array2D, type c64, type c128 } from "cudascript";

/**
 * Constant arrays of every dtype beyond the 32-bit ones, with the values that a lossy path would
 * change: the ends of the 64-bit ranges (a double rounds them), f16 values rounded at the constant,
 * subnormals, -0, infinities and NaN (whose C++ literals cannot initialise constant memory).
 */
const I64_EDGES = new BigInt64Array([-9223372036854775808n, 9223372036854775807n, -1n, 0n, 1234567890123456789n, -(1n << 62n)]);
const U64_EDGES = new BigUint64Array([0n, 18446744073709551615n, 9223372036854775808n, 1n << 40n, 0xdeadbeefcafebaben]);
/** A 2 × 3 i64 table. */
const I64_TABLE = cuda.ndarray(new BigInt64Array([1n, -2n, 3n, -4000000000000n, 5n, -6n]), [2, 3]);

/** 0.1 rounds to 0.0999755859375; 65504 is the largest finite f16, 2^-24 the smallest subnormal. */
const HALVES = new Float16Array([0.1, 65504, 5.960464477539063e-8, -0, -2.5, Infinity, -Infinity, NaN]);
/** A 3 × 2 f16 table (0.333 rounds to 0.333251953125). */
const HALF_TABLE = cuda.ndarray(new Float16Array([0.5, 1.5, -2, 1000, 0.333, 7]), [3, 2]);

const Z64 = Complex64Array.wrap(new Float32Array([1.5, -2, 0.1, 3e38, -0, 1e-45]));
const Z128 = new Complex128Array(new Float64Array([0.1, -0.2, 1e300, -1e-300]));
/** A 2 × 2 c128 table. */
const Z_TABLE = cuda.ndarray(Complex128Array.wrap(new Float64Array([1, 2, 3, 4, 5, 6, 7, 8])), [2, 2]);
/** Non-finite parts: stored as bit patterns in the generated C++. */
const Z64_SPECIAL = Complex64Array.wrap(new Float32Array([NaN, Infinity, -Infinity, 2]));

/** Row `r` of an f16 table summed in a device function (a constant array passed as an argument). */
const rowSum = cuda.device((m: Array2D<f16>, r: i32): f16 => {
  let s: f16 = 0;
  for (let c = 0; c < m.shape[1]; c++) s += m[r][c];
  return s;
});

export const readInt64 = cuda.jit((i64Out: BigInt64Array, u64Out: BigUint64Array, tableOut: BigInt64Array) => {
  const a = cuda.const.arrayLike(I64_EDGES);
  const b = cuda.const.arrayLike(U64_EDGES);
  const t = cuda.const.arrayLike(I64_TABLE);
  const i = cuda.grid(1);
  if (i < a.length) i64Out[i] = a[i];
  if (i < b.length) u64Out[i] = b[i];
  if (i < t.shape[0] * t.shape[1]) tableOut[i] = t[(i / t.shape[1]) | 0][i % t.shape[1]] * 2n;
});

export const readHalves = cuda.jit((out: Float16Array, reciprocals: Float16Array, rowSums: Float16Array) => {
  const h = cuda.const.arrayLike(HALVES);
  const t = cuda.const.arrayLike(HALF_TABLE);
  const i = cuda.grid(1);
  if (i < h.length) {
    out[i] = h[i];
    reciprocals[i] = 1 / h[i]; // -Infinity for -0: the sign of zero survives
  }
  if (i < t.shape[0]) rowSums[i] = rowSum(t, i);
});

export const readComplex = cuda.jit((z64: Array1D<c64>, z128: Array1D<c128>, special: Array1D<c64>, table: Array1D<c128>) => {
  const a = cuda.const.arrayLike(Z64);
  const b = cuda.const.arrayLike(Z128);
  const s = cuda.const.arrayLike(Z64_SPECIAL);
  const i = cuda.grid(1);
  if (i < a.length) z64[i] = a[i];
  if (i < b.length) z128[i] = b[i];
  if (i < s.length) special[i] = s[i];
  const t = cuda.const.arrayLike(Z_TABLE);
  if (i < t.shape[0] * t.shape[1]) table[i] = t[i >> 1][i & 1];
});
