// `cuda` and the dtypes imported under other names.
import { cuda as gpu, f32 as float32, i32 as int32 } from "cudascript";

const TPB = 128;

export const blockSum = gpu.jit((x: Float32Array, partial: Float32Array, tpb: int32) => {
  const tile = gpu.shared.array(tpb, float32); // @expect CS3002
  const t = gpu.threadIdx.x;
  const i = gpu.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  gpu.syncthreads();
  if (t === 0) partial[gpu.blockIdx.x] = tile[0];
});

export const blockSumOk = gpu.jit((x: Float32Array, partial: Float32Array) => {
  const tile = gpu.shared.array(TPB, float32);
  const t = gpu.threadIdx.x;
  const i = gpu.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  gpu.syncthreads();
  if (t === 0) {
    let s: float32 = 0;
    for (let k = 0; k < TPB; k++) s += tile[k];
    partial[gpu.blockIdx.x] = s;
  }
});
