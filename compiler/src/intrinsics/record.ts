/**
 * The shape of an intrinsic record: one record per built-in operation a kernel can call, holding
 * everything every part of CudaScript needs to know about it — its names (CudaScript's and Numba's),
 * its signature, its effect kind and uniformity, its hover docs, the GPU feature it needs, and its two
 * lowerings (CUDA C++ and the simulator's JavaScript). The front end's name lists, the effect sets of
 * the checker and the simulator, the hover docs and both generators' intrinsic cases are derived from
 * the records (intrinsics/index.ts); see docs/architecture.md#intrinsics.
 *
 * Modelled on NVIDIA Warp's `add_builtin` (one call per builtin, families made by loops) and TVM's
 * per-target op attributes (`cuda.FLowerIntrinsic`): a new intrinsic is one record, a new backend one
 * more lowering per record. This module and the records import no compiler pass, so the runtime, the
 * language server and the checker can read them without the front end or the generators.
 */
import type { DTypeName as DType } from "../dtypes/table";

/**
 * What calling it does besides computing a value:
 * - `pure`: nothing (math, bits, complex, libdevice): may be merged, hoisted or evaluated once for many uses;
 * - `barrier`: a block-wide barrier (syncthreads and its count/and/or forms);
 * - `warp`: synchronises the lanes of a warp and exchanges their values (shuffles, votes, match, syncwarp);
 * - `fence`: orders this thread's memory operations (threadfence*), no value, no synchronisation;
 * - `grid`: a barrier of the whole grid (g.sync());
 * - `memory`: reads or writes memory (none of the intrinsics today: atomics and random draws have nodes of their own).
 */
export type IntrinsicEffect = "pure" | "barrier" | "warp" | "fence" | "grid" | "memory";

/**
 * Whether its value is the same in every thread that computes it from the same arguments:
 * - `args`: yes (a pure function of its arguments);
 * - `block`: the same in every thread of the block whatever the arguments (syncthreadsCount …);
 * - `lane`: it differs between the lanes of a warp even with uniform arguments (shuffles, votes,
 *   lanemaskLt): a branch on it is divergent.
 */
export type IntrinsicUniformity = "args" | "block" | "lane";

/**
 * A parameter's typing rule in the front end:
 * - a dtype: the argument is converted to it (implicit conversion rules);
 * - `truthy`: a predicate (any scalar, JavaScript truthiness);
 * - `warpValue`: a value a warp operation moves or compares (i32, u32, i64, u64, f16, f32, f64, bool);
 * - `bits`: an integer for a bit operation, u32 or (a bigint) u64;
 * - `float`: a float; every `float` parameter of a signature takes the widest of their float types
 *   (an integer or a literal becomes the kernel's default float).
 * The generic rules (`warpValue`, `bits`, `float`) fix the signature's type `T`.
 */
export type ParamRule = DType | "truthy" | "warpValue" | "bits" | "float";

export interface IntrinsicParam {
  readonly name: string;
  readonly rule: ParamRule;
  /** A default when the argument is left out (only trailing parameters). */
  readonly default?: number;
}

/** The result: a dtype, nothing, or `T` (the type the generic parameters fixed). */
export type ResultRule = DType | "void" | "T";

/** CUDA C++ text with its C precedence (cuda/precedence.ts). */
export interface CudaOut {
  readonly t: string;
  readonly p: number;
}

/** What a CUDA lowering is given: the generated argument texts and the types at the call. */
export interface CudaCallContext {
  readonly args: readonly CudaOut[];
  /** The argument texts (args[i].t). */
  readonly t: readonly string[];
  /** The result dtype (`i32` for a void result). */
  readonly dtype: DType;
  readonly argDTypes: readonly DType[];
  /** Asks for a prelude helper (cuda/prelude.ts HelperName) to be emitted once in the module. */
  helper(name: string): void;
  /**
   * Emits `text` once at the top of the module: an `extern "C"` declaration of a function the GPU links
   * (`gpuOnly`: the g++ emulation defines it itself), or a small helper of the record's own.
   */
  declare(text: string, gpuOnly?: boolean): void;
  /** The grid barrier's workspace parameter of the kernel being generated (g.sync() only). */
  readonly gridWorkspace?: string;
}

/** What a JavaScript lowering is given. */
export interface JsCallContext {
  readonly args: readonly string[];
  readonly dtype: DType;
  readonly argDTypes: readonly DType[];
  /** A module-level helper function, defined once: returns `name`. */
  helper(name: string, code: string): string;
  /** The i64 helpers (`$L` = rt.i64) are used by `code`: marks the module as needing them; returns `code`. */
  i64(code: string): string;
  /** The expression of this thread's lane id. */
  readonly laneId: () => string;
}

