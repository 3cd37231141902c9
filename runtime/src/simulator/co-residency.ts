/**
 * The simulator's co-residency limit for cooperative kernels (those that call g.sync()): a grid barrier
 * needs every block resident at once, so a launch may have at most (blocks per SM) × (SMs) blocks of the
 * modelled device, an A100 (sm_80, 108 SMs: SIMULATOR_LIMITS). Blocks per SM come from the occupancy
 * calculator (the formulas of cuda_occupancy.h) for the block's threads and shared memory; registers are
 * not known without a GPU compile, so they do not limit here (docs/kernel-language.md#grid-synchronisation).
 * Loaded by the main thread only, at a cooperative kernel's launch.
 */
import type * as OccupancyCalculator from "@cudascript/compiler/occupancy";

export const SIMULATOR_SM_COUNT = 108;
export const SIMULATOR_ARCH = "sm_80";

export { cooperativeLaunchTooLarge } from "../cooperative-launch";

let calculatorModule: typeof OccupancyCalculator | undefined;

/** Most blocks of this shape that an sm_80 with 108 SMs holds at once. */
export function simulatorCoResidentBlocks(threadsPerBlock: number, staticSharedBytes: number, dynamicSharedBytes: number): number {
  const calc = (calculatorModule ??= require("@cudascript/compiler/occupancy") as typeof OccupancyCalculator);
  const o = calc.computeOccupancy({ arch: SIMULATOR_ARCH, threadsPerBlock, registersPerThread: undefined, staticSharedBytes, dynamicSharedBytes });
  return o.activeBlocksPerSM * SIMULATOR_SM_COUNT;
}
