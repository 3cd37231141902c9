/**
 * The kernel-authoring surface: everything a kernel may call under `cuda.*`.
 *
 * These declarations are what TypeScript (and the editor) sees; the CudaScript front end recognises
 * the same names and lowers them to the kernel IR. Inside a kernel they are never executed as
 * JavaScript: the simulator and the GPU backend run the compiled kernel instead.
 */
import type { CudaArrayInterface } from "./host/array-interface-export";
import type { Array1D, Array2D, Array3D, c128, c64, ComplexDType, ComplexValue, DType, DTypeName, NumberTypedArray, TypedArrayOf } from "./dtypes";
import type { Complex128Array, Complex64Array } from "./complex-array";
import type { IntrinsicFunctions, LibdeviceFunctions } from "./kernel-intrinsics";
import type { RecordArray, RecordDtype, RecordFields, RecordValue } from "./records";

export interface Dim3 {
  readonly x: number;
  readonly y: number;
  readonly z: number;
}

/** Grid or block size at a launch: a number, or a tuple of 1–3 numbers (x, y, z). */
export type LaunchDim = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

export interface JitOptions {
  /** Allow fast, less precise math (`--use_fast_math`), like Numba's `fastmath=True`. */
  fastmath?: boolean;
  /**
   * Let the compiler fuse `a * b + c` into one fused multiply-add (one rounding instead of two): faster,
   * but results then differ from the simulator and plain TypeScript in the last bit. Off by default;
   * implied by `fastmath`. `cuda.fma(a, b, c)` is always fused.
   */
  fma?: boolean;
  /** Cap registers per thread (`--maxrregcount`), like Numba's `max_registers`. */
  maxRegisters?: number;
  /**
   * `__launch_bounds__`, like Numba's `launch_bounds`: the most threads a block of this kernel may have
   * (a launch with more is refused, CSR008), and optionally how many blocks each multiprocessor should
   * keep resident (the compiler limits registers so that they fit). A constant: `256` or `[256, 2]`.
   */
  launchBounds?: number | readonly [maxThreadsPerBlock: number, minBlocksPerMultiprocessor?: number];
  /** Emit line information so profilers map PTX back to TypeScript lines. */
  lineinfo?: boolean;
  /** Compile with device debug information (`-G`). */
  debug?: boolean;
  /** Keep compiled PTX in the on-disk cache (on by default). */
  cache?: boolean;
  /**
   * How deep threads may nest calls of recursive device functions (default 64, at most 100000): the GPU's
   * per-thread stack is sized for it; the simulator stops deeper recursion with CSR086.
   */
  recursionDepth?: number;
}

export interface LaunchOptions {
  /** Stream to launch on (default stream when omitted). */
  stream?: unknown;
  /** Bytes of dynamic shared memory, the memory behind `cuda.shared.array(0, dtype)`. */
  sharedMem?: number;
}

/** Any JavaScript typed array (the 1-D arrays other than `Array1D<bool>`). */
export type AnyTypedArray = TypedArrayOf[DTypeName];

/**
 * A 1-D kernel array of dtype N: its typed array (so it passes where a device function takes one) that is
 * also an `Array1D`, whose `any`-typed reads keep `noUncheckedIndexedAccess` from demanding `!` (dtypes.ts).
 */
export type KernelArray1D<N extends DTypeName> = N extends "i64" | "u64"
  ? TypedArrayOf[N] // bigint reads: an `any` read would make `~a[i]` a number to TypeScript
  : // Array1D first: a call on an intersection tries its members' signatures in order, so `subarray` is
    // Array1D's (a view whose reads are `any`) rather than the typed array's.
    Array1D<N extends "bool" ? boolean : number> & TypedArrayOf[N];

type ArrayForShape<S, N extends DTypeName> = S extends number
  ? KernelArray1D<N>
  : S extends readonly [number]
    ? KernelArray1D<N>
    : S extends readonly [number, number]
      ? Array2D<number>
      : Array3D<number>;

type Shape = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

