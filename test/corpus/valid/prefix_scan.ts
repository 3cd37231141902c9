import { cuda, f32, i32 } from "cudascript";

const TPB = 128;
/** Elements per block for the Blelloch scan: two per thread. */
const SCAN_N = 2 * TPB;

/** Hillis-Steele inclusive scan within each block of TPB elements (launch with blockDim.x == TPB). */
export const scanHillisSteele = cuda.jit((x: Int32Array, out: Int32Array) => {
  const tile = cuda.shared.array(TPB, i32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  tile[t] = i < x.length ? x[i] : 0;
  cuda.syncthreads();
  for (let offset = 1; offset < TPB; offset <<= 1) {
    let v = 0;
    if (t >= offset) {
      v = tile[t - offset];
    }
    cuda.syncthreads();
    tile[t] += v;
    cuda.syncthreads();
  }
  if (i < out.length) {
    out[i] = tile[t];
  }
});

/**
 * Blelloch (work-efficient) scan of SCAN_N elements per block with TPB threads; the exclusive result
 * plus the input gives the inclusive scan of each block.
 */
export const scanBlelloch = cuda.jit((x: Float32Array, out: Float32Array) => {
  const temp = cuda.shared.array(SCAN_N, f32);
  const t = cuda.threadIdx.x;
  const base = cuda.blockIdx.x * SCAN_N;
  const n = x.length;
  const a = 2 * t;
  const b = 2 * t + 1;
  temp[a] = base + a < n ? x[base + a] : 0;
  temp[b] = base + b < n ? x[base + b] : 0;
  let offset = 1;
  for (let d = SCAN_N >> 1; d > 0; d >>= 1) {
    cuda.syncthreads();
    if (t < d) {
      const ai = offset * (2 * t + 1) - 1;
      const bi = offset * (2 * t + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (t === 0) {
    temp[SCAN_N - 1] = 0;
  }
  for (let d = 1; d < SCAN_N; d *= 2) {
    offset >>= 1;
    cuda.syncthreads();
    if (t < d) {
      const ai = offset * (2 * t + 1) - 1;
      const bi = offset * (2 * t + 2) - 1;
      const held = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += held;
    }
  }
  cuda.syncthreads();
  if (base + a < n) {
    out[base + a] = temp[a] + x[base + a];
  }
  if (base + b < n) {
    out[base + b] = temp[b] + x[base + b];
  }
});
