import { cuda, f32 } from "cudascript";

const TILE = 16;
const HALO = 0;
/** Tiles per halo: HALO is 0 in this configuration. */
const TILES_PER_HALO = (TILE / HALO) | 0; // @expect CS2016

export const haloCopy = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i % TILES_PER_HALO];
  }
});

export const bucketize = cuda.jit((x: Float32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const spare = (TILE % (TILE - 16)) | 0; // @expect CS2016
  const v: f32 = x[i];
  out[i] = (v * TILE) | 0;
});
