import { cuda, i32 } from "cudascript";

const K = 16;

/** Per-thread compaction of a chunk of K values: indices of the positive ones. */
export const compactChunk = cuda.jit((x: Float32Array, idx: Int32Array, counts: Int32Array) => {
  const chunk = cuda.grid(1);
  const base = chunk * K;
  if (base + K > x.length) return;
  let n = 0;
  for (let k = 0; k < K; k++) {
    if (x[base + k] > 0) idx[base + n++] = base + k; // @expect CS1017
  }
  counts[chunk] = n;
});

export const compactChunkOk = cuda.jit((x: Float32Array, idx: Int32Array, counts: Int32Array) => {
  const chunk = cuda.grid(1);
  const base = chunk * K;
  if (base + K > x.length) return;
  let n: i32 = 0;
  for (let k = 0; k < K; k++) {
    if (x[base + k] > 0) {
      idx[base + n] = base + k;
      n++;
    }
  }
  counts[chunk] = n;
});
