/**
 * `report(name, array, { reference, tolerance })`: publishes an output array to whoever shows results
 * (the VS Code results panel reads CUDASCRIPT_RESULTS_FILE). Without a results file it does nothing, so
 * programs can call it unconditionally.
 */
import { arrayRecord, resultsEnabled, writeRecord } from "./writer";

type HostArray = ArrayLike<number> & { readonly length: number };
interface ShapedArray {
  readonly data: HostArray;
  readonly shape: readonly number[];
}

export interface ReportOptions {
  /** Expected values (same length), for a diff in the panel. */
  readonly reference?: HostArray | ShapedArray;
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

export function report(name: string, array: HostArray | ShapedArray, options: ReportOptions = {}): void {
  if (!resultsEnabled()) return;
  const data = isShaped(array) ? array.data : array;
  const shape = [...(options.shape ?? (isShaped(array) ? array.shape : [data.length]))];
  const reference = options.reference ? (isShaped(options.reference) ? options.reference.data : options.reference) : undefined;
  writeRecord(arrayRecord(name, dtypeOf(data), shape, data, { reference, tolerance: options.tolerance }));
}
