import { cuda, f32 } from "cudascript";
import { frameCounter, TILE } from "./cs1010-helpers";

/** A shared array sized by another module's mutable `let`. */
export const framesTile = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(frameCounter, f32); // @expect CS3002
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  if (i < out.length) out[i] = tile[t];
});

/** An imported compile-time constant is fine. */
export const tileCopy = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TILE * TILE, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (t < TILE * TILE && i < x.length) tile[t] = x[i];
  cuda.syncthreads();
  if (t < TILE * TILE && i < out.length) out[i] = tile[TILE * TILE - 1 - t];
});
