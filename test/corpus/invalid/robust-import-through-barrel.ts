import { cuda, f32 } from "cudascript";
import { TILE, frameCounter, luminance } from "./robust-reexport-barrel";

/** Names imported through a re-export are resolved to their original declarations. */
export const tinted = cuda.jit((r: Float32Array, g: Float32Array, b: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TILE, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.grid(1);
  if (t < TILE) tile[t] = t;
  cuda.syncthreads();
  if (i < out.length) {
    out[i] = luminance(r[i], g[i], b[i]) + tile[t % TILE] * frameCounter; // @expect CS1010
  }
});
