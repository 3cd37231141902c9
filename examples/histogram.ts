/**
 * A 256-bin histogram of 2M bytes, twice: with global atomics, and privatized per block in shared
 * memory (shared atomics, then one global atomic per bin and block).
 *
 *   npx cudascript run examples/histogram.ts
 */
import { cuda, u32, type Array1D, type u8 } from "cudascript";

const NBINS = 256;

export const histogramGlobal = cuda.jit((data: Array1D<u8>, hist: Array1D<u32>) => {
  const stride = cuda.gridsize(1);
  for (let i = cuda.grid(1); i < data.length; i += stride) {
    cuda.atomic.add(hist, data[i], 1);
  }
});

export const histogramShared = cuda.jit((data: Array1D<u8>, hist: Array1D<u32>) => {
  const bins = cuda.shared.array(NBINS, u32);
  const t = cuda.threadIdx.x;
  for (let b = t; b < NBINS; b += cuda.blockDim.x) {
    bins[b] = 0;
  }
  cuda.syncthreads();
  const stride = cuda.gridsize(1);
  for (let i = cuda.grid(1); i < data.length; i += stride) {
    cuda.atomic.add(bins, data[i], 1);
  }
  cuda.syncthreads();
  for (let b = t; b < NBINS; b += cuda.blockDim.x) {
    if (bins[b] > 0) {
      cuda.atomic.add(hist, b, bins[b]);
    }
  }
});

const n = 2_000_000;
const data = new Uint8Array(n);
let seed = 12345;
for (let i = 0; i < n; i++) {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  // A skewed distribution so bins differ.
  data[i] = ((seed >>> 16) & 255) & ((seed >>> 8) & 255 | 15);
}
const expected = new Uint32Array(NBINS);
for (let i = 0; i < n; i++) expected[data[i]!]!++;

const dData = cuda.toDevice(data);
const results: string[] = [];
let ok = true;
for (const [name, kernel] of [["global atomics", histogramGlobal], ["shared-memory privatized", histogramShared]] as const) {
  // The bins start at 0 because we copy zeros there (Numba's cuda.to_device(np.zeros(NBINS, np.uint32))):
  // the atomics add into whatever the memory holds, and a CUDA device_array holds garbage.
  const dHist = cuda.toDevice(new Uint32Array(NBINS));
  kernel.launch(128, 256)(dData, dHist);
  const hist = dHist.copyToHost();
  let wrong = 0;
  for (let b = 0; b < NBINS; b++) if (hist[b] !== expected[b]) wrong++;
  if (wrong) ok = false;
  results.push(`${name}: ${wrong} wrong bins`);
}
let top = 0;
for (let b = 1; b < NBINS; b++) if (expected[b]! > expected[top]!) top = b;
console.log(`histogram: ${n} bytes into ${NBINS} bins (fullest: bin ${top} with ${expected[top]}); ${results.join(", ")} — ${ok ? "OK" : "FAILED"}`);
if (!ok) process.exitCode = 1;
