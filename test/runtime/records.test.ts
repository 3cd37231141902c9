/**
 * Records (docs/kernel-language.md#records, docs/host-api.md#records) on the simulator: host record
 * arrays with numpy's align=True bytes, kernels reading and writing fields, copies with value
 * semantics, whole-record stores, and the launch's coded errors (CSR080–CSR084).
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bool, cuda, CudaScriptError, f16, f32, f64, i32, i64, u8 } from "cudascript";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { compileSource, kernel } from "../simulator/helpers";

const art = compileSource(`
import { cuda, f32, f64, f16, i32, i64, u8, bool, type Array1D } from "cudascript";
interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });
interface Mixed { a: u8; b: f64; c: f16; d: bool; e: i64 }
export const step = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) { const p = ps[i]; out[i] = p.x + p.y; ps[i].id = i; }
});
export const shift = cuda.jit((ps: Array1D<Particle>, qs: Array1D<Particle>) => {
  const i = cuda.grid(1);
  if (i < ps.length) { let p = ps[i]; p.x += 100; qs[(i + 1) % qs.length] = p; ps[i].y = p.x; }
});
export const mixed = cuda.jit((ms: Array1D<Mixed>) => {
  const i = cuda.grid(1);
  if (i < ms.length) { ms[i].b = ms[i].b * 2; ms[i].c = ms[i].c + 1; ms[i].d = !ms[i].d; ms[i].e += 5n; ms[i].a = ms[i].a + 1; }
});
export const byValue = cuda.jit((p: Particle, out: Array1D<f32>, ps: Array1D<Particle>) => {
  const i = cuda.grid(1);
  if (i < out.length) { p.x += i; out[i] = p.x * p.y + p.id; ps[i] = p; }
});
`);

function throwsCode(f: () => unknown, code: string, pattern?: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof CudaScriptError, `expected CudaScriptError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

const Particle = cuda.record({ x: f32, y: f32, id: i32 });

describe("host record arrays", () => {
  it("lay records out as numpy's align=True and read back what was set", () => {
    const Mixed = cuda.record({ a: u8, b: f64, c: f16, d: bool, e: i64 });
    assert.equal(Particle.itemsize, 12);
    assert.equal(Mixed.itemsize, 32);
    assert.deepEqual(Mixed.layout.fields.map((f) => f.offset), [0, 8, 16, 18, 24]);
    const a = cuda.recordArray(Mixed, 3);
    assert.equal(a.length, 3);
    assert.equal(a.bytes.length, 96);
    a.set(1, { a: 7, b: 1.5, c: 0.25, d: true, e: -3n });
    assert.deepEqual(a.get(1), { a: 7, b: 1.5, c: 0.25, d: true, e: -3n });
    assert.deepEqual(a.get(0), { a: 0, b: 0, c: 0, d: false, e: 0n });
    // The bytes are the C struct's: b is the f64 at byte 32 + 8, e the i64 at byte 32 + 24 (little-endian).
    const dv = new DataView(a.bytes.buffer);
    assert.equal(dv.getFloat64(40, true), 1.5);
    assert.equal(dv.getBigInt64(56, true), -3n);
    assert.equal(a.bytes[32], 7);
    assert.equal(a.bytes[50], 1);
  });

  it("refuse bad dtypes, indices and values with coded errors", () => {
    throwsCode(() => cuda.record({ x: f32, inner: Particle as never }), "CSR083", /nested records and array fields are not supported/);
    throwsCode(() => cuda.record({}), "CSR083");
    throwsCode(() => cuda.recordArray(Particle, -1), "CSR083");
    const a = cuda.recordArray(Particle, 2);
    throwsCode(() => a.get(2), "CSR084", /0 … 1/);
    throwsCode(() => a.set(0, { x: 1, y: 2 } as never), "CSR084", /field 'id' is i32/);
  });
});

describe("record arrays in kernels (simulator)", () => {
  it("reads and writes fields; copies have value semantics", () => {
    const n = 300;
    const ps = cuda.recordArray(Particle, n);
    for (let i = 0; i < n; i++) ps.set(i, { x: i, y: 0.5 * i, id: -1 });
    const out = new Float32Array(n);
    kernel(art, "step").launch(Math.ceil(n / 64), 64)(ps, out);
    for (let i = 0; i < n; i++) {
      assert.equal(out[i], Math.fround(i + 0.5 * i));
      assert.deepEqual(ps.get(i), { x: i, y: 0.5 * i, id: i });
    }
  });

  it("stores whole records and takes device record arrays", () => {
    const n = 50;
    const ps = cuda.recordArray(Particle, n), qs = cuda.recordArray(Particle, n);
    for (let i = 0; i < n; i++) ps.set(i, { x: i, y: 0, id: 2 * i });
    const d = cuda.toDevice(ps);
    kernel(art, "shift").launch(1, 64)(d, qs);
    d.copyToHost(ps);
    for (let i = 0; i < n; i++) {
      // p was a copy: p.x += 100 changed neither ps[i].x nor anything but the stored record.
      assert.deepEqual(ps.get(i), { x: i, y: i + 100, id: 2 * i });
      const from = (i + n - 1) % n;
      assert.deepEqual(qs.get(i), { x: from + 100, y: 0, id: 2 * from });
    }
  });

  it("handles every field kind: u8, f64, f16, bool, i64", () => {
    const Mixed = cuda.record({ a: u8, b: f64, c: f16, d: bool, e: i64 });
    const ms = cuda.recordArray(Mixed, 4);
    for (let i = 0; i < 4; i++) ms.set(i, { a: 250 + i, b: i + 0.25, c: i / 4, d: i % 2 === 0, e: BigInt(i) - 2n });
    kernel(art, "mixed").launch(1, 32)(ms);
    for (let i = 0; i < 4; i++) assert.deepEqual(ms.get(i), { a: (251 + i) & 255, b: 2 * (i + 0.25), c: i / 4 + 1, d: i % 2 !== 0, e: BigInt(i) + 3n });
  });

  it("takes a record parameter by value: an object with its fields, changed only in the kernel", () => {
    const p = { x: 1.5, y: 2, id: 7 };
    const out = new Float32Array(40), ps = cuda.recordArray(Particle, 40);
    kernel(art, "byValue").launch(1, 64)(p, out, ps);
    for (let i = 0; i < 40; i++) {
      assert.equal(out[i], (1.5 + i) * 2 + 7);
      assert.deepEqual(ps.get(i), { x: 1.5 + i, y: 2, id: 7 });
    }
    assert.deepEqual(p, { x: 1.5, y: 2, id: 7 });
    kernel(art, "byValue").launch(1, 64)(ps.get(3), out, ps);
    assert.equal(out[0], 4.5 * 2 + 7);
    throwsCode(() => kernel(art, "byValue").launch(1, 64)({ x: 1, y: 2 }, out, ps), "CSR081", /field 'id' is i32/);
    throwsCode(() => kernel(art, "byValue").launch(1, 64)(ps, out, ps), "CSR081", /by value/);
  });

  it("refuses a record array whose fields differ from the kernel's type (CSR080), and non-record arguments (CSR081, CSR082)", () => {
    const Other = cuda.record({ x: f32, id: i32, y: f32 });
    throwsCode(() => kernel(art, "step").launch(1, 32)(cuda.recordArray(Other, 4), new Float32Array(4)), "CSR080", /\{ x: f32, y: f32, id: i32 \}/);
    throwsCode(() => kernel(art, "step").launch(1, 32)(cuda.toDevice(cuda.recordArray(Other, 4)), new Float32Array(4)), "CSR080");
    throwsCode(() => kernel(art, "step").launch(1, 32)(new Uint8Array(48), new Float32Array(4)), "CSR081", /cuda\.recordArray/);
    throwsCode(() => kernel(art, "step").launch(1, 32)(cuda.recordArray(Particle, 4), cuda.recordArray(Particle, 4)), "CSR082");
  });
});

describe("results panel", () => {
  it("report(name, recordArray) publishes one array per field, diffed against a record-array reference", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "records-report-"));
    try {
      const results = path.join(dir, "results.jsonl");
      const script = `
        const { cuda, f32, i32, bool, c64, report } = require(${JSON.stringify(require.resolve("cudascript"))});
        const P = cuda.record({ x: f32, ok: bool, z: c64, id: i32 });
        const a = cuda.recordArray(P, 3), ref = cuda.recordArray(P, 3);
        for (let i = 0; i < 3; i++) { a.set(i, { x: i + 0.5, ok: i === 1, z: { re: i, im: -i }, id: 7 * i }); ref.set(i, { ...a.get(i), id: i === 2 ? 0 : 7 * i }); }
        report("ps", a, { reference: ref });`;
      const r = spawnSync(process.execPath, ["-e", script], { env: { ...process.env, CUDASCRIPT_RESULTS_FILE: results }, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      const arrays = fs.readFileSync(results, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((x) => x.type === "array");
      assert.deepEqual(arrays.map((x) => [x.name, x.dtype, x.data]), [
        ["ps.x", "f32", [0.5, 1.5, 2.5]],
        ["ps.ok", "bool", [0, 1, 0]],
        ["ps.z.re", "f32", [0, 1, 2]],
        ["ps.z.im", "f32", [0, -1, -2]],
        ["ps.id", "i32", [0, 7, 14]],
      ]);
      assert.equal(arrays.find((x) => x.name === "ps.id").diff.mismatches, 1);
      assert.equal(arrays.find((x) => x.name === "ps.x").diff.mismatches, 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a 2-D record array is published as one 2-D array per field, row-major", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "records-report-2d-"));
    try {
      const results = path.join(dir, "results.jsonl");
      const script = `
        const { cuda, f32, i32, report } = require(${JSON.stringify(require.resolve("cudascript"))});
        const C = cuda.record({ w: f32, n: i32 });
        const g = cuda.recordArray(C, [2, 3]);
        for (let r = 0; r < 2; r++) for (let c = 0; c < 3; c++) g.set(r, c, { w: r + c / 4, n: 10 * r + c });
        report("g", g);`;
      const r = spawnSync(process.execPath, ["-e", script], { env: { ...process.env, CUDASCRIPT_RESULTS_FILE: results }, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      const arrays = fs.readFileSync(results, "utf8").trim().split("\n").map((l) => JSON.parse(l)).filter((x) => x.type === "array");
      assert.deepEqual(arrays.map((x) => [x.name, x.shape, x.data]), [
        ["g.w", [2, 3], [0, 0.25, 0.5, 1, 1.25, 1.5]],
        ["g.n", [2, 3], [0, 1, 2, 10, 11, 12]],
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