/**
 * What the simulator's code of a warp operation is given: it runs once per warp, after the lanes that
 * reached the operation together are known. In scope: `$w` (the warp's first thread), `$e` (one past its
 * last), `$am` (the active lanes' bits), `$st[u]` (0 while thread u runs); a lane's number is `$u - $w`.
 */
export interface WarpJsContext {
  /** Argument i as thread `u` (a loop variable's name) supplied it. */
  arg(i: number, u: string): string;
  /** The statement storing `value` as thread `u`'s result ("" when the result is unused). */
  result(u: string, value: string): string;
  readonly argDTypes: readonly DType[];
}

/**
 * How the CUDA generator computes an f16 result:
 * - `f32`: in f32 (which holds every f16 exactly), rounded once to f16 (the libm functions);
 * - `native`: the record's own lowering sees the f16 types (fma, abs, the warp operations' value).
 */
export type HalfLowering = "f32" | "native";

export interface IntrinsicRecord {
  /** The IR name (`IntrinsicExpr.name`). */
  readonly name: string;
  /**
   * How kernels call it, below `cuda` or `Math` ("cuda.popc", "Math.sqrt", "cuda.libdevice.sinf"); none for
   * IR-only operations the front end makes from other syntax (complexRe from `z.re`).
   */
  readonly paths: readonly string[];
  /** Numba's spelling ("cuda.match_any_sync(mask, value)"). */
  readonly numba?: string;
  readonly effect: IntrinsicEffect;
  readonly uniformity: IntrinsicUniformity;
  /**
   * The signatures, tried in order (most records have one). Absent when the front end types the call
   * by hand (Math.min/max's any arity, abs/sign's integer rule, the complex functions): `lowering`
   * then names where.
   */
  readonly signatures?: readonly IntrinsicSignature[];
  /** Where the front end types a record without signatures (for readers; e.g. "frontend/lower-complex.ts"). */
  readonly lowering?: string;
  /** Hover docs: the signature as users write it, and what it does. */
  readonly doc: IntrinsicDoc;
  /** Docs of a path that differ from `doc` (cuda.complex.c128 beside cuda.complex.c64). */
  readonly pathDocs?: Readonly<Record<string, IntrinsicDoc>>;
  /** A GPU feature with a minimum compute capability (cuda/kernel-uses.ts GPU_FEATURES). */
  readonly feature?: (argDTypes: readonly DType[], dtype: DType) => string | undefined;
  readonly half?: HalfLowering;
  /**
   * Its CUDA code may put fused multiply-adds in the PTX although kernels compile with --fmad=false:
   * cuda.fma itself, and the math library's implementations (libdevice computes with explicit fma).
   * The contraction audit (compile/contraction.ts) exempts kernels that call it.
   */
  readonly libraryFma?: true;
  /** CUDA C++. */
  readonly cuda: (c: CudaCallContext) => CudaOut;
  /**
   * The simulator's JavaScript, for `pure` and `fence` records. Synchronising records (barrier, warp,
   * grid) are computed over all the threads that reached them (js/emit/sync.ts, with `jsBarrier` and
   * `jsWarp` below), their semantics written once in intrinsics/sync.ts.
   */
  readonly js?: (c: JsCallContext) => string;
  /**
   * The simulator's result of a barrier that returns one (`$c` threads of `$n` had a true predicate),
   * the same for every thread of the block (intrinsics/sync.ts barrierResults is its semantics).
   */
  readonly jsBarrier?: string;
  /** The simulator's code of a warp operation, warp by warp (intrinsics/sync.ts warpResults is its semantics). */
  readonly jsWarp?: (c: WarpJsContext) => readonly string[];
}

export interface IntrinsicDoc {
  readonly signature: string;
  readonly text: string;
  /** What it compiles to in CUDA C++. */
  readonly cuda?: string;
}

export interface IntrinsicSignature {
  readonly params: readonly IntrinsicParam[];
  readonly result: ResultRule;
}

/** A parameter. */
export function param(name: string, rule: ParamRule, dflt?: number): IntrinsicParam {
  return dflt === undefined ? { name, rule } : { name, rule, default: dflt };
}

/** One signature. */
export function sig(result: ResultRule, ...params: IntrinsicParam[]): IntrinsicSignature {
  return { params, result };
}
