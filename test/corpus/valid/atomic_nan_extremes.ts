import { cuda } from "cudascript";

/**
 * The largest and smallest reading, NaN marking a missing one (as numpy's nanmax/nanmin):
 * result[0] = nanmax(x), result[1] = nanmin(x), both pre-set to NaN ("no reading yet"), which the
 * first real reading replaces.
 */
export const nanExtremesF32 = cuda.jit((x: Float32Array, result: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    cuda.atomic.nanmax(result, 0, x[i]);
    cuda.atomic.nanmin(result, 1, x[i]);
  }
});

/**
 * atomic.max/min skip NaN values too, but keep a NaN the array already holds: result[0] / result[1]
 * (pre-set to -Infinity / Infinity) become the max / min of the non-NaN readings, result[2] (pre-set
 * to NaN) stays NaN, and result[3] (nanmax, pre-set to NaN) becomes the max. old[i] is what
 * atomic.max returned on result[2]: always NaN.
 */
export const extremesF64 = cuda.jit((x: Float64Array, result: Float64Array, old: Float64Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    cuda.atomic.max(result, 0, x[i]);
    cuda.atomic.min(result, 1, x[i]);
    old[i] = cuda.atomic.max(result, 2, x[i]);
    cuda.atomic.nanmax(result, 3, x[i]);
  }
});

/** On integer arrays (no NaN) nanmax / nanmin are max / min. */
export const intNanExtremes = cuda.jit((x: Int32Array, result: Uint32Array, signed: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) {
    cuda.atomic.nanmax(signed, 0, x[i]);
    cuda.atomic.nanmin(signed, 1, x[i]);
    cuda.atomic.nanmax(result, 0, x[i] & 0xffff);
    cuda.atomic.nanmin(result, 1, x[i] & 0xffff);
  }
});
