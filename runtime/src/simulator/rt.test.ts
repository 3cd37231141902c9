import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRt, fma64, formatG, formatPrintf, KernelFault, Sanitizer } from "./rt";

describe("simulator rt helpers", () => {
  const rt = createRt({ concurrent: false, deadline: Infinity, print: () => {}, uninitializedShared: "error", warn: () => {} });
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
    const late = createRt({ concurrent: false, deadline: Date.now() - 1, deadlineLabel: "--timeout 1 s", print: () => {}, uninitializedShared: "error", warn: () => {} });
    assert.throws(() => late.watchdog({ kind: "loop", fn: "k", file: "k.ts", line: 4, col: 3 }), (e: unknown) => e instanceof KernelFault && e.code === "CSR024" && /--timeout 1 s/.test(e.describe()));
    assert.equal(rt.watchdog({ kind: "loop", fn: "k", file: "k.ts", line: 4, col: 3 }), 1 << 20);
  });
  it("sanitizer epochs: compacting (tiny limit) gives the same findings as never compacting", () => {
    let seed = 99;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const sites = Array.from({ length: 5 }, (_, i) => ({ kind: "read", fn: "k", file: "k.ts", line: i + 1, col: 1 }));
    let findings = 0, compacted = 0;
    for (let trial = 0; trial < 3000; trial++) {
      const nT = 64, n = 1 + rnd(6);
      const mk = (limit: number) => {
        const s = new Sanitizer({ name: "k", file: "k.ts", line: 1 }, nT, 1, 1, limit);
        s.setSites(sites);
        s.register(0, new Float32Array(n), "a");
        s.beginBlock(0, 0, 0);
        return s;
      };
      const plain = mk(Infinity), small = mk(6);
      const vals = new Float32Array(n);
      const owner = (i: number) => (i * 13) % nT;
      for (let i = 0; i < n; i++) for (const s of [plain, small]) s.w(0, i, owner(i), 0, true);
      for (const s of [plain, small]) s.sync();
      let outcome = "ok";
      for (let step = 0; step < 150 && outcome === "ok"; step++) {
        const r = rnd(100);
        const t = rnd(3) ? owner(rnd(n)) : rnd(nT), i = rnd(10) < 8 ? rnd(n) : 0, v = rnd(3);
        const act = (s: Sanitizer): string => {
          try {
            if (r < 25) s.sync();
            else if (r < 35) s.warpSync(rnd(2) * 32);
            else if (r < 37) s.beginBlock(1, 0, 0);
            else if (r < 70) s.r(0, i, t, 1);
            else if (r < 95) s.w(0, i, t, 2, vals[i] !== v);
            else s.a(0, i, t, 3);
            return "ok";
          } catch (e) {
            return (e as KernelFault).describe();
          }
        };
        const saved = seed;
        const a = act(plain);
        seed = saved; // both see the same random choices
        const b = act(small);
        assert.equal(b, a, `trial ${trial} step ${step}`);
        if (r >= 35 && r < 37) for (let k = 0; k < n; k++) vals[k] = 0;
        if (r >= 70 && r < 95) vals[i] = v;
        outcome = a;
      }
      if (outcome !== "ok") findings++;
      if (small.ep < plain.ep) compacted++;
    }
    assert.ok(findings > 100 && compacted > 100, `findings ${findings}, compacted runs ${compacted}`);
  });
});
