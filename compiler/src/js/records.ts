/**
 * Records in the simulator's JavaScript (docs/kernel-language.md#records). A record array arrives as
 * its bytes (a Uint8Array: docs/abi.md); the kernel's set-up makes one typed view of those bytes per
 * field element type (`ps$rFloat32Array`), so a field of record `i` is one typed-array element:
 * `(i * size + offset) / bytes`, exact because numpy's align=True layout puts every field at a multiple
 * of its width and makes the size a multiple of every field's width (dtypes/records.ts). The byte
 * offset of an argument is a multiple of 8 (device allocations, host typed arrays' buffers).
 */
import { DTYPES } from "../dtypes/table";
import type { RecordField } from "../dtypes/records";
import { isComplex, type RecordType } from "../ir/types";
import { halfRead, halfWrite } from "./f16";

/** The view of the record array `data`'s bytes through which `field` is read. */
function fieldView(data: string, field: RecordField): string {
  return `${data}$r${DTYPES[field.dtype].simArray}`;
}

/** The index of the field's first element in its view: a complex field's view is of its parts (c64 at a multiple of 4 bytes). */
function fieldIndex(record: RecordType, field: RecordField, index: string): string {
  const w = DTYPES[DTYPES[field.dtype].part].bytes, per = record.layout.size / w, at = field.offset / w;
  const i = /^[\w$]+$/.test(index) ? index : `(${index})`; // an N-D array's flat index is a sum
  return `${i} * ${per}${at ? ` + ${at}` : ""}`;
}

/** Set-up of a 1-D record array parameter `n` (its bytes): the record count `${n}$n` and one view per field type. */
export function recordParamSetup(n: string, arg: string, record: RecordType): string {
  const views = [...new Set(record.layout.fields.map((f) => DTYPES[f.dtype].simArray))];
  const decls = views.map((ctor) => `${n}$r${ctor} = new ${ctor}(${n}.buffer, ${n}.byteOffset, Math.floor(${n}.length / ${ctor}.BYTES_PER_ELEMENT))`);
  return `const ${n} = ${arg}, ${n}$n = Math.floor(${n}.length / ${record.layout.size})${decls.map((d) => `, ${d}`).join("")};`;
}

/** The same for a record array parameter of the stepping backend's kernel functions, given its bytes `n` and their count `${n}$0`. */
export function recordDeviceParamSetup(n: string, record: RecordType): string {
  const views = [...new Set(record.layout.fields.map((f) => DTYPES[f.dtype].simArray))];
  const decls = views.map((ctor) => `${n}$r${ctor} = new ${ctor}(${n}.buffer, ${n}.byteOffset, Math.floor(${n}.length / ${ctor}.BYTES_PER_ELEMENT))`);
  return `const ${n}$n = Math.floor(${n}$0 / ${record.layout.size})${decls.map((d) => `, ${d}`).join("")};`;
}

/** The value of `field` of record `index` (a bool as true/false, an f16 as its number). */
export function recordFieldRead(data: string, record: RecordType, field: RecordField, index: string): string {
  const view = fieldView(data, field), i = fieldIndex(record, field, index);
  if (field.dtype === "f16") return halfRead(view, i);
  // rt.cget(parts, j) reads parts[2j], parts[2j + 1]: j = i / 2 is exact (a half-integer for an odd i).
  if (isComplex(field.dtype)) return `rt.cget(${view}, (${i}) / 2)`;
  if (field.dtype === "bool") return `(${view}[${i}] !== 0)`;
  return `${view}[${i}]`;
}

/** Stores `value` (already of the field's dtype) into `field` of record `index`. */
export function recordFieldWrite(data: string, record: RecordType, field: RecordField, index: string, value: string): string {
  const view = fieldView(data, field), i = fieldIndex(record, field, index);
  if (field.dtype === "f16") return halfWrite(view, i, value);
  if (isComplex(field.dtype)) return `rt.cset(${view}, (${i}) / 2, ${value})`;
  return `${view}[${i}] = ${value}`;
}

