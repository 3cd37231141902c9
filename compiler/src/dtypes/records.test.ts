import { strict as assert } from "node:assert";
import { test } from "node:test";
import { recordLayout } from "./records";
import type { DTypeName } from "./table";

// Expected sizes and offsets printed by numpy 2.4.6: np.dtype([...], align=True).itemsize / .alignment / .fields[name][1].
const NUMPY: { fields: [string, DTypeName][]; size: number; align: number; offsets: number[] }[] = [
  { fields: [["x", "f32"], ["y", "f32"], ["id", "i32"]], size: 12, align: 4, offsets: [0, 4, 8] },
  { fields: [["a", "u8"], ["b", "f64"], ["c", "i16"], ["d", "bool"]], size: 24, align: 8, offsets: [0, 8, 16, 18] },
  { fields: [["flag", "bool"], ["z", "c64"], ["w", "c128"], ["h", "f16"]], size: 40, align: 8, offsets: [0, 4, 16, 32] },
  { fields: [["k", "i8"], ["v", "i64"], ["u", "u64"], ["s", "u16"]], size: 32, align: 8, offsets: [0, 8, 16, 24] },
];

test("record layouts are numpy's align=True layouts (size, alignment, field offsets)", () => {
  for (const c of NUMPY) {
    const l = recordLayout(c.fields);
    assert.equal(l.size, c.size, JSON.stringify(c.fields));
    assert.equal(l.align, c.align, JSON.stringify(c.fields));
    assert.deepEqual(l.fields.map((f) => f.offset), c.offsets, JSON.stringify(c.fields));
  }
});
