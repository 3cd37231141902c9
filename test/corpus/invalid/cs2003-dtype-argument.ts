import { cuda, f32, i32 } from "cudascript";

const TPB = 64;

/** Dtypes given as a string and as a typed-array constructor instead of the dtype values. */
export const blockMax = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, "f32"); // @expect CS2003
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : -1e30;
  cuda.syncthreads();
  if (t === 0) {
    let m: f32 = tile[0];
    for (let k = 1; k < TPB; k++) m = Math.max(m, tile[k]);
    out[cuda.blockIdx.x] = m;
  }
});

export const histLocal = cuda.jit((bins: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const counts = cuda.local.array(4, Int32Array); // @expect CS2003
  for (let k = 0; k < 4; k++) counts[k] = 0;
  counts[bins[i] & 3] += 1;
  out[i] = counts[0];
});

export const histLocalOk = cuda.jit((bins: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const counts = cuda.local.array(4, i32);
  for (let k = 0; k < 4; k++) counts[k] = 0;
  counts[bins[i] & 3] += 1;
  out[i] = counts[0];
});
