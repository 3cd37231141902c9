/**
 * Records on the host (docs/host-api.md#records): `cuda.record({ x: f32, id: i32 })` is a record dtype,
 * Numba's `np.dtype([...], align=True)`, whose byte layout (`@cudascript/compiler/dtypes`
 * recordLayout) is the C struct the generated code reads; `cuda.recordArray(dtype, n)` is `n` records
 * in one buffer (`a.bytes`), read and written a record at a time (`a.get(i)`, `a.set(i, {…})`). Kernels
 * take a record array (or `cuda.toDevice(a)`) for an `Array1D<Particle>` parameter; the launch checks
 * that its fields are the kernel's (CSR080).
 */
import { DTYPES, recordFieldsText, recordLayout, type DTypeName, type RecordLayout } from "@cudascript/compiler/dtypes";
import { CudaScriptError } from "./errors";
import { dtypes, complexDtypes, isComplexDTypeName, type ComplexDType, type ComplexValue, type DType } from "./dtypes";

/** What a record's field may be: any dtype value (`f32`, `bool`, `i64`, `c64`, …). */
export type RecordFieldDType = DType | ComplexDType;
export type RecordFields = { readonly [field: string]: RecordFieldDType };

/** The JavaScript value of a field: a number, a boolean (bool), a bigint (i64/u64) or { re, im } (c64/c128). */
export type RecordFieldValue<D> = D extends DType<"bool"> ? boolean : D extends DType<"i64" | "u64"> ? bigint : D extends ComplexDType ? ComplexValue : number;
/** One record's value: `{ x: number, id: number }` for `cuda.record({ x: f32, id: i32 })`. */
export type RecordValue<F extends RecordFields> = { [K in keyof F]: RecordFieldValue<F[K]> };

/** A record dtype: its fields (in order) and their C-struct layout (numpy's align=True). */
export class RecordDtype<F extends RecordFields = RecordFields> {
  readonly kind = "record";
  readonly layout: RecordLayout;
  /** Bytes per record, padding included (numpy's `itemsize`). */
  readonly itemsize: number;
  constructor(readonly fields: F) {
    if (typeof fields !== "object" || fields === null || Array.isArray(fields))
      throw new CudaScriptError("CSR083", `cuda.record takes an object of fields, e.g. cuda.record({ x: f32, id: i32 }), got ${describe(fields)}`);
    const list: [string, DTypeName][] = [];
    for (const [name, d] of Object.entries(fields)) {
      const dn = (d as { name?: unknown } | undefined)?.name;
      const known = typeof dn === "string" && ((dtypes as Record<string, unknown>)[dn] === d || (complexDtypes as Record<string, unknown>)[dn] === d);
      if (!known)
        throw new CudaScriptError(
          "CSR083",
          `cuda.record: field '${name}' is ${describe(d)}, but fields are dtypes imported from "cudascript" (f32, i32, bool, i64, f16, c64, …); nested records and array fields are not supported: flatten them into fields of their own`,
        );
      list.push([name, dn as DTypeName]);
    }
    if (list.length === 0) throw new CudaScriptError("CSR083", "cuda.record needs at least one field, e.g. cuda.record({ x: f32 })");
    this.layout = recordLayout(list);
    this.itemsize = this.layout.size;
    Object.freeze(this);
  }
  toString(): string {
    return `record ${recordFieldsText(this.layout)}`;
  }
}

export function record<F extends RecordFields>(fields: F): RecordDtype<F> {
  return new RecordDtype(fields);
}

type FieldView = { [i: number]: number | bigint };

/**
 * Records of one record dtype in one buffer, laid out as the C struct array a kernel reads: `n` records
 * (`cuda.recordArray(P, n)`, for `Array1D<P>`) or a C-order 2-D / 3-D array of them
 * (`cuda.recordArray(P, [rows, cols])`, for `Array2D<P>`), read and written a record at a time.
 */
export class RecordArray<F extends RecordFields = RecordFields> {
  /** The records' bytes (what is copied to and from the device), row-major. */
  readonly bytes: Uint8Array;
  /** The extents in records: `[n]`, `[rows, cols]` or `[d0, d1, d2]`. */
  readonly shape: readonly number[];
  /** The first extent (the number of records of a 1-D array, of rows of a 2-D one: numpy's `len`). */
  readonly length: number;
  /** The number of records. */
  readonly size: number;
  private readonly views = new Map<string, FieldView>();

  constructor(readonly dtype: RecordDtype<F>, shape: number | readonly number[]) {
    if (!(dtype instanceof RecordDtype)) throw new CudaScriptError("CSR083", `cuda.recordArray takes a record dtype (cuda.record({ … })) first, got ${describe(dtype)}`);
    const dims = typeof shape === "number" ? [shape] : Array.isArray(shape) ? [...(shape as readonly number[])] : undefined;
    if (!dims || dims.length < 1 || dims.length > 3 || dims.some((d) => !Number.isInteger(d) || d < 0))
      throw new CudaScriptError("CSR083", `cuda.recordArray: the shape is a number of records ≥ 0, or [rows, cols] / [d0, d1, d2] of them, got ${describe(shape)}`);
    this.shape = Object.freeze(dims);
    this.length = dims[0]!;
    this.size = dims.reduce((a, b) => a * b, 1);
    this.bytes = new Uint8Array(this.size * dtype.itemsize);
  }

