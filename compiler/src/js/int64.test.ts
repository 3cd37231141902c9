/**
 * The simulator's i64/u64 JavaScript (int64.ts): values are bigints in range, and the common
 * arithmetic is inline `BigInt.asIntN(64, …)` over direct BigInt64Array element accesses, the pattern
 * V8 compiles to native 64-bit instructions (a helper call or a number/bigint branch would not be).
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { emitSimulatorModule } from "./emit";
import { convert64, literal64 } from "./int64";

function simSource(src: string): string {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__int64_emit_test.ts");
  checker.setFileText(file, src);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error"), []);
  return emitSimulatorModule(r.module).source;
}

describe("simulator JavaScript for i64/u64", () => {
  it("i64 + * ^ >> by a constant, loads and stores are inline BigInt.asIntN over the BigInt64Array, with no helper call", () => {
    const js = simSource(`
import { cuda, i64 } from "cudascript";
export const mix = cuda.jit((a: BigInt64Array, b: BigInt64Array, out: BigInt64Array, k: i64) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = ((a[i] * k + b[i]) ^ (a[i] >> 3n)) - (b[i] & 1023n);
});
`);
    assert.match(js, /BigInt\.asIntN\(64, /);
    assert.match(js, /[\w$]+\[[\w$]+\]\) >> 3n\)/, "a shift by a constant count is the native operator on the element");
    assert.match(js, /out[\w$]*\[[\w$]+\] = BigInt\.asIntN\(64, /, "the store goes straight to the BigInt64Array");
    assert.doesNotMatch(js, /\$L\b|rt\.i64/, "no helper is called or bound");
  });

  it("a chain of wrapping operations is wrapped once, at its end; a shift right, a division or a comparison of a chain takes its wrapped value", () => {
    const js = simSource(`
import { cuda, i64 } from "cudascript";
export const chain = cuda.jit((a: BigInt64Array, out: BigInt64Array, flags: Int32Array, k: i64) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    out[i] = ((a[i] * k + a[i]) ^ (a[i] << 3n)) - -(a[i] * a[i]);
    out[i + 1] = (a[i] * k) >> 2n;
    flags[i] = a[i] * k > k ? 1 : 0;
  }
});
`);
    const store = (n: string) => js.split("\n").find((l) => l.includes(`out$1[${n}] = `) && !l.includes("$oob"))!;
    assert.equal(store("i$4").match(/BigInt\.asIntN/g)?.length, 1, store("i$4"));
    assert.match(store("i$4"), /^out\$1\[i\$4\] = BigInt\.asIntN\(64, \(\(\(a\$0\[i\$4\] \* k\$3\) \+ a\$0\[i\$4\]\) \^ \(a\$0\[i\$4\] << 3n\)\) - \(-\(a\$0\[i\$4\] \* a\$0\[i\$4\]\)\)\);$/);
    assert.match(js, /\(BigInt\.asIntN\(64, a\$0\[i\$4\] \* k\$3\) >> 2n\)/, "the shifted product is wrapped first");
    assert.match(js, /\(BigInt\.asIntN\(64, a\$0\[i\$4\] \* k\$3\) > k\$3\)/, "the compared product is wrapped first");
  });

  it("i64 literals are bigint literals, whatever their size", () => {
    assert.equal(literal64(5n, "i64"), "5n");
    assert.equal(literal64(-5n, "i64"), "(-5n)");
    assert.equal(literal64(2n ** 63n, "i64"), `(${-(2n ** 63n)}n)`);
    assert.equal(literal64(-1, "u64"), `${2n ** 64n - 1n}n`);
  });

  it("conversions to narrower integers keep the low bits, as C++'s casts of a long long", () => {
    const ev = (js: string, x: bigint) => new Function("x", `return ${js};`)(x) as unknown;
    const x = 0x1234_5678_9abc_def0n;
    assert.equal(ev(convert64("x", "i64", "i32"), x), 0x9abcdef0 | 0);
    assert.equal(ev(convert64("x", "i64", "u32"), x), 0x9abcdef0);
    assert.equal(ev(convert64("x", "i64", "i16"), x), -8464); // 0xdef0 as a signed 16-bit
    assert.equal(ev(convert64("x", "i64", "u16"), x), 0xdef0);
    assert.equal(ev(convert64("x", "i64", "i8"), x), -16);
    assert.equal(ev(convert64("x", "i64", "u8"), x), 0xf0);
    assert.equal(ev(convert64("x", "i64", "bool"), 0n), false);
    assert.equal(ev(convert64("x", "u64", "i64"), 2n ** 64n - 1n), -1n);
    assert.equal(ev(convert64("x", "i32", "u64"), -1 as unknown as bigint), 2n ** 64n - 1n);
  });
});
