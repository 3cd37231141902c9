/**
 * Record arrays in the debugger (docs/kernel-language.md#records): the kernel sees a record array as
 * its bytes; the Variables view shows each element as its fields, `{ x: 1.5, y: 2, id: 7 }`, decoded
 * with the record's layout (numpy's align=True, the same offsets the kernel reads).
 */
import { halfTables } from "../simulator/f16-table";
import { formatValue } from "./expressions";
import type { VariableView } from "./session-types";

/** Record `i` of a record array variable as a plain object of its fields. */
export function recordElement(v: VariableView, i: number): Record<string, unknown> {
  const rec = v.record!;
  const { data, offset } = v.value as { data: Uint8Array; offset: number };
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const base = (offset + i) * rec.size;
  const out: Record<string, unknown> = {};
  for (const f of rec.fields) out[f.name] = readField(view, base + f.offset, f.dtype);
  return out;
}

function readField(view: DataView, at: number, dtype: string): unknown {
  switch (dtype) {
    case "bool":
      return view.getUint8(at) !== 0;
    case "i8":
      return view.getInt8(at);
    case "u8":
      return view.getUint8(at);
    case "i16":
      return view.getInt16(at, true);
    case "u16":
      return view.getUint16(at, true);
    case "i32":
      return view.getInt32(at, true);
    case "u32":
      return view.getUint32(at, true);
    case "i64":
      return view.getBigInt64(at, true);
    case "u64":
      return view.getBigUint64(at, true);
    case "f16":
      return halfTables().h2f[view.getUint16(at, true)];
    case "f32":
      return view.getFloat32(at, true);
    case "f64":
      return view.getFloat64(at, true);
    case "c64":
      return { re: view.getFloat32(at, true), im: view.getFloat32(at + 4, true) };
    case "c128":
      return { re: view.getFloat64(at, true), im: view.getFloat64(at + 8, true) };
    default:
      return undefined;
  }
}

/** `{ x: 1.5, y: 2, id: 7 }`: each field as the Variables view shows a value of its dtype. */
export function formatRecord(r: Record<string, unknown>): string {
  return `{ ${Object.entries(r).map(([k, x]) => `${k}: ${formatValue(x)}`).join(", ")} }`;
}
