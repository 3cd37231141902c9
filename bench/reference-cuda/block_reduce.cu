// Hand-written CUDA C++ for test/corpus/valid/block_reduce.ts.
#define TPB 128

extern "C" __global__ void blockSum(const float* __restrict__ x, float* __restrict__ partial, int n) {
  __shared__ float tile[TPB];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[t] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (int s = TPB / 2; s > 0; s >>= 1) {
    if (t < s) tile[t] += tile[t + s];
    __syncthreads();
  }
  if (t == 0) partial[blockIdx.x] = tile[0];
}
