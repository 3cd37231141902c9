import { cuda, f32 } from "cudascript";

const K = 8;

/** Per-thread insertion sort of K values; the scratch buffer was allocated with `new`. */
export const sortChunks = cuda.jit((x: Float32Array, out: Float32Array) => {
  const chunk = cuda.grid(1);
  const base = chunk * K;
  if (base + K > x.length) return;
  const scratch = new Float32Array(K); // @expect CS1003
  for (let k = 0; k < K; k++) scratch[k] = x[base + k];
  for (let k = 1; k < K; k++) {
    const v = scratch[k];
    let j = k - 1;
    while (j >= 0 && scratch[j] > v) {
      scratch[j + 1] = scratch[j];
      j--;
    }
    scratch[j + 1] = v;
  }
  for (let k = 0; k < K; k++) out[base + k] = scratch[k];
});

/** The fix: a per-thread local array with a constant size. */
export const sortChunksLocal = cuda.jit((x: Float32Array, out: Float32Array) => {
  const chunk = cuda.grid(1);
  const base = chunk * K;
  if (base + K > x.length) return;
  const scratch = cuda.local.array(K, f32);
  for (let k = 0; k < K; k++) scratch[k] = x[base + k];
  for (let k = 1; k < K; k++) {
    const v = scratch[k];
    let j = k - 1;
    while (j >= 0 && scratch[j] > v) {
      scratch[j + 1] = scratch[j];
      j--;
    }
    scratch[j + 1] = v;
  }
  for (let k = 0; k < K; k++) out[base + k] = scratch[k];
});
