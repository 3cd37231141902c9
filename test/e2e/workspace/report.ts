// Publishes arrays to the results panel through the runtime's results writer (the protocol in
// runtime/src/report). Same records as cudascript's `report(name, array, options)`; the fixtures call
// the writer directly so that they do not depend on that export being there.
import { arrayRecord, writeRecord } from "cudascript/dist/report/writer";

export function report(
  name: string,
  data: Float32Array | Float64Array | Int32Array,
  options: { shape?: number[]; reference?: ArrayLike<number>; tolerance?: number } = {},
): void {
  const dtype = data instanceof Float32Array ? "f32" : data instanceof Float64Array ? "f64" : "i32";
  writeRecord(arrayRecord(name, dtype, options.shape ?? [data.length], data, options));
}
