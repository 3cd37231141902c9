/**
 * One-sentence suggestions for raising occupancy, derived by re-running the calculator on
 * what-if inputs (fewer registers, less shared memory, another block size).
 */
import type { ArchSpec } from "./archs";
import { calculate, maxThreadsPerBlockOf, type OccupancyInput, type OccupancyResult } from "./calculate";
import { registersLimit, warpsPerBlock } from "./limits";

/** `0.5` → `"50%"`, `2/3` → `"66.7%"`. */
export function formatPercent(x: number): string {
  return `${Number((x * 100).toFixed(1))}%`;
}

/** Whole or 128-byte-multiple KiB sizes as KiB (`"9.25 KiB"`), anything else in bytes. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 && bytes % 128 === 0) return `${Number((bytes / 1024).toFixed(3))} KiB`;
  return `${bytes} bytes`;
}

const jitCap = (r: number): string => `\`cuda.jit(fn, { maxRegisters: ${r} })\``;

/**
 * The multiple-of-32 block size with the best occupancy for the same kernel, closest to the
 * current size (ties: the larger). `undefined` if none beats `current`.
 */
export function betterBlockSize(arch: ArchSpec, input: OccupancyInput, current: OccupancyResult): { threads: number; result: OccupancyResult } | undefined {
  let best: { threads: number; result: OccupancyResult } | undefined;
  // Never above the kernel's launchBounds: such a block cannot launch.
  for (let t = arch.warpSize; t <= maxThreadsPerBlockOf(arch, input); t += arch.warpSize) {
    const r = calculate(arch, { ...input, threadsPerBlock: t });
    const dist = Math.abs(t - input.threadsPerBlock);
    if (
      !best ||
      r.occupancy > best.result.occupancy ||
      (r.occupancy === best.result.occupancy && dist <= Math.abs(best.threads - input.threadsPerBlock))
    ) {
      best = { threads: t, result: r };
    }
  }
  return best && best.result.occupancy > current.occupancy ? best : undefined;
}

/** Largest register count below `regs` that allows at least `targetBlocks` blocks, if any. */
function registersFor(arch: ArchSpec, threads: number, regs: number, targetBlocks: number): number | undefined {
  for (let r = regs - 1; r >= 0; r--) if (registersLimit(arch, threads, r).blocks >= targetBlocks) return r;
  return undefined;
}

/** Largest static + dynamic shared bytes per block that allows `targetBlocks` blocks, if any. */
function sharedBytesFor(arch: ArchSpec, targetBlocks: number): number | undefined {
  const g = arch.sharedMemoryAllocationGranularity;
  const allocation = Math.floor(arch.sharedMemoryPerSM / targetBlocks / g) * g;
  const user = Math.min(allocation - arch.reservedSharedMemoryPerBlock, arch.maxSharedMemoryPerBlockOptin);
  return user >= 0 ? user : undefined;
}

