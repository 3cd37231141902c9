/**
 * The `cuda` value users import. Kernel-only members throw when touched outside a kernel, with a
 * message that says so: kernels run compiled (GPU or simulator), never as host JavaScript.
 */
import type { JitOptions, Kernel, KernelNamespace } from "./kernel-api";

export class CudaScriptError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`${code}: ${message}`);
    this.name = "CudaScriptError";
  }
}

function kernelOnly(name: string): never {
  throw new CudaScriptError(
    "CSR001",
    `cuda.${name} can only be used inside a kernel or device function (cuda.jit / cuda.device); on the host, launch the kernel with kernel.launch(grid, block)(...args).`,
  );
}

function uncompiledKernel<Args extends unknown[]>(fn: Function, _options: JitOptions | undefined): Kernel<Args> {
  const name = fn.name || "kernel";
  return {
    name,
    launch() {
      throw new CudaScriptError(
        "CSR002",
        `kernel '${name}' was not compiled by CudaScript. Run the program with 'npx cudascript run file.ts', or add the CudaScript esbuild plugin ('cudascript/esbuild') to your build.`,
      );
    },
  };
}

const kernelOnlyMembers = [
  "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize", "grid", "gridsize", "shared", "local",
  "const", "syncthreads", "syncthreadsCount", "syncthreadsAnd", "syncthreadsOr", "threadfence", "threadfenceBlock",
  "threadfenceSystem", "syncwarp", "atomic", "shflSync", "shflUpSync", "shflDownSync", "shflXorSync", "allSync",
  "anySync", "ballotSync", "activemask", "popc", "brev", "clz", "ffs", "fma",
] as const;

const host = {
  jit: uncompiledKernel,
  device: <F>(fn: F): F => fn,
};

for (const member of kernelOnlyMembers) {
  Object.defineProperty(host, member, { get: () => kernelOnly(member), enumerable: false });
}

export const cuda = host as unknown as KernelNamespace;
