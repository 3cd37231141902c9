/**
 * CudaScript's extensions to LSP: command ids for the CodeLens, and the custom requests. Plain data —
 * editor clients and tests import these names (no editor APIs here).
 */

/** Arguments of every CodeLens command: the document and the kernel's name. */
export interface KernelCommandArgs {
  readonly uri: string;
  readonly kernel: string;
}

export const Commands = {
  runKernel: "cudascript.runKernel",
  debugKernel: "cudascript.debugKernel",
  profileKernel: "cudascript.profile",
  showCuda: "cudascript.showCuda",
  showPtx: "cudascript.showPtx",
  showOccupancy: "cudascript.showOccupancy",
} as const;

/** `cudascript/generatedCode`: the CUDA C++ or PTX generated for a document's kernels. */
export const GeneratedCodeRequest = "cudascript/generatedCode";

export interface GeneratedCodeParams {
  readonly uri: string;
  readonly kind: "cuda" | "ptx";
  /** A kernel to focus: its first generated line is returned as `kernelLine`. */
  readonly kernel?: string;
}

export interface GeneratedCodeResult {
  /** The generated text ("" when it could not be produced; see `error`). */
  readonly text: string;
  /** "cuda-cpp" or "ptx". */
  readonly languageId: string;
  /** 1-based generated line → 1-based line of the TypeScript document. */
  readonly lineMap: readonly { generatedLine: number; sourceLine: number }[];
  /** 1-based line where the requested kernel starts in `text`, when found. */
  readonly kernelLine?: number;
  /** Why there is no text (NVRTC missing, errors in the file, no kernels…). */
  readonly error?: string;
}

/** `cudascript/occupancy`: the occupancy report behind the hover and the CodeLens summary. */
export const OccupancyRequest = "cudascript/occupancy";

export interface OccupancyParams {
  readonly uri: string;
  readonly kernel: string;
}

export interface OccupancyResultData {
  readonly kernel: string;
  readonly arch: string;
  /** Why `arch` has no occupancy numbers (not in the calculator's table); `rows` is then empty. */
  readonly unknownArch?: string;
  /** Registers per thread from NVRTC, or null with `registersNote` saying why it is unknown. */
  readonly registers: number | null;
  readonly registersNote?: string;
  readonly staticSharedBytes: number;
  readonly dynamicSharedBytes: number;
  readonly rows: readonly {
    threadsPerBlock: number;
    activeBlocksPerSM: number;
    /** 0..1; an upper bound when registers are unknown. */
    occupancy: number;
    limitedBy: string[];
    suggestion?: string;
  }[];
  readonly markdown: string;
}

/**
 * `cudascript/kernels`: the kernels of a document, as the checker sees them — only real
 * `cuda.jit(…)` declarations (a commented-out one is not a kernel), through whatever name `cuda` is
 * imported as (`import { cuda as gpu }`, `import * as cs`). Run Kernel and the CodeLens use it.
 */
export const KernelsRequest = "cudascript/kernels";

export interface KernelsParams {
  readonly uri: string;
}

/** A kernel parameter, typed by the checker (its IR type). */
export interface KernelParameter {
  readonly name: string;
  /** `scalar` (f32, i32 …), `array` (a typed array or Array1D: rank 1) or `ndarray` (Array2D/Array3D). */
  readonly kind: "scalar" | "array" | "ndarray";
  readonly dtype: "f32" | "f64" | "i8" | "u8" | "i16" | "u16" | "i32" | "u32" | "i64" | "u64" | "bool" | "f16" | "c64" | "c128";
  /** 0 for scalars. */
  readonly rank: number;
  /** The annotation as written (for messages); "" when there is none. */
  readonly type: string;
}

/** LSP positions (0-based line, UTF-16 character). */
export interface KernelRange {
  readonly start: { line: number; character: number };
  readonly end: { line: number; character: number };
}

export interface KernelListing {
  readonly name: string;
  /** The name other modules import it by, when the module exports it (`export const`, `export { k as name }`). */
  readonly exportedAs?: string;
  /** The whole `const NAME = cuda.jit(…)` statement, without the comment above it. */
  readonly range: KernelRange;
  readonly nameRange: KernelRange;
  readonly params: readonly KernelParameter[];
  /** The JSDoc comment right above the declaration, when there is one. */
  readonly docRange?: KernelRange;
  /** The text of its `@run` block tag (`grid=… block=… args=[…]`, whitespace folded), when it has one. */
  readonly run?: string;
}

export interface KernelsResult {
  readonly kernels: readonly KernelListing[];
}
