/**
 * Records (docs/kernel-language.md#records): the generated C++ (its structs, layout assertions and
 * field accesses through the cast byte pointer), built by g++ and run by the emulation, leaves the same
 * bytes in the record arrays as the simulator does, and as the plain-TypeScript reference computes.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { bool, c128, c64, Complex64Array, cuda, f16, f32, f64, i32, i64, u8 } from "cudascript";
import { complexArray, type CorpusCase } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f32, f64, f16, i32, i64, u8, bool, c64, c128, type Array1D } from "cudascript";
interface Wave { flag: bool; z: c64; w: c128; h: f16 }
interface Particle { x: f32; y: f32; id: i32 }
interface Mixed { a: u8; b: f64; c: f16; d: bool; e: i64 }
export const step = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) { const p = ps[i]; out[i] = p.x * p.y + 0.5; ps[i].id = i * 3; }
});
export const rotate = cuda.jit((ps: Array1D<Particle>, qs: Array1D<Particle>) => {
  const i = cuda.grid(1);
  if (i < ps.length) { let p = ps[i]; p.x = p.x / 3; qs[(i + 1) % qs.length] = p; }
});
export const mixed = cuda.jit((ms: Array1D<Mixed>) => {
  const i = cuda.grid(1);
  if (i < ms.length) { ms[i].b = ms[i].b * 2 + 1; ms[i].c = ms[i].c * ms[i].c; ms[i].d = !ms[i].d; ms[i].e += 5n; ms[i].a = ms[i].a + 7; }
});
export const tally = cuda.jit((ps: Array1D<Particle>, bins: Array1D<Particle>) => {
  const i = cuda.grid(1);
  if (i < ps.length) { cuda.atomic.add(bins, [i % bins.length, "id"], 1); cuda.atomic.max(bins, [i % bins.length, "y"], ps[i].y); }
});
const bump = cuda.device((ps: Array1D<Particle>, i: i32, by: f32): f32 => {
  ps[i].x += by;
  cuda.atomic.add(ps, [i, "id"], 1);
  const p = ps[i];
  return p.x + ps.length;
});
export const viaDevice = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) out[i] = bump(ps, i, 2);
});
export const waves = cuda.jit((ws: Array1D<Wave>, zs: Complex64Array) => {
  const i = cuda.grid(1);
  if (i + 1 < ws.length) {
    const v = ws[i];
    zs[i] = cuda.complex.mul(v.z, ws[i].z);
    ws[i].w = cuda.complex.c128(cuda.complex.add(v.z, cuda.complex.c64(ws[i].z.re, 1)));
    if (v.flag) ws[i].z = cuda.complex.c64(v.z.im, v.z.re);
  }
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__records_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const N = 200;
const Particle = cuda.record({ x: f32, y: f32, id: i32 });
const Mixed = cuda.record({ a: u8, b: f64, c: f16, d: bool, e: i64 });
const Wave = cuda.record({ flag: bool, z: c64, w: c128, h: f16 });

function records() {
  const ps = cuda.recordArray(Particle, N), qs = cuda.recordArray(Particle, N), ms = cuda.recordArray(Mixed, N);
  for (let i = 0; i < N; i++) {
    ps.set(i, { x: i * 1.25 - 40, y: 3 - i / 7, id: -1 });
    ms.set(i, { a: (i * 37) & 255, b: i / 3, c: (i % 17) / 4 - 2, d: i % 3 === 0, e: BigInt(i) * 1_000_000_007n - 5n });
  }
  const bins = cuda.recordArray(Particle, 7);
  for (let b = 0; b < 7; b++) bins.set(b, { x: 0, y: -1000, id: 0 });
  const ws = cuda.recordArray(Wave, N);
  for (let i = 0; i < N; i++) ws.set(i, { flag: i % 2 === 1, z: { re: i / 8, im: 1 - i / 16 }, w: { re: 0, im: 0 }, h: i });
  return { ps, qs, ms, bins, ws, zs: new Float32Array(2 * N), out: new Float32Array(N) };
}

// The emulation takes each record array as its bytes (what the ABI passes: docs/abi.md).
const c: CorpusCase = {
  name: "records",
  setup: () => {
    const r = records();
    return { ps: r.ps.bytes, qs: r.qs.bytes, ms: r.ms.bytes, bins: r.bins.bytes, ws: r.ws.bytes, zs: complexArray(r.zs), out: r.out };
  },
  launches: [
    { kernel: "step", grid: 4, block: 64, args: ["ps", "out"] },
    { kernel: "rotate", grid: 4, block: 64, args: ["ps", "qs"] },
    { kernel: "mixed", grid: 4, block: 64, args: ["ms"] },
    { kernel: "tally", grid: 4, block: 64, args: ["ps", "bins"] },
    { kernel: "waves", grid: 4, block: 64, args: ["ws", "zs"] },
    { kernel: "viaDevice", grid: 4, block: 64, args: ["qs", "out"] },
  ],
  reference: () => ({}),
};

function simulate() {
  const r = records();
  const art = makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
  kernel(art, "step").launch(4, 64)(r.ps, r.out);
  kernel(art, "rotate").launch(4, 64)(r.ps, r.qs);
  kernel(art, "mixed").launch(4, 64)(r.ms);
  kernel(art, "tally").launch(4, 64)(r.ps, r.bins);
  kernel(art, "waves").launch(4, 64)(r.ws, Complex64Array.wrap(r.zs));
  kernel(art, "viaDevice").launch(4, 64)(r.qs, r.out);
  return r;
}

describe("records: the g++ emulation of the generated C++ and the simulator agree byte for byte", () => {
  it("the module checks without errors", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => d.message), []);
  });

  it("the simulator matches plain TypeScript", () => {
    const r = simulate();
    for (let i = 0; i < N; i++) {
      const x = Math.fround(i * 1.25 - 40), y = Math.fround(3 - i / 7);

      assert.deepEqual(r.ps.get(i), { x, y, id: i * 3 });
      const from = (i + N - 1) % N, fx = Math.fround(from * 1.25 - 40), fy = Math.fround(3 - from / 7);
      // rotate's copy, then viaDevice: x += 2 and id += 1 through a device function, out = x + length.
      assert.deepEqual(r.qs.get(i), { x: Math.fround(Math.fround(fx / 3) + 2), y: fy, id: from * 3 + 1 });
      assert.equal(r.out[i], Math.fround(Math.fround(Math.fround(fx / 3) + 2) + N));
      const m = r.ms.get(i);
      assert.equal(m.e, BigInt(i) * 1_000_000_007n);
      assert.equal(m.d, i % 3 !== 0);
      assert.equal(m.a, ((i * 37) & 255) + 7 > 255 ? ((i * 37) & 255) + 7 - 256 : ((i * 37) & 255) + 7);
    }
    // Atomics on fields: counts per bin in `id`, the largest y per bin in `y`, `x` untouched.
    for (let b = 0; b < 7; b++) {
      let count = 0, max = -1000;
      for (let i = b; i < N; i += 7) {
        count++;
        max = Math.max(max, Math.fround(3 - i / 7));
      }
      assert.deepEqual(r.bins.get(b), { x: 0, y: max, id: count });
    }
    // Complex fields: c64 at byte 4 (numpy's alignment 4), c128 at 16, read, multiplied, converted, stored.
    assert.deepEqual(Wave.layout.fields.map((f) => f.offset), [0, 4, 16, 32]);
    for (let i = 0; i + 1 < N; i++) {
      const a = { re: Math.fround(i / 8), im: Math.fround(1 - i / 16) }, b = a;
      assert.equal(r.zs[2 * i], Math.fround(Math.fround(a.re * b.re) - Math.fround(a.im * b.im)));
      const w = r.ws.get(i);
      assert.deepEqual(w.w, { re: Math.fround(a.re + a.re), im: Math.fround(a.im + 1) });
      assert.deepEqual(w.z, i % 2 === 1 ? { re: a.im, im: a.re } : a);
      assert.equal(w.h, i);
    }
  });

  it("g++ leaves the same bytes", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const { outputs } = await emulateCase(gxx, "records", gen, c, c.setup());
    const sim = simulate();
    for (const [name, bytes] of [["ps", sim.ps.bytes], ["qs", sim.qs.bytes], ["ms", sim.ms.bytes], ["bins", sim.bins.bytes], ["ws", sim.ws.bytes]] as const)
      assert.equal(compareArrays(name, bytes, outputs.get(name)!), undefined, name);
    assert.equal(compareArrays("out", sim.out, outputs.get("out")!, { abs: 0, rel: 0 }), undefined);
    assert.equal(compareArrays("zs", sim.zs, outputs.get("zs")!, { abs: 0, rel: 0 }), undefined);
  });
});
