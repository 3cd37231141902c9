// Hand-written CUDA C++ for test/corpus/valid/matmul_tiled.ts (row-major A: M x K, B: K x N, C: M x N).
#define TILE 16

extern "C" __global__ void matmulTiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int K, int N) {
  __shared__ float sA[TILE][TILE];
  __shared__ float sB[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  int numTiles = (K + TILE - 1) / TILE;
  float acc = 0.0f;
  for (int tile = 0; tile < numTiles; tile++) {
    int aCol = tile * TILE + tx;
    int bRow = tile * TILE + ty;
    sA[ty][tx] = row < M && aCol < K ? A[row * K + aCol] : 0.0f;
    sB[ty][tx] = bRow < K && col < N ? B[bRow * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < TILE; k++) acc += sA[ty][k] * sB[k][tx];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void matmulNaive(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int K, int N) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  int col = blockIdx.y * blockDim.y + threadIdx.y;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
