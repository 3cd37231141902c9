// Hand-written CUDA C++ for test/corpus/valid/saxpy.ts (the bench's code-quality reference).
extern "C" __global__ void saxpy(float a, const float* __restrict__ x, const float* __restrict__ y, float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a * x[i] + y[i];
}

extern "C" __global__ void saxpyInPlace(float a, const float* __restrict__ x, float* __restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  y[i] += a * x[i];
}
