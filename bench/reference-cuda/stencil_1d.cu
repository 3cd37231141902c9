// Hand-written CUDA C++ for test/corpus/valid/stencil_1d.ts.
#define TPB 128
#define RADIUS 2

extern "C" __global__ void stencil5(const float* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float s[TPB + 2 * RADIUS];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[t + RADIUS] = i < n ? x[i] : 0.0f;
  if (t < RADIUS) {
    int left = i - RADIUS;
    s[t] = left >= 0 && left < n ? x[left] : 0.0f;
    int right = i + TPB;
    s[t + TPB + RADIUS] = right < n ? x[right] : 0.0f;
  }
  __syncthreads();
  if (i < n) out[i] = 0.1f * s[t] + 0.2f * s[t + 1] + 0.4f * s[t + 2] + 0.25f * s[t + 3] + 0.05f * s[t + 4];
}

extern "C" __global__ void stencil3Clamped(const float* __restrict__ x, float* __restrict__ out, float wl, float wc, float wr, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int l = i > 0 ? i - 1 : 0;
    int r = i < n - 1 ? i + 1 : n - 1;
    out[i] = wl * x[l] + wc * x[i] + wr * x[r];
  }
}
