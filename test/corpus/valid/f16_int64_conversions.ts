import { cuda, Float16Array } from "cudascript";

/**
 * f16 ↔ i64/u64 conversions (found by the conformance matrix, test/conformance): the generated C++ had
 * no conversion between cs_half and a 64-bit integer (g++ and NVRTC: "ambiguous"), and the simulator
 * threw on BigInt(NaN). Now both go through f32, exactly. (`h - h === 0`: h is finite.)
 */
export const halfToInt64 = cuda.jit((h: Float16Array, s: BigInt64Array, u: BigUint64Array) => {
  const i = cuda.grid(1);
  if (i < h.length && h[i] - h[i] === 0) {
    s[i] = BigInt(Math.trunc(h[i]));
    u[i] = BigInt.asUintN(64, BigInt(Math.trunc(Math.abs(h[i]))));
  }
});

export const int64ToHalf = cuda.jit((s: BigInt64Array, u: BigUint64Array, hs: Float16Array, hu: Float16Array) => {
  const i = cuda.grid(1);
  if (i < s.length) {
    hs[i] = Number(s[i]);
    hu[i] = Number(u[i]);
  }
});
