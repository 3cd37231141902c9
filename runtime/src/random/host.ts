/**
 * The host half of `cuda.random` (Numba's `create_xoroshiro128p_states` / `init_xoroshiro128p_states`,
 * camelCased): device arrays of xoroshiro128+ states that kernels draw from with
 * `cuda.random.xoroshiro128pUniformFloat32(states, i)` & co. (docs/kernel-language.md#random-numbers).
 *
 * A state array is a `[n, 2]` u64 device array: row i is state i, `[s0, s1]`, the bytes of Numba's
 * `xoroshiro128p_dtype`. Numba computes the states on the host and copies them in, and so does this:
 * with the tested algorithm of xoroshiro128p.ts; on the simulator the device memory is host memory, so
 * the states are computed in place.
 */
import type { DeviceBuffer } from "../backend";
import { u64, type Array2D } from "../dtypes";
import { CudaScriptError } from "../errors";
import { DeviceNDArray, describeValue, streamHandle } from "../host/arrays";
import { currentBackend } from "../host/device";
import type { Stream } from "../host/streams";
import { initStates } from "./xoroshiro128p";

/** A device array of xoroshiro128+ states, `[n, 2]` u64 (what kernels declare as `Xoroshiro128pStates`). */
export type Xoroshiro128pStateArray = DeviceNDArray<Array2D<bigint>>;

/** Numba's `subsequence_start` and `stream` keywords. */
export interface Xoroshiro128pOptions {
  /** Jump state 0 ahead by this many subsequences of 2^64 draws first (default 0). */
  readonly subsequenceStart?: number;
  /** Copy the states on this stream (the GPU backend; the simulator finishes every copy at once). */
  readonly stream?: Stream;
}

const MAX_U64 = (1n << 64n) - 1n;

/** `n` as a whole number of states ≥ 0 (CSR032 otherwise). */
function checkCount(n: unknown, what: string): number {
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)
    throw new CudaScriptError("CSR032", `${what}: n is the number of states, a whole number ≥ 0 (one per thread that draws: e.g. the launch's total thread count), got ${describeValue(n)}`);
  return n;
}

/** The seed as a u64: a safe whole number ≥ 0 or a bigint from 0 to 2^64 - 1 (CSR032 otherwise). */
function checkSeed(seed: unknown, what: string): bigint {
  if (typeof seed === "number") {
    if (Number.isSafeInteger(seed) && seed >= 0) return BigInt(seed);
    const tip = Number.isInteger(seed) && seed > 0 ? `: above 2^53 a number is rounded, so pass the seed as a bigint (e.g. ${BigInt(seed)}n)` : "";
    throw new CudaScriptError("CSR032", `${what}: the seed is a whole number from 0 to 2^53 - 1, or a bigint from 0n to 2n ** 64n - 1n, got ${describeValue(seed)}${tip}`);
  }
  if (typeof seed === "bigint") {
    if (seed >= 0n && seed <= MAX_U64) return seed;
    throw new CudaScriptError("CSR032", `${what}: a bigint seed is a u64, from 0n to 2n ** 64n - 1n (18446744073709551615n), got ${seed}n: take it modulo 2n ** 64n with BigInt.asUintN(64, seed)`);
  }
  throw new CudaScriptError("CSR032", `${what}: the seed is a whole number (e.g. 1234) or a bigint, got ${describeValue(seed)}`);
}

function checkOptions(options: unknown, what: string): { subsequenceStart: number; stream: Stream | undefined } {
  if (options === undefined || options === null) return { subsequenceStart: 0, stream: undefined };
  if (typeof options !== "object")
    throw new CudaScriptError("CSR032", `${what}: the options are an object { subsequenceStart?, stream? }, got ${describeValue(options)}`);
  const { subsequenceStart = 0, stream } = options as Xoroshiro128pOptions;
  if (typeof subsequenceStart !== "number" || !Number.isSafeInteger(subsequenceStart) || subsequenceStart < 0)
    throw new CudaScriptError("CSR032", `${what}: subsequenceStart is how many subsequences of 2^64 draws to skip, a whole number ≥ 0, got ${describeValue(subsequenceStart)}`);
  return { subsequenceStart, stream };
}

/**
 * Numba's `create_xoroshiro128p_states(n, seed, subsequence_start=0, stream=0)`: a new `[n, 2]` u64
 * device array of n states, state 0 seeded by SplitMix64(seed) and jumped `subsequenceStart` times,
 * each next state 2^64 draws past the previous one. Same seed → same states as Numba.
 */
export function createXoroshiro128pStates(n: number, seed: number | bigint, options?: Xoroshiro128pOptions): Xoroshiro128pStateArray {
  const what = "cuda.random.createXoroshiro128pStates";
  const count = checkCount(n, what);
  const s = checkSeed(seed, what);
  const opts = checkOptions(options, what);
  const states: Xoroshiro128pStateArray = new DeviceNDArray([count, 2], u64);
  fill(states, s, opts.subsequenceStart, opts.stream);
  return states;
}

/**
 * Numba's `init_xoroshiro128p_states(states, seed, subsequence_start=0, stream=0)`: (re)initialises an
 * existing state array (`[n, 2]` u64 device array, CSR033 otherwise) in place.
 */
export function initXoroshiro128pStates(states: DeviceNDArray, seed: number | bigint, options?: Xoroshiro128pOptions): void {
  const what = "cuda.random.initXoroshiro128pStates";
  if (!(states instanceof DeviceNDArray) || states.dtype.name !== "u64" || states.ndim !== 2 || states.shape[1] !== 2)
    throw new CudaScriptError(
      "CSR033",
      `${what}: states is a state array, a [n, 2] u64 device array (cuda.random.createXoroshiro128pStates(n, seed), or cuda.deviceArray([n, 2], u64)), got ${describeValue(states)}`,
    );
  // The states are written (and drawn) as two adjacent words per row: a transposed or F-order array is not a state array.
  if (!states.isCContiguous())
    throw new CudaScriptError("CSR033", `${what}: states must be in C order (two adjacent u64 words per state), but this array has byte strides [${states.strides.join(", ")}]: use cuda.deviceArray([n, 2], u64) or cuda.random.createXoroshiro128pStates(n, seed)`);
  states.checkAlive(what);
  const s = checkSeed(seed, what);
  const opts = checkOptions(options, what);
  fill(states, s, opts.subsequenceStart, opts.stream);
}

function fill(states: DeviceNDArray, seed: bigint, subsequenceStart: number, stream: Stream | undefined): void {
  const n = states.shape[0]!;
  const handle = streamHandle(stream);
  const buffer: DeviceBuffer = states.buffer;
  if (buffer.backend === "simulator") {
    // The simulator's device memory is a SharedArrayBuffer of this process: compute the states there.
    const memory = (buffer as DeviceBuffer & { readonly memory: SharedArrayBuffer }).memory;
    initStates(new Uint32Array(memory, states.byteOffset, 4 * n), n, seed, subsequenceStart);
    // Written behind the copies' back: the sanitizer's written map (CSR069) no longer judges this array.
    currentBackend().trackUnwritten?.(buffer, 1, undefined);
    return;
  }
  const words = new Uint32Array(4 * n);
  initStates(words, n, seed, subsequenceStart);
  currentBackend().copyHtoD(buffer, states.byteOffset, words, handle);
}
