import { cuda, f16, f32, i32, i64, c128, type Complex128Array } from "cudascript";

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

/** 2100 c128 = 33,600 bytes (16 bytes each): over the limit although it has few elements. */
export const bigComplex = cuda.jit((out: Complex128Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const acc = cuda.local.array(2100, c128); // @expect CS3006
  acc[0] = out[i];
  out[i] = acc[0];
});

/** 3000 i64 = 24,000 bytes (8 bytes each). */
export const bigInt64 = cuda.jit((out: BigInt64Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const t = cuda.local.array(3000, i64); // @expect CS3006
  t[0] = out[i];
  out[i] = t[0];
});

/** 5000 f16 = 10,000 bytes (2 bytes each): under the limit. */
export const halfScratch = cuda.jit((out: Float16Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const h = cuda.local.array(5000, f16);
  h[0] = out[i];
  out[i] = h[0];
});