/** A fix for an input that cannot launch (`activeBlocksPerSM === 0`). */
function suggestForInvalid(arch: ArchSpec, input: OccupancyInput, result: OccupancyResult): string | undefined {
  const { threadsPerBlock: t, registersPerThread: regs } = input;
  const bound = input.launchBounds?.maxThreadsPerBlock;
  if (bound !== undefined && t > bound && bound <= arch.maxThreadsPerBlock) {
    return `Blocks of ${t} threads cannot launch: the kernel's launchBounds allows at most ${bound} threads per block; use at most ${bound}, or raise launchBounds.`;
  }
  if (result.limits.warps === 0 && t > arch.maxThreadsPerBlock) {
    return `Blocks of ${t} threads cannot launch: use at most ${arch.maxThreadsPerBlock} threads per block.`;
  }
  if (result.limits.registers === 0 && regs !== undefined && regs <= arch.maxRegistersPerThread) {
    const r = registersFor(arch, t, regs, 1);
    let maxThreads = 0;
    for (let c = arch.warpSize; c <= maxThreadsPerBlockOf(arch, input); c += arch.warpSize) {
      if (registersLimit(arch, c, regs).blocks > 0) maxThreads = c;
    }
    if (r !== undefined && maxThreads > 0) {
      return (
        `${t} threads × ${regs} registers exceed the ${arch.maxRegistersPerBlock} registers a block may use: ` +
        `cap registers at ${r} with ${jitCap(r)} or use at most ${maxThreads} threads per block.`
      );
    }
    return undefined;
  }
  if (result.limits.sharedMemory === 0) {
    const { staticSharedBytes: st, dynamicSharedBytes: dyn } = input;
    if (st > arch.maxSharedMemoryPerBlock) {
      return (
        `Static shared arrays are limited to ${formatBytes(arch.maxSharedMemoryPerBlock)} per block: ` +
        `declare the rest as a dynamic shared array (\`cuda.shared.array(0, dtype)\`) sized at launch.`
      );
    }
    if (st + dyn > arch.maxSharedMemoryPerBlockOptin) {
      return `Reduce shared memory per block to at most ${formatBytes(arch.maxSharedMemoryPerBlockOptin)}, the maximum on ${arch.name}.`;
    }
  }
  return undefined;
}

/** Suggestion when registers and/or shared memory (and nothing else) limit occupancy. */
function suggestForResources(arch: ArchSpec, input: OccupancyInput, result: OccupancyResult): string | undefined {
  const { limits, limitedBy, activeBlocksPerSM: active } = result;
  const byRegs = limitedBy.includes("registers");
  const bySmem = limitedBy.includes("sharedMemory");
  // The next ceiling once the tied resource factors are relieved.
  const target = Math.min(
    limits.warps,
    limits.blocks,
    byRegs ? Infinity : (limits.registers ?? Infinity),
    bySmem ? Infinity : limits.sharedMemory,
  );
  if (!(target > active) || !Number.isFinite(target)) return undefined;
  const targetPct = formatPercent((target * warpsPerBlock(arch, input.threadsPerBlock)) / arch.maxWarpsPerSM);
  const pct = formatPercent(result.occupancy);
  const regs = input.registersPerThread ?? 0;
  const r = byRegs ? registersFor(arch, input.threadsPerBlock, regs, target) : undefined;
  const s = bySmem ? sharedBytesFor(arch, target) : undefined;
  const used = input.staticSharedBytes + input.dynamicSharedBytes;
  if (byRegs && bySmem) {
    if (r === undefined || s === undefined) return undefined;
    return (
      `Registers and shared memory both limit occupancy to ${pct}: at most ${r} registers per thread and ` +
      `${formatBytes(s)} of shared memory per block would allow ${targetPct} (cap registers with ${jitCap(r)}).`
    );
  }
  if (byRegs) {
    if (r === undefined) return undefined;
    return `Registers limit occupancy to ${pct}: ${regs} registers per thread; at most ${r} would allow ${targetPct} (cap with ${jitCap(r)}).`;
  }
  if (s === undefined) return undefined;
  const reserved = arch.reservedSharedMemoryPerBlock;
  const more = target - active;
  return (
    `Shared memory limits occupancy to ${pct}: each block uses ${formatBytes(used)}` +
    (reserved > 0 ? ` (plus ${formatBytes(reserved)} reserved by the driver)` : "") +
    `; at most ${formatBytes(s)} per block would allow ${more} more block${more === 1 ? "" : "s"} (${targetPct}).`
  );
}

/** Suggestion when the block size itself (warp slots or the blocks-per-SM cap) limits occupancy. */
function suggestForBlockSize(arch: ArchSpec, input: OccupancyInput, result: OccupancyResult): string | undefined {
  const better = betterBlockSize(arch, input, result);
  if (!better) return undefined;
  const t = input.threadsPerBlock;
  const to = `use ${better.threads} threads per block (${formatPercent(better.result.occupancy)} occupancy)`;
  if (result.limitedBy.includes("blocks")) {
    return `Blocks of ${t} threads hit the ${arch.maxBlocksPerSM} blocks-per-SM limit: ${to}.`;
  }
  const idle = arch.maxWarpsPerSM - result.activeWarpsPerSM;
  return `Blocks of ${t} threads leave ${idle} of ${arch.maxWarpsPerSM} warp slots unused: ${to}.`;
}

