/**
 * How a valid corpus kernel is exercised. Each `test/corpus/valid/NAME.ts` (kernels only) has a
 * sibling `NAME.ref.ts` exporting `cases: CorpusCase[]`. The same cases drive every backend's test:
 * the g++ emulation of the generated CUDA C++, the simulator, and the real-GPU suite.
 */

import { isFloat16Array, type Float16Array } from "cudascript";

/** The typed arrays of i64/u64 (bigint elements). */
export type HostBigIntArray = BigInt64Array | BigUint64Array;
export type HostTypedArray = HostNumberArray | HostBigIntArray;
/** The typed arrays of number elements (N-D arrays hold these in the corpus). */
export type HostNumberArray =
  | Float16Array
  | Float32Array
  | Float64Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array;

/** A host N-D array: row-major `data` with `shape` (what `cuda.ndarray(data, shape)` makes). */
export interface HostNDArray {
  readonly data: HostNumberArray;
  readonly shape: readonly number[];
  /** Element strides (a column-major or transposed layout); absent: C order. */
  readonly strides?: readonly number[];
}

/**
 * True for a flat typed array, f16 included: the Float16Array polyfill of Node 20/22 is a proxy that
 * ArrayBuffer.isView does not recognise.
 */
export function isTypedData(v: unknown): v is HostTypedArray {
  return ArrayBuffer.isView(v) || isFloat16Array(v);
}

/** True for float element types (compared with the case's tolerance rather than exactly). */
export function isFloatData(v: HostTypedArray): boolean {
  return v instanceof Float32Array || v instanceof Float64Array || isFloat16Array(v);
}

export function nd(data: HostNumberArray, shape: readonly number[]): HostNDArray {
  return { data, shape };
}

/** An i64/u64 N-D array (cuda.random's [n, 2] u64 state arrays); the runners treat it as any N-D array. */
export interface HostBigIntNDArray {
  readonly data: HostBigIntArray;
  readonly shape: readonly number[];
}

/**
 * A 1-D complex array (c64 over a Float32Array, c128 over a Float64Array) of interleaved parts: an
 * N-D array whose shape counts complex elements, so the g++ emulation passes the right extent; the
 * simulator's runner makes it a Complex64Array / Complex128Array.
 */
export interface HostComplexArray extends HostNDArray {
  readonly complex: "c64" | "c128";
}

export function complexArray(parts: Float32Array | Float64Array): HostComplexArray {
  return { data: parts, shape: [parts.length / 2], complex: parts instanceof Float32Array ? "c64" : "c128" };
}

export function isComplexArray(v: unknown): v is HostComplexArray {
  return typeof v === "object" && v !== null && "complex" in v;
}

/** A kernel argument: a typed array (1-D), an N-D array, or a scalar (its dtype comes from the kernel signature). */
export type HostValue = HostTypedArray | HostNDArray | HostBigIntNDArray | number | boolean | bigint;

export type LaunchDim = number | readonly [number] | readonly [number, number] | readonly [number, number, number];

export interface CorpusLaunch {
  /** Exported kernel name in NAME.ts. */
  readonly kernel: string;
  readonly grid: LaunchDim;
  readonly block: LaunchDim;
  /** Dynamic shared memory bytes. */
  readonly sharedMem?: number;
  /** Argument names into the buffers, in parameter order. */
  readonly args: readonly string[];
}

export interface CorpusCase {
  /** Shown in test names, e.g. "n=1000, partial last block". */
  readonly name: string;
  /** Fresh inputs and outputs for one run (deterministic: use `seeded()` for random data). */
  setup(): Record<string, HostValue>;
  /** Launches in order; all see the same buffers (device memory persists between launches). */
  readonly launches: readonly CorpusLaunch[];
  /**
   * The plain-TypeScript reference: given the buffers from a fresh `setup()`, returns the expected
   * final contents of each output buffer, by name.
   */
  reference(inputs: Record<string, HostValue>): Record<string, HostTypedArray | HostNDArray | HostBigIntNDArray>;
  /** Float comparison: |a - b| <= abs + rel * |b|. Omitted for integer outputs, which compare exactly. */
  readonly tolerance?: { readonly abs: number; readonly rel: number };
}

/** A small deterministic PRNG (mulberry32) so every backend sees the same inputs. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomF32(n: number, seed: number, lo = -1, hi = 1): Float32Array {
  const r = seeded(seed);
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = lo + (hi - lo) * r();
  return a;
}

export function randomI32(n: number, seed: number, lo: number, hi: number): Int32Array {
  const r = seeded(seed);
  const a = new Int32Array(n);
  for (let i = 0; i < n; i++) a[i] = lo + Math.floor((hi - lo) * r());
  return a;
}
