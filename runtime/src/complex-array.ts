/**
 * Host storage of complex arrays: `Complex64Array` / `Complex128Array`, zero-copy views of interleaved
 * parts (`re0, im0, re1, im1, …`) in a Float32Array / Float64Array, the layout of CUDA's float2 /
 * double2 and of the kernels' c64 / c128 arrays (docs/kernel-language.md#complex-numbers-c64-c128).
 */
import { CudaScriptError } from "./errors";

/** A complex value: what `.get(i)` returns and `.set(i, z)` and scalar c64/c128 parameters take. */
export interface ComplexValue {
  readonly re: number;
  readonly im: number;
}

type Parts = Float32Array | Float64Array;
type PartsCtor<P extends Parts> = { new (n: number): P; new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): P; readonly BYTES_PER_ELEMENT: number; readonly name: string };

abstract class ComplexArrayBase<P extends Parts> implements Iterable<ComplexValue> {
  /** The interleaved parts (2 × length numbers), sharing memory with this array. */
  readonly data: P;

  protected constructor(ctor: PartsCtor<P>, what: string, source: number | ArrayBufferLike | P, byteOffset?: number, length?: number) {
    if (typeof source === "number") {
      if (!Number.isInteger(source) || source < 0)
        throw new CudaScriptError("CSR056", `new ${what}(length): the length is a whole number ≥ 0 of complex elements, got ${source}`);
      this.data = new ctor(2 * source);
      return;
    }
    if (source instanceof ctor) {
      if (source.length % 2 !== 0)
        throw new CudaScriptError("CSR056", `${what}.wrap: a ${ctor.name} of interleaved parts has an even length (re, im per element), got ${source.length}`);
      this.data = source;
      return;
    }
    if (source instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && source instanceof SharedArrayBuffer)) {
      const offset = byteOffset ?? 0;
      const bytes = 2 * ctor.BYTES_PER_ELEMENT;
      if (offset % ctor.BYTES_PER_ELEMENT !== 0 || (length === undefined && (source.byteLength - offset) % bytes !== 0))
        throw new CudaScriptError("CSR056", `new ${what}(buffer, byteOffset): the offset must be a multiple of ${ctor.BYTES_PER_ELEMENT} and the bytes a whole number of ${bytes}-byte elements (got offset ${offset} of ${source.byteLength} bytes)`);
      this.data = length === undefined ? new ctor(source, offset) : new ctor(source, offset, 2 * length);
      return;
    }
    throw new CudaScriptError("CSR056", `new ${what}(…) takes a length, an ArrayBuffer or an interleaved ${ctor.name}, got ${ArrayBuffer.isView(source) ? (source as object).constructor.name : typeof source}`);
  }

  /** Number of complex elements. */
  get length(): number {
    return this.data.length >> 1;
  }
  get buffer(): ArrayBufferLike {
    return this.data.buffer;
  }
  get byteOffset(): number {
    return this.data.byteOffset;
  }
  get byteLength(): number {
    return this.data.byteLength;
  }

  get(i: number): ComplexValue {
    this.checkIndex(i);
    return { re: this.data[2 * i]!, im: this.data[2 * i + 1]! };
  }

  set(i: number, z: ComplexValue): void {
    this.checkIndex(i);
    if (!isComplexValue(z)) throw new CudaScriptError("CSR056", `set(${i}, z): z is a complex value { re, im } of two numbers`);
    this.data[2 * i] = z.re;
    this.data[2 * i + 1] = z.im;
  }

  private checkIndex(i: number): void {
    if (!Number.isInteger(i) || i < 0 || i >= this.length) throw new CudaScriptError("CSR056", `index ${i} is outside 0..${this.length - 1} of this complex array`);
  }

  *[Symbol.iterator](): Iterator<ComplexValue> {
    for (let i = 0; i < this.length; i++) yield { re: this.data[2 * i]!, im: this.data[2 * i + 1]! };
  }
}

export class Complex64Array extends ComplexArrayBase<Float32Array> {
  static readonly BYTES_PER_ELEMENT = 8;
  /** `new Complex64Array(n)`, over an ArrayBuffer, or over an interleaved Float32Array (zero-copy). */
  constructor(source: number | ArrayBufferLike | Float32Array, byteOffset?: number, length?: number) {
    super(Float32Array, "Complex64Array", source, byteOffset, length);
  }
  /** A Complex64Array over interleaved parts, sharing their memory. */
  static wrap(parts: Float32Array): Complex64Array {
    return new Complex64Array(parts);
  }
}

export class Complex128Array extends ComplexArrayBase<Float64Array> {
  static readonly BYTES_PER_ELEMENT = 16;
  /** `new Complex128Array(n)`, over an ArrayBuffer, or over an interleaved Float64Array (zero-copy). */
  constructor(source: number | ArrayBufferLike | Float64Array, byteOffset?: number, length?: number) {
    super(Float64Array, "Complex128Array", source, byteOffset, length);
  }
  /** A Complex128Array over interleaved parts, sharing their memory. */
  static wrap(parts: Float64Array): Complex128Array {
    return new Complex128Array(parts);
  }
}

export type ComplexArray = Complex64Array | Complex128Array;

export function isComplexArray(v: unknown): v is ComplexArray {
  return v instanceof Complex64Array || v instanceof Complex128Array;
}

export function isComplexValue(v: unknown): v is ComplexValue {
  return typeof v === "object" && v !== null && typeof (v as ComplexValue).re === "number" && typeof (v as ComplexValue).im === "number";
}
