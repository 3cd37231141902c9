import { cuda, f32, i32 } from "cudascript";

const TPB = 128;

/** Block-wide product, with a few misspelled or invented cuda APIs. */
export const blockProduct = cuda.jit((x: Float32Array, out: Float32Array, hits: Int32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 1;
  cuda.syncThreads(); // @expect CS1014
  for (let s = TPB >> 1; s > 0; s >>= 1) {
    if (t < s) tile[t] *= tile[t + s];
    cuda.syncthreads();
  }
  if (t === 0) {
    cuda.atomic.mul(out, 0, tile[0]); // @expect CS1014
    cuda.atomic.add(hits, 0, 1);
  }
});

/** 4-component index: there is no `.w`. */
export const lane4 = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const w: i32 = cuda.threadIdx.w; // @expect CS1014
    out[i] = w + cuda.threadIdx.z;
  }
});
