/**
 * Per-architecture resource limits used by the occupancy calculator.
 *
 * Sources, in order of authority:
 *  1. `cuda_occupancy.h` (CUDA toolkit, `__CUDA_OCC_MAJOR__ 12 / __CUDA_OCC_MINOR__ 1`). Every value
 *     that header computes per compute capability is copied from it:
 *       - shared memory allocation granularity   (`cudaOccSMemAllocationGranularity`: 256 B up to
 *         7.x, 128 B for 8.x and later),
 *       - register allocation unit               (`cudaOccRegAllocationGranularity`: 256 registers,
 *         allocated per warp),
 *       - sub-partitions per SM                  (`cudaOccSubPartitionsPerMultiprocessor`: 4, but 2
 *         on 6.0),
 *       - max resident blocks per SM             (`cudaOccMaxBlocksPerMultiprocessor`: 3.x → 16,
 *         5.x/6.x/7.0/7.2 → 32, 7.5 → 16, 8.0 → 32, 8.6/8.7 → 16, 8.9 → 24, 9.0 → 32, 10.0/10.3 → 32,
 *         10.1/11.0 → 24, 12.x → 24),
 *       - shared-memory carveout configurations  (`cudaOccAlignUpShmemSizeVoltaPlus`, from 7.0 on;
 *         before Volta shared memory is one fixed partition of `sharedMemPerMultiprocessor`).
 *  2. Values the header takes from `cudaDeviceProp` (so it cannot tell us) come from the CUDA C++
 *     Programming Guide's "Technical Specifications per Compute Capability" table and the device
 *     properties the driver reports: threads per SM, registers per SM / per block, shared memory per
 *     SM (`sharedMemPerMultiprocessor`), the opt-in per-block maximum (`sharedMemPerBlockOptin`) and
 *     the driver's reserved shared memory per block (`reservedSharedMemPerBlock`, 1 KiB from 8.0 on,
 *     0 before). Before Volta there is no opt-in: the per-block maximum stays 48 KiB.
 *  3. The table covers every architecture NVRTC 11.8 to 13.x can target (`nvrtcGetSupportedArchs`:
 *     3.5 … 12.1); an architecture missing from it is "unknown", never 0 % (see `parseArch`).
 *
 * Two deliberate notes:
 *  - `maxRegistersPerThread` is 255 (the ISA / ptxas limit in the Programming Guide). The header's
 *    `cudaOccRegAllocationMaxPerThread` says 256 for 7.x+, but no compiled kernel can report 256.
 *  - The header has no separate "warp allocation granularity": warps are allocated one at a time
 *    (`ceil(threads / 32)`), but its hardware per-block register check rounds a block's warps up to
 *    the number of sub-partitions (4). `warpAllocationGranularity` records that 4.
 */

export interface ArchSpec {
  /** Canonical name, e.g. `"sm_80"`. */
  readonly name: string;
  readonly computeMajor: number;
  readonly computeMinor: number;
  /** Human-readable family, for messages only. */
  readonly family: string;
  readonly warpSize: number;
  readonly maxThreadsPerBlock: number;
  readonly maxThreadsPerSM: number;
  /** `maxThreadsPerSM / warpSize`. */
  readonly maxWarpsPerSM: number;
  readonly maxBlocksPerSM: number;
  /** 32-bit registers per SM (`regsPerMultiprocessor`). */
  readonly registersPerSM: number;
  /** 32-bit registers one block may use (`regsPerBlock`). */
  readonly maxRegistersPerBlock: number;
  readonly maxRegistersPerThread: number;
  /** Registers are allocated per warp in units of this many registers. */
  readonly registerAllocationUnitSize: number;
  readonly registerAllocationGranularity: "warp";
  /** Register file partitions; a warp's registers live in one sub-partition. */
  readonly subPartitionsPerSM: number;
  /** Warps of a block are rounded up to this for the hardware per-block register check. */
  readonly warpAllocationGranularity: number;
  /** Largest shared-memory carveout, in bytes (`sharedMemPerMultiprocessor`). */
  readonly sharedMemoryPerSM: number;
  /** Default per-block limit (48 KiB); also the hard limit for static `__shared__` data. */
  readonly maxSharedMemoryPerBlock: number;
  /** Per-block limit for kernels that opt in (`cudaFuncAttributeMaxDynamicSharedMemorySize`). */
  readonly maxSharedMemoryPerBlockOptin: number;
  /** Shared memory the driver reserves for every resident block (counted against the SM). */
  readonly reservedSharedMemoryPerBlock: number;
  /** A block's shared memory (including the reserved part) is rounded up to this. */
  readonly sharedMemoryAllocationGranularity: number;
  /** Valid shared-memory carveouts (bytes), ascending, as in `cudaOccAlignUpShmemSizeVoltaPlus`. */
  readonly sharedMemoryCarveouts: readonly number[];
}

const KiB = 1024;
const kib = (...sizes: number[]): readonly number[] => Object.freeze(sizes.map((s) => s * KiB));

