import { cuda, f32 } from "cudascript";

const K = 4;

/** A local array bound with `let` (the author meant to swap buffers later). */
export const iterate = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i * K + K > x.length) return;
  let cur = cuda.local.array(K, f32); // @expect CS3005
  for (let k = 0; k < K; k++) cur[k] = x[i * K + k];
  let s: f32 = 0;
  for (let k = 0; k < K; k++) s += cur[k];
  out[i] = s;
});

export const iterateOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i * K + K > x.length) return;
  const cur = cuda.local.array(K, f32);
  for (let k = 0; k < K; k++) cur[k] = x[i * K + k];
  let s: f32 = 0;
  for (let k = 0; k < K; k++) s += cur[k];
  out[i] = s;
});
