// Hand-written CUDA C++ for test/corpus/valid/warp_reduce.ts.
extern "C" __global__ void warpSum(const float* __restrict__ x, float* __restrict__ result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0) atomicAdd(result, v);
}

extern "C" __global__ void warpSumI32(const int* __restrict__ x, int* __restrict__ result, int* __restrict__ perWarp, int n, int warps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? x[i] : 0;
  for (int mask = 16; mask >= 1; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
  int warp = i / 32;
  if ((threadIdx.x & 31) == 31 && warp < warps) perWarp[warp] = v;
  if ((threadIdx.x & 31) == 0) atomicAdd(result, v);
}
