// Device functions that use shared memory. No mistakes here: each is within the limit by itself.
import { cuda, f32 } from "cudascript";

export const STAGE = 8192;

/** Sums `x[0..STAGE)` cooperatively through a 32 KiB shared stage; every thread of the block gets the total. */
export const stagedSum = cuda.device((x: Float32Array): f32 => {
  const stage = cuda.shared.array(STAGE, f32);
  const t = cuda.threadIdx.x;
  for (let k = t; k < STAGE; k += cuda.blockDim.x) stage[k] = k < x.length ? x[k] : 0;
  cuda.syncthreads();
  let s: f32 = 0;
  for (let k = 0; k < STAGE; k++) s += stage[k];
  cuda.syncthreads();
  return s;
});

/** A small scratch pad: 1 KiB. */
export const warpScratch = cuda.device((v: f32): f32 => {
  const pad = cuda.shared.array(256, f32);
  const t = cuda.threadIdx.x;
  pad[t] = v;
  cuda.syncthreads();
  return pad[t ^ 1];
});
