/**
 * Hover documentation for the kernel API: every `cuda.*` member a kernel may use (signature, what it
 * does, the CUDA C++ it becomes, the Numba equivalent), the `Math.*` functions kernels support, and the
 * dtypes. Keys are paths below `cuda` (`"atomic.add"`, `"threadIdx.x"`).
 */
import { DTYPE_NAMES, DTYPES } from "@cudascript/compiler/dtypes";
import { intrinsicDocs as intrinsicRecordDocs } from "@cudascript/compiler/intrinsics";

export interface ApiDoc {
  readonly signature: string;
  readonly doc: string;
  /** What it compiles to in CUDA C++. */
  readonly cuda?: string;
  readonly numba?: string;
}

const dim3 = (name: string, what: string, numba: string, cuda: string): ApiDoc => ({
  signature: `cuda.${name}: { readonly x: i32; readonly y: i32; readonly z: i32 }`,
  doc: what,
  cuda,
  numba,
});

const atomic = (op: string, what: string, cuda: string, numba: string, dtypes: string): ApiDoc => ({
  signature: `cuda.atomic.${op}(array: Array1D, index: i32, value: number): number`,
  doc: `${what} Returns the element's old value. Works on ${dtypes} in global or shared memory.`,
  cuda,
  numba,
});

export const CUDA_API_DOCS: Readonly<Record<string, ApiDoc>> = {
  "": {
    signature: 'import { cuda } from "cudascript"',
    doc: "The kernel API, modelled on Numba's `numba.cuda`. `cuda.jit` declares kernels and `cuda.device` device functions; inside them `cuda.*` gives thread indices, shared/local/constant memory, barriers, atomics and warp intrinsics.",
    numba: "from numba import cuda",
  },
  jit: {
    signature: "cuda.jit(fn: (...args) => void, options?: { fastmath?, fma?, maxRegisters?, launchBounds?, lineinfo?, debug?, cache? }): Kernel",
    doc: "Compiles `fn` as a kernel. Parameters are typed arrays (global memory) or annotated scalars (`f32`, `i32`, …); a kernel returns nothing. Launch it from host code with `kernel.launch(grid, block, { sharedMem? })(...args)`. `launchBounds: max` or `[max, minBlocksPerSM]` is `__launch_bounds__`: no launch may have more than `max` threads per block.",
    cuda: "__global__ void name(...)",
    numba: "@cuda.jit (options: fastmath=, max_registers=, launch_bounds=, lineinfo=, debug=, cache=)",
  },
  device: {
    signature: "cuda.device(fn: (...args) => T): typeof fn",
    doc: "A device function: callable from kernels and other device functions (not recursively), may return a scalar. Annotate every parameter and the return type.",
    cuda: "__device__ T name(...)",
    numba: "@cuda.jit(device=True)",
  },
  threadIdx: dim3("threadIdx", "This thread's index within its block, per axis (0 … blockDim − 1).", "cuda.threadIdx", "threadIdx"),
  blockIdx: dim3("blockIdx", "This block's index within the grid, per axis (0 … gridDim − 1).", "cuda.blockIdx", "blockIdx"),
  blockDim: dim3("blockDim", "Threads per block along each axis, as given at launch.", "cuda.blockDim", "blockDim"),
  gridDim: dim3("gridDim", "Blocks in the grid along each axis, as given at launch.", "cuda.gridDim", "gridDim"),
  laneid: { signature: "cuda.laneid: i32", doc: "This thread's lane in its warp, 0–31.", cuda: "threadIdx.x % 32 (for 1-D blocks; %laneid)", numba: "cuda.laneid" },
  warpsize: { signature: "cuda.warpsize: i32", doc: "Threads per warp (32 on every NVIDIA GPU).", cuda: "warpSize", numba: "cuda.warpsize" },
  grid: {
    signature: "cuda.grid(1): i32 · cuda.grid(2): [i32, i32] · cuda.grid(3): [i32, i32, i32]",
    doc: "This thread's absolute index in the grid: `blockIdx.x * blockDim.x + threadIdx.x` for 1 dimension; destructure the tuple for 2 or 3 (`const [x, y] = cuda.grid(2)`). The argument must be a constant 1, 2 or 3.",
    cuda: "blockIdx.x * blockDim.x + threadIdx.x",
    numba: "cuda.grid(ndim)",
  },
  gridsize: {
    signature: "cuda.gridsize(1): i32 · cuda.gridsize(2): [i32, i32] · cuda.gridsize(3): [i32, i32, i32]",
    doc: "Total threads in the grid along each dimension (`gridDim.x * blockDim.x` for 1): the stride of a grid-stride loop.",
    cuda: "gridDim.x * blockDim.x",
    numba: "cuda.gridsize(ndim)",
  },
  shared: { signature: "cuda.shared", doc: "Shared memory: visible to every thread of a block, lives as long as the block. Declare arrays with `cuda.shared.array`.", cuda: "__shared__", numba: "cuda.shared" },
  "shared.array": {
    signature: "cuda.shared.array(shape: number | [number, number?, number?], dtype): Array",
    doc: "A block-wide array in shared memory. The shape must be a compile-time constant (module `const`s are fine); `cuda.shared.array(0, dtype)` declares the dynamic shared array sized at launch with `{ sharedMem: bytes }`. Static shared memory is limited to 48 KiB per block. Bind it with `const`.",
    cuda: "__shared__ T name[N]; / extern __shared__ T name[];",
    numba: "cuda.shared.array(shape, dtype)",
  },
  local: { signature: "cuda.local", doc: "Per-thread local memory. Declare arrays with `cuda.local.array`.", cuda: "local arrays", numba: "cuda.local" },
  "local.array": {
    signature: "cuda.local.array(shape: number | [number, number?, number?], dtype): Array",
    doc: "A per-thread array. The shape must be a compile-time constant: to size it by a parameter, allocate a module-constant maximum and use part of it. Small arrays indexed by constants live in registers; others in local memory (slow, cached in L1).",
    cuda: "T name[N];",
    numba: "cuda.local.array(shape, dtype)",
  },
  const: { signature: "cuda.const", doc: "Constant memory: read-only, cached, fastest when every thread of a warp reads the same element.", cuda: "__constant__", numba: "cuda.const" },
  "const.arrayLike": {
    signature: "cuda.const.arrayLike(hostArray: TypedArray | NDArray): TypedArray | Array2D | Array3D",
    doc: "A copy of a module-level constant typed array (`const W = new Float32Array([…])` with literal values) in constant memory; read-only inside kernels. A 2-D/3-D one is a module `cuda.ndarray(data, [rows, cols])` with a constant shape, indexed `w[i][j]`.",
    cuda: "__constant__ T name[N] = { … }; (T name[R][C] for 2-D)",
    numba: "cuda.const.array_like(ary)",
  },
  atomic: { signature: "cuda.atomic", doc: "Atomic read-modify-write operations on global or shared arrays: add, sub, and, or, xor, inc, dec, exch, max, min, nanmax, nanmin, compareAndSwap. Each returns the old value.", cuda: "atomicAdd, atomicSub, …", numba: "cuda.atomic" },
  "atomic.add": atomic("add", "`array[index] += value` atomically.", "atomicAdd(&a[i], v)", "cuda.atomic.add(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.sub": atomic("sub", "`array[index] -= value` atomically.", "atomicSub(&a[i], v) (atomicAdd of −v for floats)", "cuda.atomic.sub(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.and": atomic("and", "`array[index] &= value` atomically.", "atomicAnd(&a[i], v)", "cuda.atomic.and_(ary, idx, val)", "i32 and u32 arrays"),
  "atomic.or": atomic("or", "`array[index] |= value` atomically.", "atomicOr(&a[i], v)", "cuda.atomic.or_(ary, idx, val)", "i32 and u32 arrays"),
  "atomic.xor": atomic("xor", "`array[index] ^= value` atomically.", "atomicXor(&a[i], v)", "cuda.atomic.xor(ary, idx, val)", "i32 and u32 arrays"),
  "atomic.inc": atomic("inc", "`array[index] = old >= value ? 0 : old + 1` atomically (a wrapping counter).", "atomicInc(&a[i], v)", "cuda.atomic.inc(ary, idx, val)", "u32 arrays"),
  "atomic.dec": atomic("dec", "`array[index] = (old === 0 || old > value) ? value : old - 1` atomically.", "atomicDec(&a[i], v)", "cuda.atomic.dec(ary, idx, val)", "u32 arrays"),
  "atomic.exch": atomic("exch", "Stores `value` into `array[index]` atomically.", "atomicExch(&a[i], v)", "cuda.atomic.exch(ary, idx, val)", "i32, u32 and f32 arrays"),
  "atomic.max": atomic("max", "`array[index] = value` if `value > old`, atomically. As Numba: a NaN element or a NaN value leaves the element as it is, and so does an equal value (+0 does not replace -0).", "atomicMax(&a[i], v) (cs_atomicMax, a CAS loop, for floats)", "cuda.atomic.max(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.min": atomic("min", "`array[index] = value` if `value < old`, atomically. As Numba: a NaN element or a NaN value leaves the element as it is, and so does an equal value (-0 does not replace +0).", "atomicMin(&a[i], v) (cs_atomicMin, a CAS loop, for floats)", "cuda.atomic.min(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.nanmax": atomic("nanmax", "`atomic.max` treating NaN as a missing value: a NaN element takes `value`, a NaN value leaves the element as it is. On integer arrays the same as `atomic.max`.", "cs_atomicNanMax(&a[i], v) (a CAS loop) for floats, atomicMax for integers", "cuda.atomic.nanmax(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.nanmin": atomic("nanmin", "`atomic.min` treating NaN as a missing value: a NaN element takes `value`, a NaN value leaves the element as it is. On integer arrays the same as `atomic.min`.", "cs_atomicNanMin(&a[i], v) (a CAS loop) for floats, atomicMin for integers", "cuda.atomic.nanmin(ary, idx, val)", "i32, u32, f32, f64 and f16 arrays"),
  "atomic.compareAndSwap": {
    signature: "cuda.atomic.compareAndSwap(array: Array1D, index: i32, expected: number, value: number): number",
    doc: "Stores `value` into `array[index]` if it equals `expected`, atomically; returns the old value (the swap happened if it equals `expected`). Works on i32 and u32 arrays.",
    cuda: "atomicCAS(&a[i], expected, v)",
    numba: "cuda.atomic.cas(ary, idx, old, val) (compare_and_swap(ary, old, val) on ary[0])",
  },
  selp: { signature: "cuda.selp(condition: boolean | number, ifTrue: T, ifFalse: T): T", doc: "`condition ? ifTrue : ifFalse`, exactly: the same typing as `?:`, and only the chosen value is evaluated.", cuda: "condition ? a : b", numba: "cuda.selp(pred, a, b)" },
  complex: { signature: "cuda.complex", doc: "Complex numbers (c64 = two f32, c128 = two f64) as functions, since TypeScript has no operator overloading: c64, c128, add, sub, mul, div, neg, conj, abs, arg, exp, log, sqrt, sin, cos, rect, eq. Read the parts with z.re and z.im.", numba: "complex64 / complex128 and cmath" },
  libdevice: { signature: "cuda.libdevice", doc: "Numba's `cuda.libdevice`: the 317 functions of CUDA's libdevice math library with Numba's names and argument types (`cuda.libdevice.sinf(x)`, `cuda.libdevice.erfinv(x)`, `cuda.libdevice.dadd_rn(x, y)`); several results are an array to destructure, `const [s, c] = cuda.libdevice.sincos(x)`. docs/libdevice.md lists each with CUDA's accuracy and the simulator's.", cuda: "__nv_<name>(…)", numba: "from numba.cuda import libdevice" },
  ...intrinsicDocs("cuda."),
  ...randomDocs(),
};

/** `cuda.random.*` draws (docs/kernel-language.md#random-numbers; compiler/src/cuda/random.ts). */
function randomDocs(): Record<string, ApiDoc> {
  const draw = (name: string, result: string, doc: string, numba: string, cuda: string): [string, ApiDoc] => [
    `random.${name}`,
    { signature: `cuda.random.${name}(states: Xoroshiro128pStates, index: i32 | i64): ${result}`, doc: `${doc} Reads and advances state \`index\` (row \`index\` of the [n, 2] u64 state array): give each thread its own, e.g. \`cuda.grid(1)\`.`, cuda, numba },
  ];
  return Object.fromEntries([
    ["random", { signature: "cuda.random", doc: "Numba's GPU random numbers (xoroshiro128+): the host makes the states with `cuda.random.createXoroshiro128pStates(n, seed)`, kernels draw with xoroshiro128pUniformFloat32/64 and xoroshiro128pNormalFloat32/64. Bit-exact with Numba's states and uniform draws.", numba: "numba.cuda.random" }],
    draw("xoroshiro128pUniformFloat32", "f32", "A uniform f32 in [0, 1) (the f64 draw rounded to f32, so very rarely 1).", "xoroshiro128p_uniform_float32(states, index)", "cs_xoroshiro128p_uniform_f32"),
    draw("xoroshiro128pUniformFloat64", "f64", "A uniform f64 in [0, 1), 53 random bits.", "xoroshiro128p_uniform_float64(states, index)", "cs_xoroshiro128p_uniform_f64"),
    draw("xoroshiro128pNormalFloat32", "f32", "A standard normal f32 (Box-Muller on two f32 uniforms).", "xoroshiro128p_normal_float32(states, index)", "cs_xoroshiro128p_normal_f32"),
    draw("xoroshiro128pNormalFloat64", "f64", "A standard normal f64 (Box-Muller on two f32 uniforms, as Numba).", "xoroshiro128p_normal_float64(states, index)", "cs_xoroshiro128p_normal_f64"),
  ]);
}

/**
 * The docs of the intrinsics kernels call as `<prefix><path>` ("cuda.popc", "Math.sqrt"), from their
 * records (compiler/src/intrinsics/), keyed by the path below the prefix.
 */
function intrinsicDocs(prefix: "cuda." | "Math."): Record<string, ApiDoc> {
  const out: Record<string, ApiDoc> = {};
  for (const [path, { record, doc }] of intrinsicRecordDocs())
    if (path.startsWith(prefix)) out[path.slice(prefix.length)] = { signature: doc.signature, doc: doc.text, cuda: doc.cuda, numba: record.numba };
  return out;
}

for (const dim of ["threadIdx", "blockIdx", "blockDim", "gridDim"]) {
  const base = CUDA_API_DOCS[dim]!;
  for (const axis of ["x", "y", "z"])
    (CUDA_API_DOCS as Record<string, ApiDoc>)[`${dim}.${axis}`] = { ...base, signature: `cuda.${dim}.${axis}: i32`, cuda: `${base.cuda}.${axis}`, numba: `${base.numba}.${axis}` };
}

/** The `Math` functions kernels may use that are not intrinsics of their own (the front end makes other IR of them). */
const MATH_SYNTAX_DOCS: Readonly<Record<string, ApiDoc>> = {
  fround: { signature: "Math.fround(x: number): f32", doc: "x rounded to f32: makes a value (or a literal) single precision.", cuda: "(float)x", numba: "numpy.float32(x)" },
  f16round: { signature: "Math.f16round(x: number): f16", doc: "x rounded to f16 (ES2025): makes a value (or a literal) half precision.", cuda: "__float2half_rn(x)", numba: "numpy.float16(x)" },
  imul: { signature: "Math.imul(a: number, b: number): i32", doc: "32-bit integer multiplication (wrapping).", cuda: "a * b on int", numba: "numpy.int32 multiplication" },
  clz32: { signature: "Math.clz32(x: number): i32", doc: "Leading zero bits of x as a 32-bit unsigned integer.", cuda: "__clz(x)", numba: "cuda.clz(x)" },
};

/** The `Math` functions a kernel may use: the intrinsic records' `Math.*` paths and the few above. */
export const MATH_DOCS: Readonly<Record<string, ApiDoc>> = { ...intrinsicDocs("Math."), ...MATH_SYNTAX_DOCS };

export const MATH_CONSTANT_DOCS: Readonly<Record<string, string>> = {
  PI: "π ≈ 3.14159, folded into the kernel as a constant.",
  E: "e ≈ 2.71828, folded as a constant.",
  LN2: "ln 2, folded as a constant.",
  LN10: "ln 10, folded as a constant.",
  LOG2E: "log₂ e, folded as a constant.",
  LOG10E: "log₁₀ e, folded as a constant.",
  SQRT2: "√2, folded as a constant.",
  SQRT1_2: "√½, folded as a constant.",
};

/** Hover text of each dtype name: the dtype table's docs (compiler/src/dtypes/table.ts). */
export const DTYPE_DOCS: Readonly<Record<string, string>> = Object.fromEntries(DTYPE_NAMES.map((d) => [d, DTYPES[d].doc]));

export function renderApiDoc(d: ApiDoc): string {
  const lines = ["```typescript", d.signature, "```", "", d.doc, ""];
  if (d.cuda) lines.push(`CUDA C++: \`${d.cuda}\`  `);
  if (d.numba) lines.push(`Numba: \`${d.numba}\``);
  return lines.join("\n").trimEnd();
}

export function renderMathDoc(name: string): string | undefined {
  if (Object.prototype.hasOwnProperty.call(MATH_CONSTANT_DOCS, name)) return ["```typescript", `Math.${name}: number`, "```", "", MATH_CONSTANT_DOCS[name]!].join("\n");
  if (!Object.prototype.hasOwnProperty.call(MATH_DOCS, name)) {
    if (name === "random") return "`Math.random` is not available in kernels: use cuda.random (one xoroshiro128+ state per thread), or pass random numbers in an array.";
    return undefined;
  }
  return renderApiDoc(MATH_DOCS[name]!);
}