/** Carveouts per the header's `cudaOccAlignUpShmemSizeVoltaPlus`. */
const CARVEOUTS_VOLTA = kib(0, 8, 16, 32, 64, 96); // 7.0 and 7.2
const CARVEOUTS_TURING = kib(32, 64);
const CARVEOUTS_GA100 = kib(0, 8, 16, 32, 64, 100, 132, 164); // 8.0 and 8.7
const CARVEOUTS_100K = kib(0, 8, 16, 32, 64, 100); // 8.6, 8.9, 12.x
const CARVEOUTS_228K = kib(0, 8, 16, 32, 64, 100, 132, 164, 196, 228); // 9.0, 10.x

interface Row {
  major: number;
  minor: number;
  family: string;
  threadsPerSM: number;
  blocksPerSM: number;
  smemPerSM: number;
  smemOptin: number;
  /** Absent before Volta: one fixed shared-memory partition of `smemPerSM`. */
  carveouts?: readonly number[];
  /** 32-bit registers per SM / per block when not 64 K (3.7: 128 K per SM; 5.3, 6.2: 32 K per block). */
  regsPerSM?: number;
  regsPerBlock?: number;
  /** Register file sub-partitions when not 4 (6.0: 2). */
  subPartitions?: number;
}

function makeArch(r: Row): ArchSpec {
  const subPartitions = r.subPartitions ?? 4;
  return Object.freeze({
    name: `sm_${r.major}${r.minor}`,
    computeMajor: r.major,
    computeMinor: r.minor,
    family: r.family,
    warpSize: 32,
    maxThreadsPerBlock: 1024,
    maxThreadsPerSM: r.threadsPerSM,
    maxWarpsPerSM: r.threadsPerSM / 32,
    maxBlocksPerSM: r.blocksPerSM,
    registersPerSM: r.regsPerSM ?? 64 * KiB,
    maxRegistersPerBlock: r.regsPerBlock ?? 64 * KiB,
    maxRegistersPerThread: 255,
    registerAllocationUnitSize: 256,
    registerAllocationGranularity: "warp",
    subPartitionsPerSM: subPartitions,
    warpAllocationGranularity: subPartitions,
    sharedMemoryPerSM: r.smemPerSM,
    maxSharedMemoryPerBlock: 48 * KiB,
    maxSharedMemoryPerBlockOptin: r.smemOptin,
    reservedSharedMemoryPerBlock: r.major >= 8 ? 1 * KiB : 0,
    sharedMemoryAllocationGranularity: r.major >= 8 ? 128 : 256,
    sharedMemoryCarveouts: r.carveouts ?? Object.freeze([r.smemPerSM]),
  });
}

