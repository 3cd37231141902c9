// Hand-written CUDA C++ for test/corpus/valid/dot_product.ts.
#define TPB 256

extern "C" __global__ void dotBlocks(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ result, int n) {
  __shared__ float cache[TPB];
  int t = threadIdx.x;
  int stride = blockDim.x * gridDim.x;
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += a[i] * b[i];
  cache[t] = acc;
  __syncthreads();
  for (int s = TPB / 2; s > 0; s /= 2) {
    if (t < s) cache[t] += cache[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(result, cache[0]);
}

extern "C" __global__ void dotAtomic(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ result, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(result, a[i] * b[i]);
}
