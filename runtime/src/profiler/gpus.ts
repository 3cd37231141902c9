/**
 * GPUs the profiler's roofline estimate can be made for (`cudascript profile --gpu a100`): each with
 * its architecture in the occupancy calculator's table (compiler/src/occupancy/archs.ts, the same
 * `sm_XX` names), its DRAM bandwidth and its peak (non-tensor-core) FP32 and FP64 rates.
 *
 * Sources (NVIDIA's product datasheets; the FP64 rates of consumer parts are their documented
 * fraction of FP32 — 1/32 for Turing, 1/64 for GA10x/AD10x — as the CUDA Programming Guide's
 * "Arithmetic Instructions" throughput table gives it):
 * - V100 SXM2: "NVIDIA Tesla V100 GPU Accelerator" datasheet — 900 GB/s, 15.7 / 7.8 TFLOPS.
 * - T4: "NVIDIA T4 Tensor Core GPU" datasheet — 320 GB/s, 8.1 TFLOPS FP32; FP64 1/32 of it.
 * - A100 SXM4 40GB: "NVIDIA A100 Tensor Core GPU" datasheet — 1,555 GB/s, 19.5 / 9.7 TFLOPS.
 * - A100 SXM4 80GB: same datasheet — 2,039 GB/s, 19.5 / 9.7 TFLOPS.
 * - RTX 3090: GeForce RTX 3090 specifications / "NVIDIA Ampere GA102 GPU Architecture" whitepaper —
 *   936 GB/s, 35.6 TFLOPS FP32; FP64 1/64 of it.
 * - L4: "NVIDIA L4 Tensor Core GPU" datasheet — 300 GB/s, 30.3 TFLOPS FP32; FP64 1/64 of it.
 * - RTX 4090: "NVIDIA Ada GPU Architecture" whitepaper — 1,008 GB/s, 82.6 TFLOPS FP32; FP64 1/64.
 * - H100 SXM5: "NVIDIA H100 Tensor Core GPU" datasheet — 3,350 GB/s, 67 / 34 TFLOPS.
 * docs/profiling.md repeats the table.
 */
import { CudaScriptError } from "../errors";

export interface GpuSpec {
  /** What `--gpu` takes. */
  readonly id: string;
  readonly name: string;
  /** The occupancy calculator's architecture (`sm_80`). */
  readonly arch: string;
  /** DRAM bandwidth, bytes per second. */
  readonly bandwidth: number;
  /** Peak FP32 (and f16 as simulated: counted with f32) operations per second, without tensor cores. */
  readonly peakSingle: number;
  /** Peak FP64 operations per second. */
  readonly peakDouble: number;
}

const G = 1e9, T = 1e12;

export const GPUS: readonly GpuSpec[] = [
  { id: "v100", name: "Tesla V100 SXM2", arch: "sm_70", bandwidth: 900 * G, peakSingle: 15.7 * T, peakDouble: 7.8 * T },
  { id: "t4", name: "T4", arch: "sm_75", bandwidth: 320 * G, peakSingle: 8.1 * T, peakDouble: (8.1 * T) / 32 },
  { id: "a100", name: "A100 SXM4 40GB", arch: "sm_80", bandwidth: 1555 * G, peakSingle: 19.5 * T, peakDouble: 9.7 * T },
  { id: "a100-80gb", name: "A100 SXM4 80GB", arch: "sm_80", bandwidth: 2039 * G, peakSingle: 19.5 * T, peakDouble: 9.7 * T },
  { id: "rtx3090", name: "GeForce RTX 3090", arch: "sm_86", bandwidth: 936 * G, peakSingle: 35.6 * T, peakDouble: (35.6 * T) / 64 },
  { id: "l4", name: "L4", arch: "sm_89", bandwidth: 300 * G, peakSingle: 30.3 * T, peakDouble: (30.3 * T) / 64 },
  { id: "rtx4090", name: "GeForce RTX 4090", arch: "sm_89", bandwidth: 1008 * G, peakSingle: 82.6 * T, peakDouble: (82.6 * T) / 64 },
  { id: "h100", name: "H100 SXM5", arch: "sm_90", bandwidth: 3350 * G, peakSingle: 67 * T, peakDouble: 34 * T },
];

/** The default GPU of the estimate: the simulator models an A100's limits (docs/simulator.md). */
export const DEFAULT_GPU = "a100";

/** The GPU named `id` (case and `-`/`_`/spaces ignored); CSR090 naming the known ones otherwise. */
export function gpuSpec(id: string): GpuSpec {
  const norm = (s: string) => s.toLowerCase().replace(/[\s_]/g, "-");
  const g = GPUS.find((x) => x.id === norm(id) || x.id.replace(/-/g, "") === norm(id).replace(/-/g, ""));
  if (!g) throw new CudaScriptError("CSR090", `--gpu ${id}: no such GPU in the profiler's table; write one of ${GPUS.map((x) => x.id).join(", ")}`);
  return g;
}