export interface SharedMemory {
  /**
   * A block-wide array in shared memory. The shape must be a compile-time constant; `0` declares the
   * dynamic shared array whose size is given at launch (`launch(grid, block, { sharedMem })`).
   */
  array<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>): ArrayForShape<S, N>;
  /** A shared array of complex numbers (c64 / c128). */
  array<const S extends Shape>(shape: S, dtype: ComplexDType): ComplexArrayForShape<S>;
  /** A shared array of records (`cuda.record` dtype; docs/kernel-language.md#records): `sh[i].x`, `const p = sh[i]`, `sh[i] = p`. */
  array<F extends RecordFields, const S extends Shape>(shape: S, dtype: RecordDtype<F>): RecordArrayForShape<S, RecordValue<F>>;
}

export interface LocalMemory {
  /** A per-thread array. The shape must be a compile-time constant. */
  array<N extends DTypeName, const S extends Shape>(shape: S, dtype: DType<N>): ArrayForShape<S, N>;
  /** A per-thread array of complex numbers (c64 / c128). */
  array<const S extends Shape>(shape: S, dtype: ComplexDType): ComplexArrayForShape<S>;
  /** A per-thread array of records (`cuda.record` dtype; docs/kernel-language.md#records). */
  array<F extends RecordFields, const S extends Shape>(shape: S, dtype: RecordDtype<F>): RecordArrayForShape<S, RecordValue<F>>;
}

type RecordArrayForShape<S, T extends object> = S extends number | readonly [number] ? Array1D<T> : S extends readonly [number, number] ? Array2D<T> : Array3D<T>;

type ComplexArrayForShape<S> = S extends number | readonly [number] ? Array1D<ComplexValue> : S extends readonly [number, number] ? Array2D<ComplexValue> : Array3D<ComplexValue>;

export interface ConstMemory {
  /** An i64/u64 constant (`new BigInt64Array([1n, -2n])`): its elements read as bigints. */
  arrayLike<A extends BigInt64Array | BigUint64Array>(hostArray: A): A;
  /** A complex constant (`Complex64Array.wrap(new Float32Array([re0, im0, …]))`): its elements read as complex values. */
  arrayLike(hostArray: Complex64Array | Complex128Array): Array1D<ComplexValue>;
  /** A copy of a module-level constant array in the GPU's constant memory (read-only in kernels). */
  arrayLike<A extends AnyTypedArray>(hostArray: A): A & Array1D;
  /** A 2-D / 3-D i64 or u64 constant (`cuda.ndarray(new BigInt64Array([…]), [rows, cols])`). */
  arrayLike(hostArray: Array2D<bigint>): Array2D<bigint>;
  arrayLike(hostArray: Array3D<bigint>): Array3D<bigint>;
  /** A 2-D / 3-D complex constant (`cuda.ndarray(Complex64Array.wrap(new Float32Array([…])), [rows, cols])`). */
  arrayLike(hostArray: Array2D<ComplexValue>): Array2D<ComplexValue>;
  arrayLike(hostArray: Array3D<ComplexValue>): Array3D<ComplexValue>;
  /** A 2-D constant: a module-level `cuda.ndarray(new Float32Array([…]), [rows, cols])`, indexed `m[i][j]`. */
  arrayLike(hostArray: Array2D<number>): Array2D<number>;
  /** A 3-D constant: a module-level `cuda.ndarray(data, [d0, d1, d2])`, indexed `m[i][j][k]`. */
  arrayLike(hostArray: Array3D<number>): Array3D<number>;
}

/** An array atomics can update: 1-D, or N-D indexed by a tuple (`cuda.atomic.add(h, [r, c], 1)`). */
export type AtomicArray = NumberTypedArray | Array1D<number> | Array2D<number> | Array3D<number>;
/** An i64/u64 array: its atomics take and return bigints. */
export type BigIntAtomicArray = BigInt64Array | BigUint64Array | Array1D<bigint> | Array2D<bigint> | Array3D<bigint>;
/** An element's index; on a record array, the index and then the field's name (`[i, "x"]`, `[r, c, "x"]`: docs/kernel-language.md#records). */
export type AtomicIndex = number | readonly [number, number] | readonly [number, number, number] | readonly [number, string] | readonly [number, number, string];

