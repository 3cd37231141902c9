// Kernels shared by several host modules. No mistakes here.
import { cuda, f32, i32 } from "cudascript";

export const BLOCK = 256;

export const fill = cuda.jit((out: Float32Array, v: f32) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = v;
});

export const iota = cuda.jit((out: Int32Array, start: i32) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = start + i;
});

/** Uses dynamic shared memory: launch with { sharedMem: blockDim.x * 4 }. */
export const reverseInBlock = cuda.jit((x: Float32Array, out: Float32Array) => {
  const buf = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  buf[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  if (i < out.length) out[i] = buf[cuda.blockDim.x - 1 - t];
});
