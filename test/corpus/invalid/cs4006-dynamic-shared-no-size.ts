import { reverseInBlock } from "./cs4001-helpers";
import { cuda, f32 } from "cudascript";

export const prefixInBlock = cuda.jit((x: Float32Array, out: Float32Array) => {
  const buf = cuda.shared.array(0, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  buf[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let off = 1; off < cuda.blockDim.x; off <<= 1) {
    const v: f32 = t >= off ? buf[t - off] : 0;
    cuda.syncthreads();
    buf[t] += v;
    cuda.syncthreads();
  }
  if (i < out.length) out[i] = buf[t];
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(4096);
  prefixInBlock.launch(16, 256)(x, out); // @expect CS4006
  reverseInBlock.launch(16, 256)(x, out); // @expect CS4006
  prefixInBlock.launch(16, 256, { sharedMem: 256 * 4 })(x, out);
  return out;
}
