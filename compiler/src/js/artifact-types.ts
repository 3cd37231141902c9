/**
 * The shapes of a KernelArtifact, in a module that declares types only and imports nothing but the IR's
 * type declarations. The runtime's public declarations (`cudascript`'s index.d.ts) reach the artifact
 * through here (`@cudascript/compiler/artifact`), so a program that type-checks against `cudascript`
 * never pulls in the front end or TypeScript's own declarations.
 */
import type { IrModule, LaunchBounds, ParamSignature } from "../ir/nodes";
import type { DType } from "../ir/types";

export type ArtifactFormat = "cudascript-artifact@1";

export type PrivatizeOp = "add" | "and" | "or" | "xor" | "max" | "min";

export interface PrivatizableParam {
  /** Index of the kernel parameter. */
  readonly param: number;
  readonly name: string;
  readonly dtype: DType;
  /** The class of every atomic on it (`add` covers add and sub). */
  readonly op: PrivatizeOp;
}

export interface SimKernelInfo {
  readonly name: string;
  readonly id: string;
  readonly file: string;
  readonly line: number;
  /** "loop": plain loop over threads; "fission": split at synchronisation points. */
  readonly strategy: "loop" | "fission";
  readonly usesBarriers: boolean;
  readonly usesWarpOps: boolean;
  /**
   * Global arrays the simulator may privatize when the launch is spread over workers (see
   * privatize.ts): only updated by result-unused atomics of one commutative, associative class.
   * Missing in artifacts built before privatization existed (same as none).
   */
  readonly privatize?: readonly PrivatizableParam[];
  /** Array parameters updated by atomics (directly or in device functions); missing in older artifacts. */
  readonly atomics?: readonly number[];
  /** The kernel calls g.sync(): every block of the grid must be resident (js/cooperative.ts). */
  readonly cooperative?: boolean;
}

export interface KernelEntry {
  readonly name: string;
  /** `<file>#<name>`. */
  readonly id: string;
  readonly file: string;
  readonly line: number;
  readonly signature: readonly ParamSignature[];
  /** Static shared memory in bytes (kernel and the device functions it calls). */
  readonly staticSharedBytes: number;
  /** Whether it declares `cuda.shared.array(0, dtype)` (dynamic shared memory sized at launch). */
  readonly usesDynamicShared: boolean;
  /** `cuda.jit(fn, { launchBounds })`: every backend refuses a launch with more threads per block. */
  readonly launchBounds?: LaunchBounds;
  readonly simulator: SimKernelInfo;
}

/**
 * The compiled form of one source file's kernels, as the CudaScript build step embeds it in a bundle and
 * as the runtime loads it: everything a backend needs at run time without the front end. Plain JSON.
 */
export interface KernelArtifact {
  readonly format: ArtifactFormat;
  /** Content hash: identical kernels share a cached module. */
  readonly hash: string;
  readonly file: string;
  readonly kernels: Readonly<Record<string, KernelEntry>>;
  readonly simulator: {
    readonly abi: number;
    /** Module source: `new Function("rt", js)`. */
    readonly js: string;
    /** The same with the sanitizer (races, uninitialised shared reads, divergent barriers, watchdog). */
    readonly jsSanitize: string;
  };
  /** The typed kernel IR, serialised (for the GPU backend, inspection and tools). */
  readonly ir?: IrModule;
  /** Reserved for the GPU backend: CUDA C++ source and/or PTX per architecture. */
  readonly cuda?: { readonly source?: string; readonly ptx?: Readonly<Record<string, string>> };
}
