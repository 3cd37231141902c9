import { cuda, f32 } from "cudascript";
import { stagedSum, warpScratch } from "./cs3003-helpers";

const LOCAL_STAGE = 6144;

/** 24 KiB here plus 32 KiB inside stagedSum: 56 KiB per block. */
export const normalizeByTotal = cuda.jit((x: Float32Array, out: Float32Array) => { // @expect CS3003
  const mine = cuda.shared.array(LOCAL_STAGE, f32);
  const t = cuda.threadIdx.x;
  for (let k = t; k < LOCAL_STAGE; k += cuda.blockDim.x) mine[k] = k < x.length ? x[k] : 0;
  cuda.syncthreads();
  const total = stagedSum(x);
  const i = cuda.grid(1);
  if (i < out.length && i < LOCAL_STAGE) out[i] = mine[i] / total;
});

/** 32 KiB + 1 KiB: fine. */
export const normalizeOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const total = stagedSum(x);
  const i = cuda.grid(1);
  const v = warpScratch(i < x.length ? x[i] : 0);
  if (i < out.length) out[i] = v / total;
});
