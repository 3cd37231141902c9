/**
 * Record (structured) dtypes: the byte layout of a C struct of dtype fields, exactly numpy's
 * `np.dtype([...], align=True)` (which is also what Numba's CUDA target reads): each field at the next
 * offset that is a multiple of its alignment, the record's size rounded up to the largest alignment.
 * A field's alignment is its dtype's natural one; a complex field aligns as its part (numpy: complex64
 * aligns to 4, complex128 to 8), bool and the 8-bit integers to 1.
 *
 * Imports only the dtype table, so the runtime (host record arrays, launch checks) reads it through
 * `@cudascript/compiler/dtypes` without the front end.
 */
import { DTYPES, type DTypeName } from "./table";

export interface RecordField {
  readonly name: string;
  readonly dtype: DTypeName;
  /** Byte offset of the field within one record. */
  readonly offset: number;
}

export interface RecordLayout {
  /** The fields in declaration order (the order of the struct's members). */
  readonly fields: readonly RecordField[];
  /** Bytes per record, padding included: a multiple of `align`. */
  readonly size: number;
  /** The largest alignment of a field (1 for a record without fields). */
  readonly align: number;
}

/** numpy's alignment of a field of dtype `d` (a complex number aligns as its part). */
export function fieldAlignment(d: DTypeName): number {
  return DTYPES[DTYPES[d].part].bytes;
}

/** The align=True layout of fields given in order as [name, dtype]. */
export function recordLayout(fields: readonly (readonly [string, DTypeName])[]): RecordLayout {
  let offset = 0, align = 1;
  const out: RecordField[] = [];
  for (const [name, dtype] of fields) {
    const a = fieldAlignment(dtype);
    offset = Math.ceil(offset / a) * a;
    out.push(Object.freeze({ name, dtype, offset }));
    offset += DTYPES[dtype].bytes;
    align = Math.max(align, a);
  }
  return Object.freeze({ fields: Object.freeze(out), size: Math.ceil(offset / align) * align, align });
}

/** The fields as `{x: f32, id: i32}` text, for messages that compare a host record dtype with a kernel's. */
export function recordFieldsText(layout: RecordLayout): string {
  return `{ ${layout.fields.map((f) => `${f.name}: ${f.dtype}`).join(", ")} }`;
}

/** True when two layouts have the same fields (names, dtypes, order), hence the same bytes. */
export function sameRecordFields(a: RecordLayout, b: RecordLayout): boolean {
  return a.fields.length === b.fields.length && a.fields.every((f, i) => f.name === b.fields[i]!.name && f.dtype === b.fields[i]!.dtype);
}
