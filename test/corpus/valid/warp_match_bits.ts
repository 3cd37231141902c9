import { cuda } from "cudascript";

/**
 * matchAnySync / matchAllSync on f32 and f64 compare bit patterns, as CUDA's match.sync and Numba do:
 * 0 and -0 differ, a NaN matches a NaN with the same bits only (payload and sign). Every lane of the
 * block takes part; lanes past the end hold 2.
 */
export const matchBitsF32 = cuda.jit((x: Float32Array, any: Uint32Array, all: Uint32Array) => {
  const i = cuda.grid(1);
  const v = i < x.length ? x[i] : 2;
  const some = cuda.matchAnySync(0xffffffff, v);
  const every = cuda.matchAllSync(0xffffffff, v);
  if (i < x.length) {
    any[i] = some;
    all[i] = every;
  }
});

export const matchBitsF64 = cuda.jit((x: Float64Array, any: Uint32Array, all: Uint32Array) => {
  const i = cuda.grid(1);
  const v = i < x.length ? x[i] : 2;
  const some = cuda.matchAnySync(0xffffffff, v);
  const every = cuda.matchAllSync(0xffffffff, v);
  if (i < x.length) {
    any[i] = some;
    all[i] = every;
  }
});
