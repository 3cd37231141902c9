import { cuda, f32, i32 } from "cudascript";
import { TILE, TILE_WITH_HALO, frameCounter, startedAt, luminance } from "./cs1010-helpers";

/** Stamps each pixel with the current frame number (read from another module's `let`). */
export const stampFrame = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = frameCounter; // @expect CS1010
  }
});

/** Mixes the host start time into a hash seed. */
export const seedHash = cuda.jit((out: Uint32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const s: i32 = startedAt & 0xffff; // @expect CS1010
    out[i] = i ^ s;
  }
});

/** Imported compile-time constants and device functions are fine. */
export const gray = cuda.jit((r: Float32Array, g: Float32Array, b: Float32Array, out: Float32Array) => {
  const bias = cuda.shared.array(TILE_WITH_HALO, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (t < TILE_WITH_HALO) bias[t] = t < TILE ? 0 : 1;
  cuda.syncthreads();
  if (i < out.length) {
    out[i] = luminance(r[i], g[i], b[i]) + bias[t % TILE_WITH_HALO];
  }
});
