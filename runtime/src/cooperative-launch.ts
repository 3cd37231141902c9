/**
 * The errors of launching a kernel that calls g.sync() (docs/kernel-language.md#grid-synchronisation),
 * the same on every backend.
 */
import { CudaScriptError } from "./errors";

/**
 * CSR034: a cooperative launch with more blocks than `limit` (undefined: the driver refused it without
 * saying how many fit), on any backend.
 */
export function cooperativeLaunchTooLarge(kernel: string, blocks: number, threadsPerBlock: number, limit: number | undefined, device: string): CudaScriptError {
  const holds = limit === undefined ? `${device} cannot hold that many blocks of ${threadsPerBlock} threads at once` : `${device} holds at most ${limit} blocks of ${threadsPerBlock} threads at once`;
  const fix = limit === undefined ? "launch fewer blocks (kernel.forall or the occupancy API gives a size that fits)" : `launch at most ${limit} blocks`;
  return new CudaScriptError(
    "CSR034",
    `kernel '${kernel}' calls g.sync(), so every block of its grid must be resident at once, but the launch has ${blocks} blocks and ${holds}: ${fix} and cover the data with a grid-stride loop (for (let i = cuda.grid(1); i < n; i += cuda.gridsize(1)))`,
  );
}

/** CSR036: a GPU that cannot launch cooperatively (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0). */
export function cooperativeLaunchUnsupported(kernel: string, device: string): CudaScriptError {
  return new CudaScriptError(
    "CSR036",
    `kernel '${kernel}' calls g.sync(), which needs a cooperative launch, but ${device} does not support cooperative launches (CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH is 0): run it on another GPU or on the simulator (--backend simulator), or end the kernel where the grid must synchronise and launch the rest as a second kernel`,
  );
}