/** The view and element index of `field` of record `index`, for an atomic helper `(array, index, …)`. */
export function recordFieldTarget(data: string, record: RecordType, field: RecordField, index: string): { data: string; index: string } {
  return { data: fieldView(data, field), index: fieldIndex(record, field, index) };
}

/**
 * Set-up of an N-D record array parameter `n`, given `{ data, shape, strides }` of its bytes (docs/abi.md:
 * the last extent counts bytes, contiguous): one view per field type, and the extents (`${n}$0`, …) and
 * strides (`${n}$s0`, …) in records.
 */
export function recordNdParamSetup(n: string, arg: string, record: RecordType, rank: number): { setup: string; dims: string[]; strides: string[] } {
  const views = [...new Set(record.layout.fields.map((f) => DTYPES[f.dtype].simArray))];
  const decls = views.map((ctor) => `${n}$r${ctor} = new ${ctor}(${n}.buffer, ${n}.byteOffset, Math.floor(${n}.length / ${ctor}.BYTES_PER_ELEMENT))`);
  const size = record.layout.size, last = rank - 1;
  const dims = Array.from({ length: rank }, (_, d) => `${n}$${d}`);
  const strides = Array.from({ length: rank }, (_, d) => (d === last ? "1" : `${n}$s${d}`));
  const extents = dims.map((d, k) => `${d} = ${k === last ? `Math.floor(${arg}.shape[${k}] / ${size})` : `${arg}.shape[${k}]`}`);
  const strideDecls = strides.slice(0, last).map((s, k) => `${s} = ${arg}.strides[${k}] / ${size}`);
  return { setup: `const ${n} = ${arg}.data${decls.map((x) => `, ${x}`).join("")}, ${[...extents, ...strideDecls].join(", ")};`, dims, strides };
}

/**
 * The same for an N-D record array parameter of the stepping backend's kernel functions, which get its
 * bytes, an offset (0), the bytes' extents and strides (`${n}$b0`…, `${n}$bs0`…): the extents and strides
 * in records and the field views.
 */
export function recordDeviceNdParamSetup(n: string, record: RecordType, rank: number): { params: string[]; setup: string; dims: string[]; strides: string[] } {
  const views = [...new Set(record.layout.fields.map((f) => DTYPES[f.dtype].simArray))];
  const decls = views.map((ctor) => `${n}$r${ctor} = new ${ctor}(${n}.buffer, ${n}.byteOffset, Math.floor(${n}.length / ${ctor}.BYTES_PER_ELEMENT))`);
  const size = record.layout.size, last = rank - 1;
  const bytes = Array.from({ length: rank }, (_, d) => `${n}$b${d}`), byteStrides = Array.from({ length: rank }, (_, d) => `${n}$bs${d}`);
  const dims = Array.from({ length: rank }, (_, d) => `${n}$${d}`);
  const strides = Array.from({ length: rank }, (_, d) => (d === last ? "1" : `${n}$s${d}`));
  const extents = dims.map((d, k) => `${d} = ${k === last ? `Math.floor(${bytes[k]} / ${size})` : bytes[k]}`);
  const strideDecls = strides.slice(0, last).map((s, k) => `${s} = ${byteStrides[k]} / ${size}`);
  return { params: [n, `${n}$o`, ...bytes, ...byteStrides], setup: `const ${[...decls, ...extents, ...strideDecls].join(", ")};`, dims, strides };
}

/** The (extents, strides) of an N-D record array's bytes, from its extents and strides in records: what a callee's recordDeviceNdParamSetup takes. */
export function recordNdCallArgs(dims: readonly string[], strides: readonly string[], size: number): string[] {
  const last = dims.length - 1;
  return [...dims.map((d, k) => (k === last ? `(${d}) * ${size}` : d)), ...strides.map((s, k) => (k === last ? "1" : `(${s}) * ${size}`))];
}
