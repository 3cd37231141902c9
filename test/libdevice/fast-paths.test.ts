/**
 * The simulator's BigInt-free fast paths (fma, fmaf, rsqrt, frsqrt_rn) give exactly the results of the
 * exact BigInt paths they shortcut, on seeded random inputs built to land near rounding ties.
 */
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { BINARY32, BINARY64, roundNearestByComparison, toDyadic } from "cudascript/dist/simulator/libdevice/exact";
import { exactFma, fmafNearest, fmaNearestFast, ROUNDING, rsqrtNearest } from "cudascript/dist/simulator/libdevice/rounding";

/** xorshift32: deterministic inputs. */
function generator(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
  const view = new DataView(new ArrayBuffer(8));
  return {
    next,
    double(): number {
      const r = next();
      if (r < 0.4) return (next() - 0.5) * 2 ** (Math.floor(next() * 60) - 30);
      if (r < 0.5) return 2 ** (Math.floor(next() * 40) - 20) * (next() < 0.5 ? -1 : 1);
      if (r < 0.65) return (1 + Math.floor(next() * 2 ** 20) * 2 ** -20) * 2 ** (Math.floor(next() * 20) - 10) * (next() < 0.5 ? -1 : 1);
      view.setUint32(0, (next() * 2 ** 32) >>> 0);
      view.setUint32(4, (next() * 2 ** 32) >>> 0);
      const v = view.getFloat64(0);
      return Number.isFinite(v) ? v : 1;
    },
  };
}

test("fma's fast path equals the exact path (random and near-tie triples)", () => {
  const g = generator(12345);
  let fast = 0;
  const check = (x: number, y: number, z: number) => {
    const a = fmaNearestFast(x, y, z);
    if (a === undefined) return;
    fast++;
    const b = exactFma(x, y, z, BINARY64, "rn");
    assert.ok(Object.is(a, b), `fma(${x}, ${y}, ${z}): fast ${a}, exact ${b}`);
  };
  for (let i = 0; i < 20000; i++) {
    const x = g.double();
    const y = g.double();
    const p = x * y;
    check(x, y, g.double());
    check(x, y, -p);
    check(x, y, -p + p * 2 ** -53 * (g.next() < 0.5 ? 1 : -1));
    check(x, y, p * 2 ** -54);
    check(x, y, p * 3 * 2 ** -54);
  }
  assert.ok(fast > 50000, `the fast path decided ${fast} cases`);
});

test("fmaf's midpoint rule equals the exact path", () => {
  const g = generator(777);
  const f = Math.fround;
  let changed = 0;
  for (let i = 0; i < 20000; i++) {
    const a = 1 + (2 * Math.floor(g.next() * 2 ** 11) + 1) * 2 ** -12;
    const x = f(a * 2 ** (Math.floor(g.next() * 200) - 140));
    const y = f((1 + 2 ** -12) * (g.next() < 0.5 ? 1 : -1));
    for (const tiny of [2 ** -60, -(2 ** -60), 2 ** -80, 0]) {
      const z = f(tiny * Math.abs(x));
      const got = fmafNearest(x, y, z);
      assert.ok(Object.is(got, exactFma(x, y, z, BINARY32, "rn")), `fmaf(${x}, ${y}, ${z})`);
      if (got !== f(x * y + z)) changed++;
    }
    const [u, v, w] = [f(g.double()), f(g.double()), f(g.double())];
    assert.ok(Object.is(fmafNearest(u, v, w), exactFma(u, v, w, BINARY32, "rn")), `fmaf(${u}, ${v}, ${w})`);
  }
  assert.ok(changed > 1000, `the midpoint rule decided ${changed} cases`);
});

test("rsqrt and frsqrt_rn equal the exact comparison", () => {
  const g = generator(4242);
  const exact = (x: number, candidate: number, format: typeof BINARY64) => {
    const dx = toDyadic(x);
    return roundNearestByComparison(candidate, format, (m, e) => {
      const lhs = m * m * dx.m;
      const exp = 2 * e + dx.e;
      const d = exp >= 0 ? (lhs << BigInt(exp)) - 1n : lhs - (1n << BigInt(-exp));
      return d > 0n ? 1 : d < 0n ? -1 : 0;
    });
  };
  for (let i = 0; i < 20000; i++) {
    const x = i % 3 === 0 ? 4 ** (Math.floor(g.next() * 40) - 20) * (1 + (g.next() < 0.5 ? 2 ** -52 : -(2 ** -53))) : Math.abs(g.double());
    if (!(x > 0)) continue;
    assert.equal(rsqrtNearest(x, BINARY64), exact(x, 1 / Math.sqrt(x), BINARY64), `rsqrt(${x})`);
    const x32 = Math.fround(x);
    if (x32 > 0 && Number.isFinite(x32)) assert.equal(ROUNDING.frsqrt_rn(x32), exact(x32, Math.fround(1 / Math.sqrt(x32)), BINARY32), `frsqrt_rn(${x32})`);
  }
});