/** Known architectures, ascending. */
export const ARCHS: readonly ArchSpec[] = Object.freeze([
  makeArch({ major: 3, minor: 5, family: "Kepler (GK110)", threadsPerSM: 2048, blocksPerSM: 16, smemPerSM: 48 * KiB, smemOptin: 48 * KiB }),
  makeArch({ major: 3, minor: 7, family: "Kepler (GK210)", threadsPerSM: 2048, blocksPerSM: 16, smemPerSM: 112 * KiB, smemOptin: 48 * KiB, regsPerSM: 128 * KiB }),
  makeArch({ major: 5, minor: 0, family: "Maxwell (GM10x)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 64 * KiB, smemOptin: 48 * KiB }),
  makeArch({ major: 5, minor: 2, family: "Maxwell (GM20x)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 96 * KiB, smemOptin: 48 * KiB }),
  makeArch({ major: 5, minor: 3, family: "Maxwell (Tegra X1)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 64 * KiB, smemOptin: 48 * KiB, regsPerBlock: 32 * KiB }),
  makeArch({ major: 6, minor: 0, family: "Pascal (GP100)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 64 * KiB, smemOptin: 48 * KiB, subPartitions: 2 }),
  makeArch({ major: 6, minor: 1, family: "Pascal (GP10x)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 96 * KiB, smemOptin: 48 * KiB }),
  makeArch({ major: 6, minor: 2, family: "Pascal (Tegra X2)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 64 * KiB, smemOptin: 48 * KiB, regsPerBlock: 32 * KiB }),
  makeArch({ major: 7, minor: 0, family: "Volta", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 96 * KiB, smemOptin: 96 * KiB, carveouts: CARVEOUTS_VOLTA }),
  makeArch({ major: 7, minor: 2, family: "Volta (Xavier)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 96 * KiB, smemOptin: 96 * KiB, carveouts: CARVEOUTS_VOLTA }),
  makeArch({ major: 7, minor: 5, family: "Turing", threadsPerSM: 1024, blocksPerSM: 16, smemPerSM: 64 * KiB, smemOptin: 64 * KiB, carveouts: CARVEOUTS_TURING }),
  makeArch({ major: 8, minor: 0, family: "Ampere (GA100)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 164 * KiB, smemOptin: 163 * KiB, carveouts: CARVEOUTS_GA100 }),
  makeArch({ major: 8, minor: 6, family: "Ampere (GA10x)", threadsPerSM: 1536, blocksPerSM: 16, smemPerSM: 100 * KiB, smemOptin: 99 * KiB, carveouts: CARVEOUTS_100K }),
  makeArch({ major: 8, minor: 7, family: "Ampere (Orin)", threadsPerSM: 1536, blocksPerSM: 16, smemPerSM: 164 * KiB, smemOptin: 163 * KiB, carveouts: CARVEOUTS_GA100 }),
  // 8.8: the header gives its blocks per SM (16) and carveouts (up to 100 KiB, like 8.6); 1536 threads
  // per SM as on every 8.x but 8.0.
  makeArch({ major: 8, minor: 8, family: "Ampere (8.8)", threadsPerSM: 1536, blocksPerSM: 16, smemPerSM: 100 * KiB, smemOptin: 99 * KiB, carveouts: CARVEOUTS_100K }),
  makeArch({ major: 8, minor: 9, family: "Ada Lovelace", threadsPerSM: 1536, blocksPerSM: 24, smemPerSM: 100 * KiB, smemOptin: 99 * KiB, carveouts: CARVEOUTS_100K }),
  makeArch({ major: 9, minor: 0, family: "Hopper", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 228 * KiB, smemOptin: 227 * KiB, carveouts: CARVEOUTS_228K }),
  makeArch({ major: 10, minor: 0, family: "Blackwell (datacenter)", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 228 * KiB, smemOptin: 227 * KiB, carveouts: CARVEOUTS_228K }),
  // 10.1 is Thor's number before CUDA 13, which renamed it 11.0.
  makeArch({ major: 10, minor: 1, family: "Blackwell (Thor)", threadsPerSM: 1536, blocksPerSM: 24, smemPerSM: 228 * KiB, smemOptin: 227 * KiB, carveouts: CARVEOUTS_228K }),
  makeArch({ major: 10, minor: 3, family: "Blackwell Ultra", threadsPerSM: 2048, blocksPerSM: 32, smemPerSM: 228 * KiB, smemOptin: 227 * KiB, carveouts: CARVEOUTS_228K }),
  makeArch({ major: 11, minor: 0, family: "Blackwell (Thor)", threadsPerSM: 1536, blocksPerSM: 24, smemPerSM: 228 * KiB, smemOptin: 227 * KiB, carveouts: CARVEOUTS_228K }),
  makeArch({ major: 12, minor: 0, family: "Blackwell (GeForce/RTX)", threadsPerSM: 1536, blocksPerSM: 24, smemPerSM: 100 * KiB, smemOptin: 99 * KiB, carveouts: CARVEOUTS_100K }),
  makeArch({ major: 12, minor: 1, family: "Blackwell (GB10)", threadsPerSM: 1536, blocksPerSM: 24, smemPerSM: 100 * KiB, smemOptin: 99 * KiB, carveouts: CARVEOUTS_100K }),
]);

const BY_NUMBER = new Map<number, ArchSpec>(ARCHS.map((a) => [a.computeMajor * 10 + a.computeMinor, a]));

/** Names of the known architectures, e.g. for error messages and completions. */
export const KNOWN_ARCH_NAMES: readonly string[] = Object.freeze(ARCHS.map((a) => a.name));

/** Thrown by {@link parseArch} for an unknown or malformed architecture. */
export class UnknownArchError extends Error {
  constructor(readonly input: string | number) {
    super(`Unknown GPU architecture ${JSON.stringify(input)}: known architectures are ${KNOWN_ARCH_NAMES.join(", ")}.`);
    this.name = "UnknownArchError";
  }
}

/**
 * Resolves `"sm_80"`, `"compute_80"`, `"sm_90a"`/`"sm_100f"` (feature suffixes are ignored), `"80"`,
 * `"8.0"` or `80` to its {@link ArchSpec}. Throws {@link UnknownArchError} otherwise.
 */
export function parseArch(arch: string | number): ArchSpec {
  let n: number | undefined;
  if (typeof arch === "number") {
    n = arch;
  } else {
    const s = arch.trim().toLowerCase();
    const m = /^(?:sm_|compute_)?(\d+)[af]?$/.exec(s);
    const dotted = /^(\d+)\.(\d)$/.exec(s);
    if (m) n = Number(m[1]);
    else if (dotted) n = Number(dotted[1]) * 10 + Number(dotted[2]);
  }
  const spec = n !== undefined && Number.isInteger(n) ? BY_NUMBER.get(n) : undefined;
  if (!spec) throw new UnknownArchError(arch);
  return spec;
}

/**
 * The smallest carveout configuration of `arch` holding `bytes` of shared memory, or `undefined`
 * if it exceeds the largest one. Mirrors the header's `cudaOccAlignUpShmemSizeVoltaPlus`
 * (on Turing, 0 bytes maps to the 32 KiB configuration because there is no 0 KiB one).
 */
export function alignUpToCarveout(arch: ArchSpec, bytes: number): number | undefined {
  for (const c of arch.sharedMemoryCarveouts) if (bytes <= c) return c;
  return undefined;
}
