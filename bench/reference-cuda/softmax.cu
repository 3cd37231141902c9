// Hand-written CUDA C++ for test/corpus/valid/softmax.ts (x, out: rows x cols, one block per row).
#define TPB 128

extern "C" __global__ void softmaxRows(const float* __restrict__ x, float* __restrict__ out, int cols) {
  __shared__ float red[TPB];
  int row = blockIdx.x;
  int t = threadIdx.x;
  const float* xr = x + row * cols;
  float* outr = out + row * cols;
  float m = xr[0];
  for (int c = t; c < cols; c += TPB) m = fmaxf(m, xr[c]);
  red[t] = m;
  __syncthreads();
  for (int s = TPB / 2; s > 0; s >>= 1) {
    if (t < s) red[t] = fmaxf(red[t], red[t + s]);
    __syncthreads();
  }
  float rowMax = red[0];
  __syncthreads();
  float sum = 0.0f;
  for (int c = t; c < cols; c += TPB) {
    float e = expf(xr[c] - rowMax);
    outr[c] = e;
    sum += e;
  }
  red[t] = sum;
  __syncthreads();
  for (int s = TPB / 2; s > 0; s >>= 1) {
    if (t < s) red[t] += red[t + s];
    __syncthreads();
  }
  float total = red[0];
  for (int c = t; c < cols; c += TPB) outr[c] = outr[c] / total;
}
