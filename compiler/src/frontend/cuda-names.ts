/**
 * The names of the `cuda` namespace, in one place for every part of the compiler that reports an
 * unknown one: the kernel lowerer (CS1014 / CS1022) and the host-side check of module code.
 *
 * Three kinds of names: those that exist (kernel API, host API), Numba features CudaScript knows but
 * does not support yet (each with what to write instead: CS1022), and everything else (a typo: CS1014
 * with a "did you mean" when one is close). The host API list mirrors runtime/src/cuda.ts (the compiler
 * cannot import the runtime); test/checker/cuda-names.test.ts keeps the two in step.
 */
import { FP16_FUNCTIONS } from "./lower-fp16";
import { RANDOM_DRAWS } from "../ir/random";
import { CUDA_INTRINSIC_PATHS } from "../intrinsics";

/**
 * `cuda.*` functions callable in kernels (dotted for nested namespaces): the intrinsic records' paths
 * (compiler/src/intrinsics/), and the calls the front end turns into other IR.
 */
export const KNOWN_CUDA_FUNCTIONS: ReadonlySet<string> = new Set([
  ...CUDA_INTRINSIC_PATHS,
  // thread indices and Numba's select (lower-calls.ts), array declarations (lower-array-vars.ts)
  "grid", "grid64", "gridsize", "selp", "shared.array", "local.array", "const.arrayLike",
  // docs/kernel-language.md#grid-synchronisation (lower-grid-group.ts)
  "cg.thisGrid",
  ...[...FP16_FUNCTIONS.keys()].map((n) => `fp16.${n}`),
  // docs/kernel-language.md#random-numbers (lower-random.ts)
  ...RANDOM_DRAWS.map((n) => `random.${n}`),
]);

/** Every kernel-side name, for suggestions. */
export const CUDA_NAMES: readonly string[] = [...KNOWN_CUDA_FUNCTIONS, "threadIdx", "blockIdx", "blockDim", "gridDim", "laneid", "warpsize", "atomic.add"];

/** The host half of `cuda` (runtime/src/cuda.ts `host`), usable outside kernels. */
export const HOST_CUDA_NAMES: ReadonlySet<string> = new Set([
  "jit", "device", "toDevice", "deviceArray", "deviceArrayLike", "pinnedArray", "ndarray", "stream", "event",
  "eventElapsedTime", "synchronize", "selectDevice", "gpus", "backend", "mappedArray", "managedArray", "pinned",
  // runtime/src/ufunc.ts (the kernels are made by compiler/src/checker/ufuncs.ts)
  "vectorize", "reduce",
  // runtime/src/gufunc.ts (the kernel is made by compiler/src/checker/gufuncs.ts)
  "guvectorize",
  "random",
  // runtime/src/host/array-interface.ts, dlpack.ts, ipc.ts (docs/interop.md)
  "isCudaArray", "asCudaArray", "fromCudaArrayInterface", "fromDlpack", "openIpcArray",
  // The simulator's profiler (docs/profiling.md).
  "profile",
  // runtime/src/records.ts: record dtypes and host record arrays (docs/host-api.md#records)
  "record", "recordArray",
]);

/** Members of host namespaces of `cuda` (runtime/src/cuda.ts): `cuda.random.createXoroshiro128pStates`. */
export const HOST_CUDA_MEMBERS: ReadonlyMap<string, readonly string[]> = new Map([["random", ["createXoroshiro128pStates", "initXoroshiro128pStates"]]]);

/**
 * The first segment of every kernel-only name (`shared` of `shared.array`): valid roots of a path. A
 * root the host has too (`random`: `cuda.random.createXoroshiro128pStates`) is a host name.
 */
export const KERNEL_ROOTS: ReadonlySet<string> = new Set(CUDA_NAMES.map((n) => n.split(".")[0]!).concat(["atomic"]).filter((r) => !HOST_CUDA_NAMES.has(r)));

const HALF_ADVICE = "CudaScript spells half precision f16 (a dtype imported from \"cudascript\", stored in a Float16Array)";

/**
 * Numba CUDA features CudaScript knows about but does not support (yet), keyed by the camelCased
 * first segments of the path (`fp16` covers `cuda.fp16.hadd`): `instead` says what to write. A
 * `renamed` entry exists under another name (`cuda.libdevice.*` are the `Math` functions).
 */
type Gap = { readonly renamed?: true; readonly instead: string };
const NUMBA_GAPS: ReadonlyMap<string, Gap> = new Map<string, Gap>([
  ["float16", { instead: "write f16 (imported from \"cudascript\") for the type and Math.f16round(x) for the conversion" }],
  ["complex.polar", { renamed: true, instead: "the pair [cuda.complex.abs(z), cuda.complex.arg(z)] (cuda.complex.rect(r, phi) is the inverse)" }],
]);

/** Numba's spellings of the complex types: CudaScript calls them c64 / c128 (docs/kernel-language.md). */
const COMPLEX_ADVICE = "CudaScript's complex types are c64 (two f32) and c128 (two f64), imported from \"cudascript\"";

/** Numba types (and their CudaScript-style spellings) that are known but not supported as parameter types. */
const NUMBA_TYPE_GAPS: ReadonlyMap<string, string> = new Map([
  // i64/u64 used without importing them, and Numba's spellings of the 64-bit integers.
  ["i64", "import i64 from \"cudascript\" (its values are bigints)"],
  ["u64", "import u64 from \"cudascript\" (its values are bigints)"],
  ["int64", "write i64 (its values are bigints), imported from \"cudascript\""],
  ["uint64", "write u64 (its values are bigints), imported from \"cudascript\""],
  ...["float16", "half"].map((n): [string, string] => [n, HALF_ADVICE]),
  ...["complex64", "complex128", "complex"].map((n): [string, string] => [n, COMPLEX_ADVICE]),
]);

/** What to write instead of a known-but-unsupported type name (`i64`, `f16`, `complex64`), or undefined. */
export function numbaTypeGap(name: string): string | undefined {
  return NUMBA_TYPE_GAPS.get(name);
}

/** `eq_sync` → `eqSync`: Numba spells its API in snake_case, CudaScript in camelCase. */
function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The entry for a known-but-unsupported Numba name (`eq_sync`, `fp16.hadd`), or undefined. */
function numbaGap(path: string): Gap | undefined {
  const segments = path.split(".").map(camel);
  for (let n = segments.length; n >= 1; n--) {
    const hit = NUMBA_GAPS.get(segments.slice(0, n).join("."));
    if (hit) return hit;
  }
  return undefined;
}

/** ": did you mean cuda.X?" for a near miss of `candidates`, or "". */
export function suggestCuda(name: string, candidates: readonly string[] = CUDA_NAMES): string {
  const snake = camel(name);
  const lower = name.toLowerCase();
  const hit = candidates.find((n) => n === snake || n.toLowerCase() === lower || n.toLowerCase() === lower.replace(/_/g, ""));
  return hit ? `: did you mean cuda.${hit}?` : "";
}

/** The diagnostic for an unknown `cuda.<path>`: a known Numba gap (CS1022) or a misspelling (CS1014). */
export function unknownCudaName(path: string, candidates: readonly string[] = CUDA_NAMES): { gap: boolean; message: string } {
  const gap = numbaGap(path);
  if (gap?.renamed) return { gap: true, message: `Numba's cuda.${path} has another name in CudaScript: write ${gap.instead}` };
  if (gap) return { gap: true, message: `cuda.${path} is a Numba feature CudaScript does not support yet: ${gap.instead}` };
  return { gap: false, message: `cuda.${path} does not exist${suggestCuda(path, candidates)}` };
}
