import { cuda, f32 } from "cudascript";

const TPB = 256;
const WARPS = TPB >> 5;

/** Warp leaders write per-warp sums, then only they wait. */
export const warpSums = cuda.jit((x: Float32Array, out: Float32Array) => {
  const sums = cuda.shared.array(WARPS, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  let v: f32 = i < x.length ? x[i] : 0;
  for (let off = 16; off > 0; off >>= 1) v += cuda.shflDownSync(0xffffffff, v, off);
  if (cuda.laneid === 0) {
    sums[t >> 5] = v;
    cuda.syncthreads(); // @expect CS5001
  }
  if (t === 0) {
    let s: f32 = 0;
    for (let w = 0; w < WARPS; w++) s += sums[w];
    out[cuda.blockIdx.x] = s;
  }
});

/** The branch depends on data read at the thread's own index. */
export const maskedSync = cuda.jit((x: Float32Array, mask: Int32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  const active = i < mask.length ? mask[i] : 0;
  if (active !== 0) {
    cuda.syncthreads(); // @expect CS5001
    tile[t] *= 2;
  }
  if (i < out.length) out[i] = tile[t];
});

/** Reading a block-uniform element (index 0) is fine. */
export const flagSyncOk = cuda.jit((x: Float32Array, flags: Int32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  if (flags[0] !== 0) {
    cuda.syncthreads();
    tile[t] *= 2;
  }
  if (i < out.length) out[i] = tile[t];
});
