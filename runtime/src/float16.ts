/**
 * Half precision (f16) on the host: Node 20/22 have no global Float16Array, Math.f16round or
 * DataView#setFloat16 (ES2025), so the runtime takes them from the @petamoriken/float16 polyfill and
 * switches to the platform's own where Node has them. Everything in the runtime that stores, rounds or
 * packs an f16 goes through here, so host arrays, the simulator and GPU argument packing agree.
 */
import * as polyfill from "@petamoriken/float16";

declare global {
  interface Math {
    /** ES2025: `x` rounded to the nearest half-precision value (declared for ES2022 typings). */
    f16round(x: number): number;
  }
}

/**
 * An array of f16 values: the platform's Float16Array, or the polyfill's where Node has none. Declared
 * here (the part the runtime and kernels use) so that the published types stand alone.
 */
export interface Float16Array {
  readonly BYTES_PER_ELEMENT: number;
  readonly buffer: ArrayBufferLike;
  readonly byteLength: number;
  readonly byteOffset: number;
  readonly length: number;
  [index: number]: number;
  fill(value: number, start?: number, end?: number): this;
  set(array: ArrayLike<number>, offset?: number): void;
  subarray(begin?: number, end?: number): Float16Array;
  slice(start?: number, end?: number): Float16Array;
  [Symbol.iterator](): IterableIterator<number>;
}

export interface Float16ArrayConstructor {
  readonly BYTES_PER_ELEMENT: number;
  new (length?: number): Float16Array;
  new (values: ArrayLike<number> | Iterable<number>): Float16Array;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): Float16Array;
  from(values: ArrayLike<number> | Iterable<number>): Float16Array;
  of(...values: number[]): Float16Array;
}

const globals = globalThis as { Float16Array?: Float16ArrayConstructor };
const nativeRound = (Math as { f16round?: (x: number) => number }).f16round;

export const Float16Array: Float16ArrayConstructor = globals.Float16Array ?? (polyfill.Float16Array as unknown as Float16ArrayConstructor);

/** `x` rounded to the nearest f16 (binary16, round to nearest even). */
export const f16round: (x: number) => number = typeof nativeRound === "function" ? nativeRound : polyfill.f16round;

/** True for a Float16Array, native or polyfill (the polyfill's own check does not know the native one). */
export function isFloat16Array(value: unknown): value is Float16Array {
  return (globals.Float16Array !== undefined && value instanceof globals.Float16Array) || polyfill.isFloat16Array(value);
}

/** Writes `value` rounded to f16 at `offset` (the polyfill's, which uses DataView#setFloat16 when present). */
export function setFloat16(view: DataView, offset: number, value: number, littleEndian: boolean): void {
  polyfill.setFloat16(view, offset, value, littleEndian);
}
