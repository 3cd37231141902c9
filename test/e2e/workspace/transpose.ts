import { cuda, f32, i32 } from "cudascript";

const TILE = 32;

/**
 * out = the transpose of the n × n matrix a, one element per thread: the loads are coalesced, the
 * stores stride by n (32 sectors per request).
 * @run grid=[1, 1] block=[32, 32] args=[random(32 * 32, f32), zeros(32 * 32, f32), scalar(32)]
 */
export const transposeNaive = cuda.jit((a: Float32Array, out: Float32Array, n: i32) => {
  const x = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x;
  const y = cuda.blockIdx.y * cuda.blockDim.y + cuda.threadIdx.y;
  if (x < n && y < n) {
    out[x * n + y] = a[y * n + x];
  }
});

/**
 * The same through a shared tile: both global accesses coalesced, but the tile's column reads hit one
 * bank 32 times (pad the tile to [TILE][TILE + 1] to spread them).
 * @run grid=[1, 1] block=[32, 32] args=[random(32 * 32, f32), zeros(32 * 32, f32), scalar(32)]
 */
export const transposeTiled = cuda.jit((a: Float32Array, out: Float32Array, n: i32) => {
  const tile = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const i = (cuda.blockIdx.y * TILE + ty) * n + cuda.blockIdx.x * TILE + tx;
  if (i < a.length) tile[ty][tx] = a[i];
  cuda.syncthreads();
  const o = (cuda.blockIdx.x * TILE + ty) * n + cuda.blockIdx.y * TILE + tx;
  if (o < out.length) out[o] = tile[tx][ty];
});