const FACTOR_NAMES = {
  warps: "warp slots",
  registers: "registers",
  sharedMemory: "shared memory",
} as const;

/**
 * Suggestion when the block shape (warps or blocks-per-SM) and a resource (registers or shared
 * memory) tie: neither change alone helps, so find the block size that would be best with the
 * tied resources relieved, and say how far they must shrink at that size.
 */
function suggestCombined(arch: ArchSpec, input: OccupancyInput, result: OccupancyResult): string | undefined {
  const byRegs = result.limitedBy.includes("registers");
  const bySmem = result.limitedBy.includes("sharedMemory");
  const relaxed: OccupancyInput = {
    ...input,
    registersPerThread: byRegs ? undefined : input.registersPerThread,
    staticSharedBytes: bySmem ? 0 : input.staticSharedBytes,
    dynamicSharedBytes: bySmem ? 0 : input.dynamicSharedBytes,
  };
  const better = betterBlockSize(arch, relaxed, result);
  if (!better) return undefined;
  const threads = better.threads;
  const target = better.result.activeBlocksPerSM;
  const regs = input.registersPerThread ?? 0;
  const changes = [`use ${threads} threads per block`];
  if (byRegs) {
    // Registers that still fit `target` blocks at the new size (possibly the current count).
    const r = registersFor(arch, threads, regs + 1, target);
    if (r === undefined) return undefined;
    if (r < regs) changes.push(`at most ${r} registers per thread (${jitCap(r)})`);
  }
  if (bySmem) {
    const s = sharedBytesFor(arch, target);
    if (s === undefined) return undefined;
    if (s < input.staticSharedBytes + input.dynamicSharedBytes) changes.push(`at most ${formatBytes(s)} of shared memory per block`);
  }
  const names = result.limitedBy.map((f) => (f === "blocks" ? `the ${arch.maxBlocksPerSM} blocks-per-SM limit` : FACTOR_NAMES[f]));
  const subject = names.slice(0, -1).join(", ") + " and " + names.at(-1);
  return (
    `${subject[0]!.toUpperCase()}${subject.slice(1)} together limit occupancy to ${formatPercent(result.occupancy)}: ` +
    `${changes.join(" with ")} to reach ${formatPercent(better.result.occupancy)}.`
  );
}

/**
 * One concrete sentence, or `undefined` when occupancy is 100% and the block size is a multiple
 * of the warp size (nothing to improve).
 */
export function suggest(arch: ArchSpec, input: OccupancyInput, result: OccupancyResult): string | undefined {
  if (result.activeBlocksPerSM === 0) return suggestForInvalid(arch, input, result);
  let s: string | undefined;
  if (result.occupancy < 1) {
    const lim = result.limitedBy;
    const blockShape = lim.includes("warps") || lim.includes("blocks");
    const resources = lim.includes("registers") || lim.includes("sharedMemory");
    if (blockShape && !resources) s = suggestForBlockSize(arch, input, result);
    else if (!blockShape) s = suggestForResources(arch, input, result);
    s ??= suggestCombined(arch, input, result);
  }
  if (s === undefined && input.threadsPerBlock % arch.warpSize !== 0) {
    const up = Math.ceil(input.threadsPerBlock / arch.warpSize) * arch.warpSize;
    const down = up - arch.warpSize;
    // Rounding up past the kernel's launchBounds would not launch: then round down.
    const to = up <= maxThreadsPerBlockOf(arch, input) ? up : down;
    const idle = up - input.threadsPerBlock;
    if (to > 0) s = `Block size ${input.threadsPerBlock} leaves ${idle} lanes of its last warp idle: use a multiple of ${arch.warpSize} such as ${to}.`;
  }
  return s;
}