export interface Atomics {
  /** `array[index] += value` atomically; returns the old value. */
  add(array: AtomicArray, index: AtomicIndex, value: number): number;
  add(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  sub(array: AtomicArray, index: AtomicIndex, value: number): number;
  sub(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  and(array: AtomicArray, index: AtomicIndex, value: number): number;
  and(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  or(array: AtomicArray, index: AtomicIndex, value: number): number;
  or(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  xor(array: AtomicArray, index: AtomicIndex, value: number): number;
  xor(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  /** `old >= value ? 0 : old + 1`, on u32 arrays. */
  inc(array: AtomicArray, index: AtomicIndex, value: number): number;
  /** `(old === 0 || old > value) ? value : old - 1`, on u32 arrays. */
  dec(array: AtomicArray, index: AtomicIndex, value: number): number;
  exch(array: AtomicArray, index: AtomicIndex, value: number): number;
  exch(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  /**
   * `array[index] = value` if `value > old`; returns the old value. As Numba: a NaN element or a NaN
   * value leaves the element unchanged, and so does an equal value (+0 does not replace -0).
   */
  max(array: AtomicArray, index: AtomicIndex, value: number): number;
  max(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  /** `array[index] = value` if `value < old`; returns the old value. NaN as in `max`. */
  min(array: AtomicArray, index: AtomicIndex, value: number): number;
  min(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  /** `max` that treats NaN as missing: a NaN element takes `value`, a NaN value changes nothing. */
  nanmax(array: AtomicArray, index: AtomicIndex, value: number): number;
  nanmax(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  /** `min` that treats NaN as missing: a NaN element takes `value`, a NaN value changes nothing. */
  nanmin(array: AtomicArray, index: AtomicIndex, value: number): number;
  nanmin(array: BigIntAtomicArray, index: AtomicIndex, value: bigint): bigint;
  /** Stores `value` if the element equals `expected`; returns the old value. */
  compareAndSwap(array: AtomicArray, index: AtomicIndex, expected: number, value: number): number;
  compareAndSwap(array: BigIntAtomicArray, index: AtomicIndex, expected: bigint, value: bigint): bigint;
}

/** Options of `kernel.forall(n, options)`: Numba's `forall(ntasks, tpb, stream, sharedmem)`. */
export interface ForallOptions extends LaunchOptions {
  /** Threads per block; by default the size that keeps the most threads resident on the GPU (occupancy), 256 on the simulator. */
  tpb?: number;
}

/** A compiled kernel. Launch it with `kernel.launch(grid, block)(...args)`. */
export interface Kernel<Args extends unknown[]> {
  readonly name: string;
  launch(grid: LaunchDim, block: LaunchDim, options?: LaunchOptions): (...args: HostArgs<Args>) => void;
  /**
   * Numba's `kernel.forall(n)`: a 1-D launch of at least `n` threads (`Math.ceil(n / tpb)` blocks of
   * `tpb`); the kernel compares `cuda.grid(1)` with its data's length. `n = 0` launches nothing.
   */
  forall(n: number, options?: ForallOptions): (...args: HostArgs<Args>) => void;
}

/**
 * At a launch a typed-array parameter accepts the host array itself or a device array holding it; an
 * `Array1D` parameter accepts the same (any typed array: its dtype is checked at the launch).
 */
export type HostArgs<Args extends unknown[]> = { [K in keyof Args]: HostArg<Args[K]> };

type HostArg<P> = P extends Array1D
  ? P | AnyTypedArray | DeviceArrayOf<P> | DeviceArrayOf<AnyTypedArray> | CudaArrayLike | RecordArray<any>
  : P extends number | bigint | boolean
    ? P | DeviceArrayOf<P>
    : P | DeviceArrayOf<P> | CudaArrayLike;

/**
 * Any other library's device array: an array parameter takes an object with a CUDA Array Interface
 * (CuPy's, PyTorch's, a native addon's), viewed in place as Numba does (docs/interop.md).
 */
export interface CudaArrayLike {
  readonly __cuda_array_interface__: CudaArrayInterface;
}

/** Placeholder for the device array type of the host runtime. */
export interface DeviceArrayOf<T> {
  readonly __deviceArrayOf?: T;
}

export interface KernelNamespace extends IntrinsicFunctions {
  /** Compile `fn` as a kernel, like Numba's `@cuda.jit`. Kernels return nothing. */
  jit<F extends (...args: never[]) => void>(fn: F, options?: JitOptions): Kernel<Parameters<F>>;
  /** A device function callable from kernels and other device functions; may return a value. */
  device<F extends (...args: never[]) => unknown>(fn: F): F;

  readonly threadIdx: Dim3;
  readonly blockIdx: Dim3;
  readonly blockDim: Dim3;
  readonly gridDim: Dim3;
  /** Lane of this thread in its warp (0–31). */
  readonly laneid: number;
  /** Threads per warp (32). */
  readonly warpsize: number;

  /** Absolute thread index: `blockIdx.x * blockDim.x + threadIdx.x` for 1, a tuple for 2 and 3. */
  grid(ndim: 1): number;
  /** The global thread index as an i64 (a bigint), for arrays of 2^31 elements or more: index them with a[Number(i)]. */
  grid64(ndim: 1): bigint;
  grid(ndim: 2): [number, number];
  grid(ndim: 3): [number, number, number];
  /** Total threads in the grid along each dimension. */
  gridsize(ndim: 1): number;
  gridsize(ndim: 2): [number, number];
  gridsize(ndim: 3): [number, number, number];

  readonly shared: SharedMemory;
  readonly local: LocalMemory;
  readonly const: ConstMemory;

  readonly atomic: Atomics;

  /**
   * Numba's `selp`: `condition ? ifTrue : ifFalse`, exactly (same typing; only the chosen value is
   * evaluated, as with `?:`).
   */
  selp(condition: boolean | number, ifTrue: number, ifFalse: number): number;
  selp(condition: boolean | number, ifTrue: boolean, ifFalse: boolean): boolean;
  selp<Z extends ComplexValue>(condition: boolean | number, ifTrue: Z, ifFalse: Z): Z;

  /** Complex numbers (docs/kernel-language.md#complex-numbers-c64-c128): TypeScript has no operator overloading. */
  readonly complex: ComplexFunctions;

  /** Numba's `cuda.libdevice` (docs/libdevice.md): `cuda.libdevice.sinf(x)`, `const [s, c] = cuda.libdevice.sincos(x)`. */
  readonly libdevice: LibdeviceFunctions;

  /** Numba's `cuda.fp16` functions on f16 values (literals become f16; other types are CS2020). */
  readonly fp16: Fp16Functions;

  /** Cooperative groups (docs/kernel-language.md#grid-synchronisation): `const g = cuda.cg.thisGrid(); g.sync()`. */
  readonly cg: CooperativeGroups;
  /** Numba's `cuda.random` (xoroshiro128+): draws in kernels; the states come from the host (docs/kernel-language.md#random-numbers). */
  readonly random: RandomFunctions;
}

/**
 * A kernel parameter holding xoroshiro128+ generator states (Numba's `xoroshiro128p_dtype` array): a
 * `[n, 2]` u64 array, row i = state i (`s0`, `s1`). Make one on the host with
 * `cuda.random.createXoroshiro128pStates(n, seed)`.
 */
export type Xoroshiro128pStates = Array2D<bigint>;

/**
 * `cuda.random.*` in kernels. Each draw advances state `index` of `states` (it reads and writes that
 * row): give each thread its own index (`cuda.grid(1)`), as in Numba. `index` is an i32 or an i64.
 */
export interface RandomFunctions {
  /** Uniform in [0, 1) as an f32 (Numba's `xoroshiro128p_uniform_float32`; a draw just below 1 rounds to 1). */
  xoroshiro128pUniformFloat32(states: Xoroshiro128pStates, index: number | bigint): number;
  /** Uniform in [0, 1) as an f64, 53 random bits (`xoroshiro128p_uniform_float64`). */
  xoroshiro128pUniformFloat64(states: Xoroshiro128pStates, index: number | bigint): number;
  /** Standard normal as an f32, Box-Muller on two draws (`xoroshiro128p_normal_float32`). */
  xoroshiro128pNormalFloat32(states: Xoroshiro128pStates, index: number | bigint): number;
  /** Standard normal as an f64, Box-Muller on two draws (`xoroshiro128p_normal_float64`). */
  xoroshiro128pNormalFloat64(states: Xoroshiro128pStates, index: number | bigint): number;
}

/** Numba's `cuda.cg`: the grid group only. */
export interface CooperativeGroups {
  /** The grid of this launch; only `const g = cuda.cg.thisGrid()` in a kernel's own body (CS1024). */
  thisGrid(): GridGroup;
}

/** A grid group: its one use is `g.sync()`. */
export interface GridGroup {
  /** Waits until every thread of the grid has reached this call; every thread must (CS5007). */
  sync(): void;
}

/** `cuda.complex.*`: a real operand of add/sub/mul/div/eq is the complex number x + 0i. */
export interface ComplexFunctions {
  /** The c64 `re + im·i` (im defaults to 0), or a c128 converted to c64. */
  c64(re: number, im?: number): c64;
  c64(z: ComplexValue): c64;
  /** The c128 `re + im·i` (im defaults to 0), or a c64 converted to c128. */
  c128(re: number, im?: number): c128;
  c128(z: ComplexValue): c128;
  add<Z extends ComplexValue>(a: Z | number, b: Z | number): Z;
  sub<Z extends ComplexValue>(a: Z | number, b: Z | number): Z;
  mul<Z extends ComplexValue>(a: Z | number, b: Z | number): Z;
  div<Z extends ComplexValue>(a: Z | number, b: Z | number): Z;
  eq(a: ComplexValue | number, b: ComplexValue | number): boolean;
  neg<Z extends ComplexValue>(z: Z): Z;
  conj<Z extends ComplexValue>(z: Z): Z;
  /** The modulus |z| (hypot of the parts). */
  abs(z: ComplexValue): number;
  /** The phase, atan2(im, re). */
  arg(z: ComplexValue): number;
  exp<Z extends ComplexValue>(z: Z): Z;
  log<Z extends ComplexValue>(z: Z): Z;
  sqrt<Z extends ComplexValue>(z: Z): Z;
  sin<Z extends ComplexValue>(z: Z): Z;
  cos<Z extends ComplexValue>(z: Z): Z;
  /** The complex number of modulus r and phase phi (Python's cmath.rect). */
  rect(r: number, phi: number): ComplexValue;
}

/**
 * `cuda.fp16.*`: each is the f16 operation it names, rounded to f16 like `a + b` on f16 values
 * (`hadd(a, b)` is `a + b`, `hsqrt(h)` is `Math.sqrt(h)`, `hrcp(h)` is `1 / h`).
 */
export interface Fp16Functions {
  hadd(a: number, b: number): number;
  hsub(a: number, b: number): number;
  hmul(a: number, b: number): number;
  hdiv(a: number, b: number): number;
  /** a * b + c with one rounding on the GPU (`fma.rn.f16`). */
  hfma(a: number, b: number, c: number): number;
  hneg(a: number): number;
  habs(a: number): number;
  heq(a: number, b: number): boolean;
  hne(a: number, b: number): boolean;
  hge(a: number, b: number): boolean;
  hgt(a: number, b: number): boolean;
  hle(a: number, b: number): boolean;
  hlt(a: number, b: number): boolean;
  hmax(a: number, b: number): number;
  hmin(a: number, b: number): number;
  hsin(a: number): number;
  hcos(a: number): number;
  hlog(a: number): number;
  hlog10(a: number): number;
  hlog2(a: number): number;
  hexp(a: number): number;
  hexp10(a: number): number;
  hexp2(a: number): number;
  hsqrt(a: number): number;
  /** 1 / sqrt(a), rounded once to f16 (computed in f32, as Numba's). */
  hrsqrt(a: number): number;
  hfloor(a: number): number;
  hceil(a: number): number;
  htrunc(a: number): number;
  /** Rounds to the nearest integer, halves to the even one (`hrint(2.5)` is 2; `Math.round` gives 3). */
  hrint(a: number): number;
  /** 1 / a. */
  hrcp(a: number): number;
}
