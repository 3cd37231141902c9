// Hand-written CUDA C++ for test/corpus/valid/transpose.ts (a: rows x cols, out: cols x rows).
#define TILE 16

extern "C" __global__ void transpose(const float* __restrict__ a, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  int inCol = blockIdx.x * TILE + tx;
  int inRow = blockIdx.y * TILE + ty;
  if (inRow < rows && inCol < cols) tile[ty][tx] = a[inRow * cols + inCol];
  __syncthreads();
  int outCol = blockIdx.y * TILE + tx;
  int outRow = blockIdx.x * TILE + ty;
  if (outRow < cols && outCol < rows) out[outRow * rows + outCol] = tile[tx][ty];
}
