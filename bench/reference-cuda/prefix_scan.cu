// Hand-written CUDA C++ for test/corpus/valid/prefix_scan.ts.
#define TPB 128
#define SCAN_N (2 * TPB)

extern "C" __global__ void scanHillisSteele(const int* __restrict__ x, int* __restrict__ out, int n) {
  __shared__ int tile[TPB];
  int t = threadIdx.x;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[t] = i < n ? x[i] : 0;
  __syncthreads();
  for (int offset = 1; offset < TPB; offset <<= 1) {
    int v = 0;
    if (t >= offset) v = tile[t - offset];
    __syncthreads();
    tile[t] += v;
    __syncthreads();
  }
  if (i < n) out[i] = tile[t];
}

extern "C" __global__ void scanBlelloch(const float* __restrict__ x, float* __restrict__ out, int n) {
  __shared__ float temp[SCAN_N];
  int t = threadIdx.x;
  int base = blockIdx.x * SCAN_N;
  int a = 2 * t, b = 2 * t + 1;
  temp[a] = base + a < n ? x[base + a] : 0.0f;
  temp[b] = base + b < n ? x[base + b] : 0.0f;
  int offset = 1;
  for (int d = SCAN_N >> 1; d > 0; d >>= 1) {
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      temp[bi] += temp[ai];
    }
    offset *= 2;
  }
  if (t == 0) temp[SCAN_N - 1] = 0.0f;
  for (int d = 1; d < SCAN_N; d *= 2) {
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      float held = temp[ai];
      temp[ai] = temp[bi];
      temp[bi] += held;
    }
  }
  __syncthreads();
  if (base + a < n) out[base + a] = temp[a] + x[base + a];
  if (base + b < n) out[base + b] = temp[b] + x[base + b];
}
