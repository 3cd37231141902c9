/**
 * The simulator's co-residency limit for cooperative kernels (those that call g.sync()): a grid barrier
 * needs every block resident at once, so a launch may have at most (blocks per SM) × (SMs) blocks of the
 * modelled device, an A100 (sm_80, 108 SMs: SIMULATOR_LIMITS). Blocks per SM come from the occupancy
 * calculator (the formulas of cuda_occupancy.h) for the block's threads and shared memory; registers are
 * not known without a GPU compile, so they do not limit here (docs/kernel-language.md#grid-synchronisation).
 * Loaded by the main thread only, at a cooperative kernel's launch.
 */
import type * as OccupancyCalculator from "@cudascript/compiler/occupancy";
import { CudaScriptError } from "../errors";

export const SIMULATOR_SM_COUNT = 108;
export const SIMULATOR_ARCH = "sm_80";

let calculatorModule: typeof OccupancyCalculator | undefined;

/** Most blocks of this shape that an sm_80 with 108 SMs holds at once. */
export function simulatorCoResidentBlocks(threadsPerBlock: number, staticSharedBytes: number, dynamicSharedBytes: number): number {
  const calc = (calculatorModule ??= require("@cudascript/compiler/occupancy") as typeof OccupancyCalculator);
  const o = calc.computeOccupancy({ arch: SIMULATOR_ARCH, threadsPerBlock, registersPerThread: undefined, staticSharedBytes, dynamicSharedBytes });
  return o.activeBlocksPerSM * SIMULATOR_SM_COUNT;
}

/** CSR034: the message for a cooperative launch with more blocks than `limit`, on any backend. */
export function cooperativeLaunchTooLarge(kernel: string, blocks: number, threadsPerBlock: number, limit: number, device: string): CudaScriptError {
  return new CudaScriptError(
    "CSR034",
    `kernel '${kernel}' calls g.sync(), so every block of its grid must be resident at once, but the launch has ${blocks} blocks and ${device} holds at most ${limit} blocks of ${threadsPerBlock} threads at once: launch at most ${limit} blocks and cover the data with a grid-stride loop (for (let i = cuda.grid(1); i < n; i += cuda.gridsize(1)))`,
  );
}
