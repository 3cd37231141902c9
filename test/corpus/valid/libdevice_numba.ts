import { cuda } from "cudascript";

/**
 * Numba's cuda.libdevice (docs/libdevice.md): functions of each family, tuple results destructured,
 * Numba's names and argument types — exact ones compared bit for bit, the others within CUDA's bound.
 */
export const libdeviceF64 = cuda.jit((x: Float64Array, out: Float64Array, exps: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= x.length) return;
  const [s, c] = cuda.libdevice.sincos(x[i]);
  const [m, e] = cuda.libdevice.frexp(x[i]);
  out[i * 6] = s;
  out[i * 6 + 1] = c;
  out[i * 6 + 2] = m;
  // Python's round(): half to even.
  out[i * 6 + 3] = cuda.libdevice.rint(x[i] * 2);
  out[i * 6 + 4] = cuda.libdevice.fdim(x[i], 1);
  out[i * 6 + 5] = cuda.libdevice.ldexp(x[i], 3);
  exps[i] = e;
});

export const libdeviceInt = cuda.jit((a: Int32Array, out: Int32Array, wide: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  out[i * 4] = cuda.libdevice.byte_perm(a[i], 0x01234567, 0x3210 + i);
  out[i * 4 + 1] = cuda.libdevice.popc(a[i]);
  out[i * 4 + 2] = cuda.libdevice.mulhi(a[i], 0x7fffffff);
  out[i * 4 + 3] = cuda.libdevice.sad(a[i], -a[i], 5);
  wide[i] = cuda.libdevice.brevll(BigInt(a[i]));
});
