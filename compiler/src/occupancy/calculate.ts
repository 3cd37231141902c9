/**
 * The core of `cudaOccMaxActiveBlocksPerMultiprocessor`: combine the per-factor limits of
 * `limits.ts`, find the limiting factors and the carveout, with no suggestion text.
 * `occupancy.ts` adds suggestions on top; `suggest.ts` calls back into this module for what-ifs.
 */
import { alignUpToCarveout, parseArch, type ArchSpec } from "./archs";
import { registersLimit, sharedMemoryLimit, sharedMemoryPerBlock, warpsLimit, warpsPerBlock } from "./limits";

export interface OccupancyInput {
  /** `"sm_80"`, `"compute_80"`, `"80"`... (see `parseArch`). */
  arch: string;
  threadsPerBlock: number;
  /** Registers per thread as reported by ptxas; `undefined` when not known (no GPU compile yet). */
  registersPerThread: number | undefined;
  /** Bytes of static shared memory (fixed-size shared arrays). */
  staticSharedBytes: number;
  /** Bytes of dynamic shared memory given at launch. */
  dynamicSharedBytes: number;
  /** The kernel's `launchBounds` (`__launch_bounds__`): no block may have more threads than its maximum. */
  launchBounds?: KernelLaunchBounds;
}

/** `cuda.jit(fn, { launchBounds })` (the IR's LaunchBounds; repeated here so this module imports nothing else). */
export interface KernelLaunchBounds {
  readonly maxThreadsPerBlock: number;
  readonly minBlocksPerMultiprocessor?: number;
}

/** The most threads a block of this kernel may have on `arch`: the arch's limit, lowered by `launchBounds`. */
export function maxThreadsPerBlockOf(arch: ArchSpec, input: Pick<OccupancyInput, "launchBounds">): number {
  return Math.min(arch.maxThreadsPerBlock, input.launchBounds?.maxThreadsPerBlock ?? Infinity);
}

export type LimitingFactor = "warps" | "registers" | "sharedMemory" | "blocks";

/** Factors in the order the header tests them (`OCC_LIMIT_WARPS`, `_REGISTERS`, `_SHARED_MEMORY`, `_BLOCKS`). */
export const LIMITING_FACTORS: readonly LimitingFactor[] = ["warps", "registers", "sharedMemory", "blocks"];

export interface OccupancyResult {
  activeBlocksPerSM: number;
  activeWarpsPerSM: number;
  maxWarpsPerSM: number;
  /** `activeWarpsPerSM / maxWarpsPerSM`, 0..1. */
  occupancy: number;
  /** Every factor whose limit equals `activeBlocksPerSM` (registers only when known). */
  limitedBy: LimitingFactor[];
  /**
   * Blocks per SM each resource allows. `Infinity` stands for the header's `INT_MAX`
   * ("unlimited": 0 registers, or 0 bytes of shared memory on Turing where nothing is reserved).
   * `registers` is `undefined` when the register count is unknown.
   */
  limits: { warps: number; registers: number | undefined; sharedMemory: number; blocks: number };
  registersKnown: boolean;
  /**
   * The carveout the driver would configure by default: the smallest valid shared-memory
   * configuration of the arch holding the shared memory of all `activeBlocksPerSM` blocks. 0 when
   * nothing can launch.
   */
  sharedCarveoutBytes: number;
  /** Shared memory one block occupies on the SM (with the reserved part and rounding), in bytes. */
  sharedBytesPerBlock: number;
  /** Why nothing can launch (`activeBlocksPerSM` is 0), or why the arch is unknown. */
  reason?: string;
  /** One concrete sentence on how to raise occupancy or use the hardware better. */
  suggestion?: string;
}

const isCount = (n: number): boolean => Number.isInteger(n) && n >= 0;

