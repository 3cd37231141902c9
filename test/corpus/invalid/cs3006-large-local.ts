import { cuda, f32, i32 } from "cudascript";

/** A 32 KiB per-thread scratch buffer: it lives in slow local memory and limits occupancy. */
export const bigScratch = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const scratch = cuda.local.array(8192, f32); // @expect CS3006
  scratch[0] = x[i];
  out[i] = scratch[0];
});

/** 64 x 128 i32 = 32 KiB as well. */
export const bigTable = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const table = cuda.local.array([64, 128], i32); // @expect CS3006
  table[0][0] = i;
  out[i] = table[0][0];
});

/** 16 KiB exactly is not "larger than 16 KiB". */
export const atLimit = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const scratch = cuda.local.array(4096, f32);
  scratch[0] = x[i];
  out[i] = scratch[0];
});
