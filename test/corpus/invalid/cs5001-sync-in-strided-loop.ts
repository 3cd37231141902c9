import { cuda, f32 } from "cudascript";

const TPB = 128;

/** A thread-strided loop with a barrier inside: threads run different trip counts. */
export const stagedCopy = cuda.jit((x: Float32Array, out: Float32Array) => {
  const stage = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  for (let k = cuda.grid(1); k < x.length; k += cuda.gridsize(1)) {
    stage[t] = x[k];
    cuda.syncthreads(); // @expect CS5001
    out[k] = stage[TPB - 1 - t];
  }
});

/** Loop bound derived from the thread index through a variable. */
export const triangle = cuda.jit((x: Float32Array, out: Float32Array) => {
  const stage = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const rows = t + 1;
  let acc: f32 = 0;
  for (let r = 0; r < rows; r++) {
    stage[t] = x[r];
    cuda.syncthreads(); // @expect CS5001
    acc += stage[r];
  }
  if (t < out.length) out[t] = acc;
});

/** Block-uniform trip count: every thread runs the same iterations. */
export const stagedCopyOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const stage = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  const stride = cuda.gridDim.x * TPB;
  for (let base = cuda.blockIdx.x * TPB; base < x.length; base += stride) {
    const k = base + t;
    stage[t] = k < x.length ? x[k] : 0;
    cuda.syncthreads();
    const j = base + TPB - 1 - t;
    if (j < x.length && k < out.length) out[k] = stage[TPB - 1 - t];
    cuda.syncthreads();
  }
});
