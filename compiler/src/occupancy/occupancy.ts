/**
 * Public occupancy API: the formulas of NVIDIA's `cuda_occupancy.h`
 * (`cudaOccMaxActiveBlocksPerMultiprocessor`, `cudaOccMaxPotentialOccupancyBlockSize`) for the
 * architectures in `archs.ts`, plus a one-sentence suggestion for the language server.
 *
 * Model (default device state, as the header computes it):
 *   warps/block      = ceil(threads / 32)
 *   warps limit      = floor(maxWarpsPerSM / warps/block)
 *   registers limit  = floor(4 · floor(registersPerSM/4 / roundUp(R·32, 256)) / warps/block),
 *                      0 if roundUp(R·32, 256) · roundUp(warps/block, 4) > registers per block
 *   shared limit     = floor(sharedMemoryPerSM / roundUp(static + reserved + dynamic, granularity))
 *   blocks limit     = maxBlocksPerSM
 *   active blocks    = min of the above; occupancy = active · warps/block / maxWarpsPerSM.
 * Unknown registers: the register limit is left out (never guessed) and `registersKnown` is false.
 * Invalid inputs never throw: they yield `activeBlocksPerSM: 0` with a `reason`.
 */
import { parseArch, type ArchSpec } from "./archs";
import { calculate, calculateByName, maxThreadsPerBlockOf, type KernelLaunchBounds, type OccupancyInput, type OccupancyResult } from "./calculate";
import { registersLimit } from "./limits";
import { suggest } from "./suggest";

export { LIMITING_FACTORS, maxThreadsPerBlockOf } from "./calculate";
export type { KernelLaunchBounds, LimitingFactor, OccupancyInput, OccupancyResult } from "./calculate";

/** Occupancy of one kernel launch configuration, with a suggestion when it can be improved. */
export function computeOccupancy(input: OccupancyInput): OccupancyResult {
  const { arch, result } = calculateByName(input);
  if (arch) {
    const s = suggest(arch, input, result);
    if (s !== undefined) result.suggestion = s;
  }
  return result;
}

export const DEFAULT_BLOCK_SIZES: readonly number[] = [128, 256, 512, 1024];

export interface BlockSizeOccupancy {
  threadsPerBlock: number;
  result: OccupancyResult;
}

/** {@link computeOccupancy} for each block size (e.g. for a hover table); `base.threadsPerBlock` is ignored. */
export function occupancyForBlockSizes(
  base: Omit<OccupancyInput, "threadsPerBlock"> & { threadsPerBlock?: number },
  blockSizes: readonly number[] = DEFAULT_BLOCK_SIZES,
): BlockSizeOccupancy[] {
  return blockSizes.map((threadsPerBlock) => ({
    threadsPerBlock,
    result: computeOccupancy({ ...base, threadsPerBlock }),
  }));
}

export interface PotentialBlockSize {
  /** 0 when no block size can launch. */
  threadsPerBlock: number;
  activeBlocksPerSM: number;
  occupancy: number;
}

/**
 * `cudaOccMaxPotentialOccupancyBlockSize` with a constant dynamic shared size: tries block sizes
 * from the largest multiple of 32 down, keeps the first with the most resident threads per SM and
 * stops early at full occupancy. Multiply `activeBlocksPerSM` by the SM count for the header's
 * `minGridSize`.
 */
export function maxPotentialBlockSize(
  base: Omit<OccupancyInput, "threadsPerBlock">,
  kernelMaxThreadsPerBlock: number = Infinity,
): PotentialBlockSize {
  let best: PotentialBlockSize = { threadsPerBlock: 0, activeBlocksPerSM: 0, occupancy: 0 };
  let arch: ArchSpec;
  try {
    arch = parseArch(base.arch);
  } catch {
    return best;
  }
  let bestThreads = 0;
  const limit = Math.min(maxThreadsPerBlockOf(arch, base), kernelMaxThreadsPerBlock);
  const g = arch.warpSize;
  for (let aligned = Math.ceil(limit / g) * g; aligned > 0; aligned -= g) {
    const threadsPerBlock = Math.min(limit, aligned);
    const result = calculate(arch, { ...base, threadsPerBlock });
    const threads = threadsPerBlock * result.activeBlocksPerSM;
    if (threads > bestThreads) {
      bestThreads = threads;
      best = { threadsPerBlock, activeBlocksPerSM: result.activeBlocksPerSM, occupancy: result.occupancy };
    }
    if (bestThreads === arch.maxThreadsPerSM) break;
  }
  return best;
}

/**
 * The registers per thread a kernel with `launchBounds: [max, minBlocks]` is compiled to fit in: the most
 * that still let `minBlocks` blocks of `max` threads reside on one multiprocessor of `arch` (ptxas
 * limits registers the same way). `undefined` without a minimum, or when even 0 registers do not fit.
 */
export function launchBoundsRegisterCap(archName: string, bounds: KernelLaunchBounds): number | undefined {
  const minBlocks = bounds.minBlocksPerMultiprocessor;
  if (minBlocks === undefined) return undefined;
  let arch: ArchSpec;
  try {
    arch = parseArch(archName);
  } catch {
    return undefined;
  }
  for (let r = arch.maxRegistersPerThread; r >= 0; r--) if (registersLimit(arch, bounds.maxThreadsPerBlock, r).blocks >= minBlocks) return r;
  return undefined;
}
