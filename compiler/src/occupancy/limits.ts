/**
 * The per-factor block limits of `cuda_occupancy.h`, one function each, for the header's default
 * state (no cache / carveout preference, partitioned global caching off — it only exists on 5.2/6.x).
 *
 * Each function returns the maximum number of resident blocks per SM that one resource allows.
 * "Unlimited" (the header's `INT_MAX`, e.g. a kernel using 0 registers) is `Infinity`.
 * A result of 0 means the block cannot launch at all; `reason` then says why.
 */
import type { ArchSpec } from "./archs";

export interface Limit {
  blocks: number;
  reason?: string;
}

const divUp = (x: number, y: number): number => Math.floor((x + y - 1) / y);
const roundUp = (x: number, y: number): number => y * divUp(x, y);

/** `ceil(threads / warpSize)`: warps are allocated one at a time. */
export function warpsPerBlock(arch: ArchSpec, threadsPerBlock: number): number {
  return divUp(threadsPerBlock, arch.warpSize);
}

/** `cudaOccMaxBlocksPerSMWarpsLimit`: `floor(maxWarpsPerSM / warpsPerBlock)`. */
export function warpsLimit(arch: ArchSpec, threadsPerBlock: number): Limit {
  if (threadsPerBlock > arch.maxThreadsPerBlock) {
    return {
      blocks: 0,
      reason: `${threadsPerBlock} threads per block exceeds the maximum of ${arch.maxThreadsPerBlock}.`,
    };
  }
  return { blocks: Math.floor(arch.maxWarpsPerSM / warpsPerBlock(arch, threadsPerBlock)) };
}

/** Registers allocated to one warp: `roundUp(registersPerThread * 32, 256)`. */
export function registersPerWarp(arch: ArchSpec, registersPerThread: number): number {
  return roundUp(registersPerThread * arch.warpSize, arch.registerAllocationUnitSize);
}

/**
 * `cudaOccMaxBlocksPerSMRegsLimit`:
 *  - a warp gets `roundUp(R * 32, 256)` registers, all from one of the 4 sub-partitions, so an SM holds
 *    `4 * floor((registersPerSM / 4) / registersPerWarp)` warps, i.e.
 *    `floor(that / warpsPerBlock)` blocks;
 *  - the launch fails (0 blocks) if `registersPerWarp * roundUp(warps, 4)` (hardware check) or
 *    `registersPerWarp * warps` (software check) exceeds the per-block register limit, or if
 *    R exceeds the per-thread maximum.
 */
export function registersLimit(arch: ArchSpec, threadsPerBlock: number, registersPerThread: number): Limit {
  const limit = registersLimitOn(arch, threadsPerBlock, registersPerThread);
  // The header's forward-compatibility rule within Pascal: GP100 (6.0, 2 sub-partitions) does not
  // run a block that GP10x (4 sub-partitions) could not.
  if (arch.computeMajor === 6 && arch.computeMinor === 0 && limit.blocks > 0) {
    const gp10x = registersLimitOn({ ...arch, subPartitionsPerSM: 4, warpAllocationGranularity: 4 }, threadsPerBlock, registersPerThread);
    if (gp10x.blocks === 0) return { blocks: 0, reason: `${gp10x.reason} (on GP10x; CUDA applies the same limit to GP100 so that Pascal kernels run on every Pascal GPU)` };
  }
  return limit;
}

function registersLimitOn(arch: ArchSpec, threadsPerBlock: number, registersPerThread: number): Limit {
  if (registersPerThread > arch.maxRegistersPerThread) {
    return {
      blocks: 0,
      reason: `${registersPerThread} registers per thread exceeds the maximum of ${arch.maxRegistersPerThread}.`,
    };
  }
  const warps = warpsPerBlock(arch, threadsPerBlock);
  const perWarp = registersPerWarp(arch, registersPerThread);
  const assumedPerBlock = perWarp * roundUp(warps, arch.warpAllocationGranularity);
  if (assumedPerBlock > arch.maxRegistersPerBlock) {
    return {
      blocks: 0,
      reason:
        `${threadsPerBlock} threads × ${registersPerThread} registers needs ${assumedPerBlock} registers per block ` +
        `(${perWarp} per warp × ${roundUp(warps, arch.warpAllocationGranularity)} warps), ` +
        `more than the ${arch.maxRegistersPerBlock} a block may use.`,
    };
  }
  if (perWarp === 0) return { blocks: Infinity };
  const warpsPerSubPartition = Math.floor(arch.registersPerSM / arch.subPartitionsPerSM / perWarp);
  return { blocks: Math.floor((warpsPerSubPartition * arch.subPartitionsPerSM) / warps) };
}

/** Shared memory one block occupies on the SM: `roundUp(static + reserved + dynamic, granularity)`. */
export function sharedMemoryPerBlock(arch: ArchSpec, staticBytes: number, dynamicBytes: number): number {
  return roundUp(staticBytes + arch.reservedSharedMemoryPerBlock + dynamicBytes, arch.sharedMemoryAllocationGranularity);
}

/**
 * `cudaOccMaxBlocksPerSMSmemLimit` with the default state, for a kernel that opted in to the
 * dynamic shared memory it uses (CudaScript sets `cudaFuncAttributeMaxDynamicSharedMemorySize`).
 *
 * With no carveout preference, `cudaOccSMemPerMultiprocessor` returns the largest carveout
 * (`sharedMemPerMultiprocessor`), so the limit is `floor(sharedMemoryPerSM / perBlock)`: the driver
 * may then pick any carveout big enough for the resident blocks (see `sharedCarveoutBytes` in
 * `occupancy.ts`). Launch fails if static shared memory exceeds 48 KiB (a compile-time limit) or the
 * total exceeds the opt-in maximum per block.
 */
export function sharedMemoryLimit(arch: ArchSpec, staticBytes: number, dynamicBytes: number): Limit {
  if (staticBytes > arch.maxSharedMemoryPerBlock) {
    return {
      blocks: 0,
      reason:
        `${staticBytes} bytes of static shared memory exceeds the ${arch.maxSharedMemoryPerBlock / 1024} KiB limit ` +
        `for static shared arrays; use a dynamic shared array (shape 0) for the rest.`,
    };
  }
  const total = staticBytes + dynamicBytes;
  if (total > arch.maxSharedMemoryPerBlockOptin) {
    return {
      blocks: 0,
      reason:
        `${total} bytes of shared memory per block exceeds the ${arch.maxSharedMemoryPerBlockOptin / 1024} KiB ` +
        `maximum on ${arch.name}.`,
    };
  }
  const perBlock = sharedMemoryPerBlock(arch, staticBytes, dynamicBytes);
  if (perBlock === 0) return { blocks: Infinity };
  return { blocks: Math.floor(arch.sharedMemoryPerSM / perBlock) };
}
