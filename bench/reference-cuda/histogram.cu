// Hand-written CUDA C++ for test/corpus/valid/histogram.ts and histogram_shared.ts.
#define NBINS 16
#define NBINS_SHARED 64

extern "C" __global__ void histogram(const int* __restrict__ values, unsigned* __restrict__ hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&hist[values[i]], 1u);
}

extern "C" __global__ void histogramF32(const float* __restrict__ x, float lo, float hi, int* __restrict__ hist, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int bin = (int)((x[i] - lo) / (hi - lo) * NBINS);
    if (bin < 0) bin = 0;
    else if (bin >= NBINS) bin = NBINS - 1;
    atomicAdd(&hist[bin], 1);
  }
}

extern "C" __global__ void histogramShared(const int* __restrict__ values, unsigned* __restrict__ hist, int n) {
  __shared__ unsigned local[NBINS_SHARED];
  int t = threadIdx.x;
  for (int b = t; b < NBINS_SHARED; b += blockDim.x) local[b] = 0;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[values[i] & (NBINS_SHARED - 1)], 1u);
  __syncthreads();
  for (int b = t; b < NBINS_SHARED; b += blockDim.x) {
    unsigned count = local[b];
    if (count > 0) atomicAdd(&hist[b], count);
  }
}