  /** The number of dimensions (1 to 3). */
  get ndim(): number {
    return this.shape.length;
  }

  /** A copy of a record as a plain object: `get(i)`, `get(i, j)`, `get(i, j, k)` by the array's rank. */
  get(...index: number[]): RecordValue<F> {
    const base = this.byteIndex(index, "get");
    const out: Record<string, unknown> = {};
    for (const f of this.dtype.layout.fields) out[f.name] = this.readField(f.dtype, base + f.offset);
    return out as RecordValue<F>;
  }

  /**
   * Stores every field of `value` into a record (each converted as a typed-array store converts):
   * `set(i, value)`, `set(i, j, value)`, `set(i, j, k, value)` by the array's rank.
   */
  set(...args: [...index: number[], value: RecordValue<F>]): void {
    const value = args[args.length - 1] as RecordValue<F>;
    const index = args.slice(0, -1) as number[];
    const base = this.byteIndex(index, "set");
    const at = index.join(", ");
    if (typeof value !== "object" || value === null) throw new CudaScriptError("CSR084", `set(${at}, …) takes an object with the fields ${recordFieldsText(this.dtype.layout)}, got ${describe(value)}`);
    for (const f of this.dtype.layout.fields) {
      const v = (value as Record<string, unknown>)[f.name];
      const kind = DTYPES[f.dtype].kind, int64 = f.dtype === "i64" || f.dtype === "u64";
      const ok = kind === "complex" ? typeof v === "object" && v !== null && typeof (v as ComplexValue).re === "number" && typeof (v as ComplexValue).im === "number" : kind === "bool" ? typeof v === "boolean" || typeof v === "number" : int64 ? typeof v === "bigint" : typeof v === "number";
      if (!ok)
        throw new CudaScriptError("CSR084", `set(${at}, …): field '${f.name}' is ${f.dtype}, so it needs ${kind === "complex" ? "{ re, im }" : kind === "bool" ? "a boolean" : int64 ? "a bigint" : "a number"}, got ${describe(v)}`);
      this.writeField(f.dtype, base + f.offset, v);
    }
  }

  private byteIndex(index: readonly number[], what: string): number {
    if (index.length !== this.shape.length)
      throw new CudaScriptError("CSR084", `${what}(${index.map(describe).join(", ")}): this record array has ${this.shape.length} dimension${this.shape.length > 1 ? "s" : ""} [${this.shape.join(", ")}]: give one index per dimension`);
    let flat = 0;
    index.forEach((i, d) => {
      const n = this.shape[d]!;
      if (!Number.isInteger(i) || i < 0 || i >= n) throw new CudaScriptError("CSR084", `${what}(${index.map(describe).join(", ")}): index ${d} must be a whole number in 0 … ${n - 1}`);
      flat = flat * n + i;
    });
    return flat * this.dtype.itemsize;
  }

  /** The typed view of the bytes that holds fields of `d` (a complex field through its part's view). */
  private view(d: DTypeName): FieldView {
    const part = DTYPES[d].part;
    let v = this.views.get(part);
    if (!v) {
      const Ctor = dtypes[part as Exclude<DTypeName, "c64" | "c128">].arrayType as unknown as new (b: ArrayBufferLike, o: number, n: number) => FieldView;
      v = new Ctor(this.bytes.buffer, this.bytes.byteOffset, Math.floor(this.bytes.length / DTYPES[part].bytes));
      this.views.set(part, v);
    }
    return v;
  }

  private readField(d: DTypeName, byte: number): unknown {
    const w = DTYPES[DTYPES[d].part].bytes, v = this.view(d), at = byte / w;
    if (isComplexDTypeName(d)) return { re: v[at] as number, im: v[at + 1] as number };
    if (d === "bool") return v[at] !== 0;
    return v[at];
  }

  private writeField(d: DTypeName, byte: number, value: unknown): void {
    const w = DTYPES[DTYPES[d].part].bytes, v = this.view(d), at = byte / w;
    if (isComplexDTypeName(d)) {
      v[at] = (value as ComplexValue).re;
      v[at + 1] = (value as ComplexValue).im;
    } else if (d === "bool") v[at] = value ? 1 : 0;
    else v[at] = value as number | bigint;
  }
}

export function recordArray<F extends RecordFields>(dtype: RecordDtype<F>, shape: number | readonly [number] | readonly [number, number] | readonly [number, number, number]): RecordArray<F> {
  return new RecordArray(dtype, shape);
}

/**
 * The shape of a record array's bytes as kernels receive them (docs/abi.md): its extents, the last one
 * counting bytes (records × itemsize), C order.
 */
export function recordByteShape(shape: readonly number[], itemsize: number): number[] {
  return shape.map((d, k) => (k === shape.length - 1 ? d * itemsize : d));
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "object") return `a ${(v as object).constructor?.name ?? "object"}`;
  if (typeof v === "bigint") return `${v}n`;
  return typeof v === "string" ? JSON.stringify(v) : String(v);
}