/** Result for inputs that cannot be evaluated at all (unknown arch, bad block size). */
function unusable(arch: ArchSpec | undefined, input: OccupancyInput, reason: string): OccupancyResult {
  return {
    activeBlocksPerSM: 0,
    activeWarpsPerSM: 0,
    maxWarpsPerSM: arch?.maxWarpsPerSM ?? 0,
    occupancy: 0,
    limitedBy: arch ? ["warps"] : [],
    limits: { warps: 0, registers: undefined, sharedMemory: 0, blocks: arch?.maxBlocksPerSM ?? 0 },
    registersKnown: input.registersPerThread !== undefined,
    sharedCarveoutBytes: 0,
    sharedBytesPerBlock: 0,
    reason,
  };
}

/** Occupancy of `input` on `arch`, following `cudaOccMaxActiveBlocksPerMultiprocessor`. Never throws. */
export function calculate(arch: ArchSpec, input: OccupancyInput): OccupancyResult {
  const threads = input.threadsPerBlock;
  if (!Number.isInteger(threads) || threads <= 0) {
    return unusable(arch, input, `threadsPerBlock must be a positive integer (got ${threads}).`);
  }
  const bound = input.launchBounds?.maxThreadsPerBlock;
  // cudaOccMaxActiveBlocksPerMultiprocessor gives 0 for a block above the function's maxThreadsPerBlock,
  // and the launch itself fails.
  if (bound !== undefined && threads > bound) {
    return unusable(arch, input, `the kernel's launchBounds allows at most ${bound} threads per block.`);
  }
  const reasons: string[] = [];
  const note = (l: { blocks: number; reason?: string }): number => {
    if (l.reason) reasons.push(l.reason);
    return l.blocks;
  };

  const warps = note(warpsLimit(arch, threads));

  const regs = input.registersPerThread;
  let registers: number | undefined;
  if (regs !== undefined) {
    registers = isCount(regs)
      ? note(registersLimit(arch, threads, regs))
      : note({ blocks: 0, reason: `registersPerThread must be a non-negative integer (got ${regs}).` });
  }

  const { staticSharedBytes: st, dynamicSharedBytes: dyn } = input;
  const smemValid = isCount(st) && isCount(dyn);
  const sharedMemory = smemValid
    ? note(sharedMemoryLimit(arch, st, dyn))
    : note({ blocks: 0, reason: `Shared memory sizes must be non-negative integers (got ${st} static, ${dyn} dynamic).` });

  const blocks = arch.maxBlocksPerSM;
  const limits = { warps, registers, sharedMemory, blocks };
  const active = Math.min(warps, registers ?? Infinity, sharedMemory, blocks);
  const limitedBy = LIMITING_FACTORS.filter((f) => limits[f] === active);

  const wpb = warpsPerBlock(arch, threads);
  const perBlock = smemValid ? sharedMemoryPerBlock(arch, st, dyn) : 0;
  const result: OccupancyResult = {
    activeBlocksPerSM: active,
    activeWarpsPerSM: active * wpb,
    maxWarpsPerSM: arch.maxWarpsPerSM,
    occupancy: (active * wpb) / arch.maxWarpsPerSM,
    limitedBy,
    limits,
    registersKnown: regs !== undefined,
    // Default (no preference) carveout: the header sizes the SM at its largest carveout
    // (`cudaOccSMemPerMultiprocessor` → `sharedMemPerMultiprocessor`); the driver configures the
    // smallest carveout that still fits the resident blocks ("the driver automatically configures
    // the shared memory capacity for each kernel to avoid shared memory occupancy bottlenecks").
    sharedCarveoutBytes: active > 0 ? (alignUpToCarveout(arch, active * perBlock) ?? arch.sharedMemoryPerSM) : 0,
    sharedBytesPerBlock: perBlock,
  };
  if (active === 0) result.reason = reasons.join(" ");
  return result;
}

/** Like {@link calculate} but takes the arch by name; an unknown arch yields a zero result with a reason. */
export function calculateByName(input: OccupancyInput): { arch?: ArchSpec; result: OccupancyResult } {
  let arch: ArchSpec;
  try {
    arch = parseArch(input.arch);
  } catch (e) {
    return { result: unusable(undefined, input, (e as Error).message) };
  }
  return { arch, result: calculate(arch, input) };
}
