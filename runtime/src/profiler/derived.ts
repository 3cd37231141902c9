/**
 * Figures derived from a launch's (or a line's) counters, and the roofline estimate for a GPU of the
 * table (gpus.ts). Definitions in docs/profiling.md. Ratios with nothing to divide by are null.
 */
import type { ProfileCounters } from "./report";
import { gpuSpec } from "./gpus";

export interface RooflineEstimate {
  /** Plainly: an estimate from counts, not a measurement. */
  readonly label: string;
  readonly gpu: string;
  readonly gpuName: string;
  readonly bandwidthBytesPerSecond: number;
  readonly peakFlopsPerSecond: number;
  /** FLOP per byte where the memory roof meets the compute roof. */
  readonly ridgePoint: number;
  /** Memory- or compute-bound by the counts (arithmetic intensity left or right of the ridge point). */
  readonly boundBy: "memory" | "compute";
  /** Lower bound on the kernel's time: max(bytes / bandwidth, FLOPs / peak), in seconds. */
  readonly lowerBoundSeconds: number;
  /** The attainable FLOP rate at this intensity: min(peak, intensity × bandwidth). */
  readonly attainableFlopsPerSecond: number;
}

export interface DerivedFigures {
  /** Sectors per global load / store request, and the ideal for the lanes and access width. */
  readonly loadSectorsPerRequest: number | null;
  readonly idealLoadSectorsPerRequest: number | null;
  readonly storeSectorsPerRequest: number | null;
  readonly idealStoreSectorsPerRequest: number | null;
  /** Shared wavefronts per request (1 = no bank conflict; n = n-way). */
  readonly sharedLoadConflictFactor: number | null;
  readonly sharedStoreConflictFactor: number | null;
  /** Bank conflicts: wavefronts − requests, loads and stores (and shared atomics). */
  readonly sharedBankConflicts: number;
  /** Non-divergent branches / branches. */
  readonly branchEfficiency: number | null;
  /** Active lanes per global / shared memory request (32 for full warps). */
  readonly lanesPerGlobalRequest: number | null;
  readonly lanesPerSharedRequest: number | null;
  /** Mean most lanes per address over atomic requests. */
  readonly atomicContention: number | null;
  /** Bytes moved between the SMs and memory: global sectors (loads, stores, atomics) × 32. */
  readonly bytesMoved: number;
  readonly flops: number;
  /** FLOPs per byte moved. */
  readonly arithmeticIntensity: number | null;
  readonly estimate?: RooflineEstimate;
}

const ratio = (a: number, b: number): number | null => (b > 0 ? a / b : null);

export function derivedFigures(c: ProfileCounters, gpu?: string): DerivedFigures {
  const bytesMoved = 32 * (c.globalLoadSectors + c.globalStoreSectors + c.globalAtomicSectors);
  const flops = c.flopsSingle + c.flopsDouble;
  const globalRequests = c.globalLoadRequests + c.globalStoreRequests + c.globalAtomicRequests;
  const sharedRequests = c.sharedLoadRequests + c.sharedStoreRequests + c.sharedAtomicRequests;
  const atomicRequests = c.globalAtomicRequests + c.sharedAtomicRequests;
  return {
    loadSectorsPerRequest: ratio(c.globalLoadSectors, c.globalLoadRequests),
    idealLoadSectorsPerRequest: ratio(c.idealGlobalLoadSectors, c.globalLoadRequests),
    storeSectorsPerRequest: ratio(c.globalStoreSectors, c.globalStoreRequests),
    idealStoreSectorsPerRequest: ratio(c.idealGlobalStoreSectors, c.globalStoreRequests),
    sharedLoadConflictFactor: ratio(c.sharedLoadWavefronts, c.sharedLoadRequests),
    sharedStoreConflictFactor: ratio(c.sharedStoreWavefronts, c.sharedStoreRequests),
    sharedBankConflicts: c.sharedLoadWavefronts + c.sharedStoreWavefronts + c.sharedAtomicWavefronts - sharedRequests,
    branchEfficiency: ratio(c.branches - c.divergentBranches, c.branches),
    lanesPerGlobalRequest: ratio(c.globalLoadLanes + c.globalStoreLanes + c.globalAtomicLanes, globalRequests),
    lanesPerSharedRequest: ratio(c.sharedLoadLanes + c.sharedStoreLanes + c.sharedAtomicLanes, sharedRequests),
    atomicContention: ratio(c.atomicContentionSum, atomicRequests),
    bytesMoved,
    flops,
    arithmeticIntensity: ratio(flops, bytesMoved),
    ...(gpu ? { estimate: roofline(c, bytesMoved, gpu) } : {}),
  };
}

/** The roofline placement and lower-bound time of a launch on `gpu` (gpus.ts). */
export function roofline(c: ProfileCounters, bytesMoved: number, gpu: string): RooflineEstimate {
  const g = gpuSpec(gpu);
  const flops = c.flopsSingle + c.flopsDouble;
  // The compute roof of a mix: the time each kind alone needs, added.
  const computeSeconds = c.flopsSingle / g.peakSingle + c.flopsDouble / g.peakDouble;
  const peak = computeSeconds > 0 ? flops / computeSeconds : g.peakSingle;
  const memorySeconds = bytesMoved / g.bandwidth;
  const intensity = bytesMoved > 0 ? flops / bytesMoved : Infinity;
  return {
    label: "estimate from the counts (DRAM bytes and FLOPs at the GPU's peak rates; no caches, latency or clocks modelled)",
    gpu: g.id,
    gpuName: g.name,
    bandwidthBytesPerSecond: g.bandwidth,
    peakFlopsPerSecond: peak,
    ridgePoint: peak / g.bandwidth,
    boundBy: memorySeconds >= computeSeconds ? "memory" : "compute",
    lowerBoundSeconds: Math.max(memorySeconds, computeSeconds),
    attainableFlopsPerSecond: Math.min(peak, intensity * g.bandwidth),
  };
}
