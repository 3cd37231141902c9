/**
 * Matrix transpose three ways, the textbook lesson in coalescing and bank conflicts — profiled without
 * a GPU (docs/profiling.md):
 *
 *   npx cudascript profile examples/transpose.ts
 *
 * - transposeNaive reads rows (coalesced) and writes columns: each lane of a warp stores into its own
 *   32-byte sector, 32 sectors per request where 4 would do;
 * - transposeTiled stages a 32×32 tile through shared memory so both global accesses are coalesced,
 *   but reads the tile by column: all 32 lanes hit one bank, a 32-way conflict;
 * - transposePadded pads the tile's rows to 33 elements: no conflict left.
 */
import { cuda, f32, type Array2D } from "cudascript";

const TILE = 32;

export const transposeNaive = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const x = cuda.blockIdx.x * TILE + cuda.threadIdx.x;
  const y = cuda.blockIdx.y * TILE + cuda.threadIdx.y;
  out[x][y] = a[y][x];
});

export const transposeTiled = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x, ty = cuda.threadIdx.y;
  tile[ty][tx] = a[cuda.blockIdx.y * TILE + ty][cuda.blockIdx.x * TILE + tx];
  cuda.syncthreads();
  out[cuda.blockIdx.x * TILE + ty][cuda.blockIdx.y * TILE + tx] = tile[tx][ty];
});

export const transposePadded = cuda.jit((a: Array2D<f32>, out: Array2D<f32>) => {
  const tile = cuda.shared.array([TILE, TILE + 1], f32);
  const tx = cuda.threadIdx.x, ty = cuda.threadIdx.y;
  tile[ty][tx] = a[cuda.blockIdx.y * TILE + ty][cuda.blockIdx.x * TILE + tx];
  cuda.syncthreads();
  out[cuda.blockIdx.x * TILE + ty][cuda.blockIdx.y * TILE + tx] = tile[tx][ty];
});

const n = 256;
const a = cuda.ndarray(Float32Array.from({ length: n * n }, (_, i) => i), [n, n]);
let ok = true;
for (const k of [transposeNaive, transposeTiled, transposePadded]) {
  const out = cuda.ndarray(new Float32Array(n * n), [n, n]);
  k.launch([n / TILE, n / TILE], [TILE, TILE])(a, out);
  for (let i = 0; i < n && ok; i++) for (let j = 0; j < n; j++) if (out.data[i * n + j] !== a.data[j * n + i]) ok = false;
}
console.log(ok ? "all three transposes are correct" : "WRONG transpose");
