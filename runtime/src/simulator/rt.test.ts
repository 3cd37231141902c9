import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRt, fma64, formatG, formatPrintf, KernelFault } from "./rt";

describe("simulator rt helpers", () => {
  const rt = createRt({ concurrent: false, deadline: Infinity, print: () => {} });
  it("printf formats like C (%d %u %g %f %e %x, widths)", () => {
    assert.equal(formatPrintf("%d|%u|%g|%g|%g|%g\n", [-3, -1, 0.1, 1e-7, 123456789, 100]), "-3|4294967295|0.1|1e-07|1.23457e+08|100\n");
    assert.equal(formatPrintf("%5d|%-4d|%05.1f|%x|%e|%%", [42, 7, 3.14159, 255, 12345.678]), "   42|7   |003.1|ff|1.234568e+04|%");
    assert.equal(formatG(NaN), "nan");
    assert.equal(formatG(-Infinity), "-inf");
    assert.equal(formatG(0.0001), "0.0001");
    assert.equal(formatG(0.00001), "1e-05");
    assert.equal(formatG(123456), "123456");
    assert.equal(formatG(1234567), "1.23457e+06");
  });
  it("bit intrinsics", () => {
    assert.equal(rt.popc(0xffffffff), 32);
    assert.equal(rt.popc(0b1011), 3);
    assert.equal(rt.brev(1), 0x80000000);
    assert.equal(rt.brev(0xf0), 0x0f000000);
    assert.equal(rt.ffs(0), 0);
    assert.equal(rt.ffs(8), 4);
    assert.equal(rt.ffs(-2147483648), 32);
  });
  it("fma64 rounds once", () => {
    // (1 + 2^-30)^2 - (1 + 2^-29) = 2^-60 exactly with a fused multiply-add; 0 without.
    const a = 1 + 2 ** -30;
    assert.equal(fma64(a, a, -(1 + 2 ** -29)), 2 ** -60);
    assert.equal(a * a - (1 + 2 ** -29), 0);
    assert.equal(fma64(2, 3, 4), 10);
    assert.ok(Number.isNaN(fma64(NaN, 1, 1)));
  });
  it("out-of-bounds faults carry the site, the block and the thread", () => {
    const site = { kind: "read", fn: "k", file: "/x/k.ts", line: 3, col: 5, array: "a", space: "shared" };
    const f = rt.oob(site, 10, 8, 0);
    const e = rt.threadError(f, "k", 1, 0, 0, 7, 0, 0) as KernelFault;
    assert.equal(e.code, "CSR020");
    assert.deepEqual(e.details().thread, [7, 0, 0]);
    assert.match(e.describe(), /^out-of-bounds read of shared array 'a' at \/x\/k\.ts:3:5 in kernel 'k', block \(1, 0, 0\), thread \(7, 0, 0\): index 10 is outside 0\.\.7$/);
  });
  it("the watchdog stops a loop after the deadline", () => {
    const late = createRt({ concurrent: false, deadline: Date.now() - 1, deadlineLabel: "--timeout 1 s", print: () => {} });
    assert.throws(() => late.watchdog({ kind: "loop", fn: "k", file: "k.ts", line: 4, col: 3 }), (e: unknown) => e instanceof KernelFault && e.code === "CSR024" && /--timeout 1 s/.test(e.describe()));
    assert.equal(rt.watchdog({ kind: "loop", fn: "k", file: "k.ts", line: 4, col: 3 }), 1 << 20);
  });
});
