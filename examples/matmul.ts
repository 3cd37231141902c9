/**
 * C = A × B with 16×16 shared-memory tiles, on matrices whose sizes are not multiples of the tile.
 *
 *   npx cudascript run examples/matmul.ts
 */
import { cuda, f32, type Array2D } from "cudascript";

const TILE = 16;

export const matmulTiled = cuda.jit((A: Array2D<f32>, B: Array2D<f32>, C: Array2D<f32>) => {
  const sA = cuda.shared.array([TILE, TILE], f32);
  const sB = cuda.shared.array([TILE, TILE], f32);
  const tx = cuda.threadIdx.x;
  const ty = cuda.threadIdx.y;
  const row = cuda.blockIdx.y * TILE + ty;
  const col = cuda.blockIdx.x * TILE + tx;
  const M = A.shape[0];
  const K = A.shape[1];
  const N = B.shape[1];
  let acc: f32 = 0;
  for (let t = 0; t < K; t += TILE) {
    sA[ty][tx] = row < M && t + tx < K ? A[row][t + tx] : 0;
    sB[ty][tx] = t + ty < K && col < N ? B[t + ty][col] : 0;
    cuda.syncthreads();
    for (let k = 0; k < TILE; k++) {
      acc += sA[ty][k] * sB[k][tx];
    }
    cuda.syncthreads();
  }
  if (row < M && col < N) {
    C[row][col] = acc;
  }
});

const M = 300, K = 200, N = 250;
const a = new Float32Array(M * K).map((_, i) => ((i * 37) % 101) / 101 - 0.5);
const b = new Float32Array(K * N).map((_, i) => ((i * 53) % 97) / 97 - 0.5);
const A = cuda.ndarray(a, [M, K]);
const B = cuda.ndarray(b, [K, N]);
const dC = cuda.deviceArray([M, N], f32);

const grid: [number, number] = [Math.ceil(N / TILE), Math.ceil(M / TILE)];
matmulTiled.launch(grid, [TILE, TILE])(cuda.toDevice(A), cuda.toDevice(B), dC);
const C = dC.copyToHost();

// Reference: the same f32 operations in the same order (k ascending; padding adds exact zeros).
let maxError = 0;
for (let r = 0; r < M; r++) {
  for (let c = 0; c < N; c++) {
    let acc = 0;
    for (let k = 0; k < K; k++) acc = Math.fround(acc + Math.fround(a[r * K + k]! * b[k * N + c]!));
    maxError = Math.max(maxError, Math.abs(C.data[r * N + c]! - acc));
  }
}
const ok = maxError === 0;
console.log(`matmul: ${M}×${K} · ${K}×${N} with ${TILE}×${TILE} tiles, C[0][0] = ${C[0][0].toFixed(4)}, max |error| ${maxError} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
