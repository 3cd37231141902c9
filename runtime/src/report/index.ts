/**
 * `report(name, array, { reference, tolerance })`: publishes an output array to whoever shows results
 * (the VS Code results panel reads CUDASCRIPT_RESULTS_FILE). Without a results file it does nothing, so
 * programs can call it unconditionally.
 */
import { arrayRecord, resultsEnabled, writeRecord } from "./writer";
import { RecordArray } from "../records";

type HostArray = ArrayLike<number> & { readonly length: number };
interface ShapedArray {
  readonly data: HostArray;
  readonly shape: readonly number[];
}

export interface ReportOptions {
  /** Expected values (same length), for a diff in the panel; a record array's is a record array of the same fields. */
  readonly reference?: HostArray | ShapedArray | RecordArray;
  /** Relative tolerance for the diff (0 = exact). */
  readonly tolerance?: number;
  /** Shape to display with when `array` is a flat typed array holding N-D data. */
  readonly shape?: readonly number[];
}

function dtypeOf(a: HostArray): string {
  const name = (a as object).constructor?.name ?? "";
  const map: Record<string, string> = {
    Float32Array: "f32",
    Float64Array: "f64",
    Int32Array: "i32",
    Uint32Array: "u32",
    Int16Array: "i16",
    Uint16Array: "u16",
    Int8Array: "i8",
    Uint8Array: "u8",
  };
  return map[name] ?? "f64";
}

function isShaped(a: unknown): a is ShapedArray {
  return typeof a === "object" && a !== null && "data" in a && "shape" in a;
}

/**
 * A record array (docs/host-api.md#records) is reported as one array per field, `name.field`, each
 * compared with the same field of a record-array `reference`: bool fields as 0/1, i64/u64 as numbers,
 * complex fields as two arrays (`name.z.re`, `name.z.im`).
 */
function reportRecords(name: string, array: RecordArray, options: ReportOptions): void {
  const ref = options.reference instanceof RecordArray ? options.reference : undefined;
  const columns = (a: RecordArray) => {
    const out = new Map<string, { dtype: string; values: Float64Array }>();
    for (const f of a.dtype.layout.fields) {
      const parts = f.dtype === "c64" || f.dtype === "c128" ? ["re", "im"] : [undefined];
      for (const part of parts) {
        // Row-major over every record (a 2-D/3-D record array's flat index split into its indices).
        const values = Float64Array.from({ length: a.size }, (_, k) => {
          const index = a.shape.map((_, d) => Math.floor(k / a.shape.slice(d + 1).reduce((x, y) => x * y, 1)) % a.shape[d]!);
          const v = (a.get(...index) as Record<string, unknown>)[f.name];
          const x = part ? (v as Record<string, number>)[part] : v;
          return typeof x === "boolean" ? (x ? 1 : 0) : Number(x);
        });
        out.set(part ? `${f.name}.${part}` : f.name, { dtype: part ? (f.dtype === "c64" ? "f32" : "f64") : f.dtype, values });
      }
    }
    return out;
  };
  const refColumns = ref ? columns(ref) : undefined;
  for (const [field, c] of columns(array)) {
    writeRecord(arrayRecord(`${name}.${field}`, c.dtype, [...array.shape], c.values, { reference: refColumns?.get(field)?.values, tolerance: options.tolerance }));
  }
}

export function report(name: string, array: HostArray | ShapedArray | RecordArray, options: ReportOptions = {}): void {
  if (!resultsEnabled()) return;
  if (array instanceof RecordArray) return reportRecords(name, array, options);
  const data = isShaped(array) ? array.data : (array as HostArray);
  const shape = [...(options.shape ?? (isShaped(array) ? array.shape : [data.length]))];
  const given = options.reference instanceof RecordArray ? undefined : options.reference;
  const reference = given ? (isShaped(given) ? given.data : given) : undefined;
  writeRecord(arrayRecord(name, dtypeOf(data), shape, data, { reference, tolerance: options.tolerance }));
}
