import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { getFloat16 } from "@petamoriken/float16";
import { Float16Array } from "../float16";
import { halfTables } from "./f16-table";

/** What a Float16Array store writes for `x`: the reference the simulator's encoder must match bit for bit. */
const ref = new Float16Array(1), refBits = new Uint16Array(ref.buffer);
function storedBits(x: number): number {
  ref[0] = x;
  return refBits[0]!;
}

describe("f16 element tables of the simulator", () => {
  const { h2f, f2h } = halfTables();

  it("decodes every f16 bit pattern to the value the library reads", () => {
    const view = new DataView(new ArrayBuffer(2));
    for (let b = 0; b < 65536; b++) {
      view.setUint16(0, b, true);
      assert.ok(Object.is(h2f[b], getFloat16(view, 0, true)), `bits 0x${b.toString(16)}`);
    }
    assert.equal(h2f[0x3c00], 1);
    assert.equal(h2f[0x7bff], 65504);
    assert.equal(h2f[0x0001], 2 ** -24);
    assert.ok(Object.is(h2f[0x8000], -0));
    assert.equal(h2f[0xfc00], -Infinity);
    assert.ok(Number.isNaN(h2f[0x7e00]));
  });

  it("encodes every f16 value (-0 and NaN included) as a Float16Array store does", () => {
    for (let b = 0; b < 65536; b++) {
      const v = h2f[b]!;
      assert.equal(f2h(v), storedBits(v), `value ${v} (bits 0x${b.toString(16)})`);
    }
    assert.equal(f2h(-0), 0x8000);
    assert.equal(f2h(0), 0);
    assert.equal(f2h(NaN), storedBits(NaN));
    assert.equal(f2h(-NaN), storedBits(-NaN));
  });

  it("rounds values that are not f16 to nearest even, as a Float16Array store does", () => {
    const cases = [
      1 + 2 ** -11, // a tie: rounds down to even 1
      1 + 3 * 2 ** -11, // a tie: rounds up to even
      1 + 2 ** -11 + 2 ** -30, // just above a tie
      65519.99, 65520, 1e6, -1e6, // the largest finite, then overflow to ±Infinity
      2 ** -25, 2 ** -25 + 2 ** -40, 2 ** -26, -(2 ** -26), 1e-9, // subnormal rounding and underflow to ±0
      Math.fround(0.1), 0.1, Math.PI, -Math.E, 2 ** -14 - 2 ** -30,
    ];
    for (const x of cases) assert.equal(f2h(x), storedBits(x), `value ${x}`);
    let seed = 12345;
    const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let k = 0; k < 20000; k++) {
      const x = (random() - 0.5) * 2 ** Math.floor(random() * 50 - 30);
      assert.equal(f2h(x), storedBits(x), `value ${x}`);
    }
  });
});
