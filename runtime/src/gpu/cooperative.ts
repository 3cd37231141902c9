/**
 * Launching a kernel that calls g.sync() on the GPU (docs/kernel-language.md#grid-synchronisation,
 * docs/abi.md): its generated C++ takes a hidden last parameter, the grid barrier's workspace (two u32),
 * and it is launched with cuLaunchCooperativeKernel, which guarantees that every block is resident.
 *
 * Before the launch: the device must support cooperative launches (CSR036), and the grid may have at
 * most the driver's blocks per SM (cuOccupancyMaxActiveBlocksPerMultiprocessor, asked after the kernel is
 * opted in to the launch's dynamic shared memory) × SMs (CSR034, the same
 * message as the driver's CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE gets). The workspace is one 8-byte
 * allocation per stream of a context, zeroed on the launch's stream before every launch (an async copy of zeros,
 * ordered with the launch) so a launch that ended abnormally cannot leave a count behind.
 */
import type { CudaContext, CudaFunction, CudaStream, DeviceAllocation } from "@cudascript/native-bindings/cuda";
import { cooperativeLaunchTooLarge, cooperativeLaunchUnsupported } from "../cooperative-launch";
import type { LaunchConfig } from "../backend";

const ZERO_WORKSPACE = new Uint8Array(8);

export interface CooperativeDevice {
  readonly label: string;
  readonly cooperativeLaunch: boolean;
  readonly multiprocessorCount: number;
}

/** CSR036 / CSR034 before anything is queued. */
export function checkCooperativeLaunch(ctx: CudaContext, fn: CudaFunction, kernel: string, config: LaunchConfig, device: CooperativeDevice): void {
  if (!device.cooperativeLaunch) throw cooperativeLaunchUnsupported(kernel, device.label);
  const threads = config.block[0] * config.block[1] * config.block[2];
  const blocks = config.grid[0] * config.grid[1] * config.grid[2];
  // Opted in to its dynamic shared memory first (the launch would do it after): above the kernel's
  // limit (48 KiB until opted in) the driver's occupancy is 0 blocks.
  ctx.optInDynamicSharedMemory(fn, config.sharedMem);
  const limit = ctx.maxActiveBlocksPerMultiprocessor(fn, threads, config.sharedMem) * device.multiprocessorCount;
  if (blocks > limit) throw cooperativeLaunchTooLarge(kernel, blocks, threads, limit, device.label);
}

/** The workspace of one stream of a context, and the kernel parameter that points to it. */
export class GridWorkspace {
  private readonly param = new Uint8Array(8);
  private constructor(readonly allocation: DeviceAllocation) {
    new DataView(this.param.buffer).setBigUint64(0, allocation.pointer, true);
  }

  static allocate(ctx: CudaContext): GridWorkspace {
    return new GridWorkspace(ctx.alloc(8));
  }

  /** Queues the zeroing on `stream` and returns the launch's last parameter. */
  prepare(ctx: CudaContext, stream: CudaStream | null): Uint8Array {
    ctx.copyHtoDAsync(this.allocation, ZERO_WORKSPACE, stream);
    return this.param;
  }
}

/** The cooperative error for a driver's refusal of cuLaunchCooperativeKernel, or undefined. */
export function cooperativeDriverError(call: string, result: number, kernel: string, config: LaunchConfig, device: CooperativeDevice): Error | undefined {
  if (call !== "cuLaunchCooperativeKernel") return undefined;
  const threads = config.block[0] * config.block[1] * config.block[2];
  const blocks = config.grid[0] * config.grid[1] * config.grid[2];
  if (result === 720) return cooperativeLaunchTooLarge(kernel, blocks, threads, undefined, `${device.label} (CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)`);
  if (result === 801) return cooperativeLaunchUnsupported(kernel, device.label);
  return undefined;
}
