import { test } from "node:test";
import assert from "node:assert/strict";
import { nvrtcOrSkip } from "../../../test/dist/support/toolchain-or-skip";
import { checkSources } from "../../../test/dist/support/check-sources";
import type { IrModule } from "../ir/nodes";
import { kernelSignature } from "../ir/nodes";
import { generateCuda } from "./generate";
import { emitSimulatorModule } from "../js/emit";

const HEADER = `import { cuda, f32, f64, f16, i32, i64, u8, bool, c64, c128, type Array1D } from "cudascript";
interface Wave { flag: bool; z: c64; w: c128 }
interface Particle { x: f32; y: f32; id: i32 }
const Particle = cuda.record({ x: f32, y: f32, id: i32 });
interface Mixed { a: u8; b: f64; c: f16; d: bool; e: i64 }
`;

export const STEP = `export const step = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < ps.length) { const p = ps[i]; out[i] = p.x + p.y; ps[i].id = i; }
});
export const swap = cuda.jit((ps: Array1D<Particle>, ms: Array1D<Mixed>) => {
  const i = cuda.grid(1);
  if (i + 1 < ps.length) { let p = ps[i]; p.x += 1; ps[i] = ps[i + 1]; ps[i + 1] = p; }
  if (i < ms.length) { ms[i].b = ms[i].b * 2; ms[i].c = ms[i].c + 1; ms[i].d = !ms[i].d; ms[i].e += 5n; ms[i].a = ms[i].a + 1; }
});
export const tally = cuda.jit((ps: Array1D<Particle>, ms: Array1D<Mixed>) => {
  const i = cuda.grid(1);
  cuda.atomic.add(ps, [i % ps.length, "x"], 1.5);
  cuda.atomic.add(ms, [0, "e"], 1n);
  cuda.atomic.max(ms, [0, "b"], 2.0);
});
const bump = cuda.device((ps: Array1D<Particle>, i: i32): f32 => { ps[i].x += 1; cuda.atomic.add(ps, [i, "id"], 1); return ps[i].x + ps.length; });
export const viaDevice = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => { out[0] = bump(ps, 0); });
export const byValue = cuda.jit((p: Particle, out: Array1D<f32>) => { p.x += 1; out[0] = p.x + p.id; });
export const waves = cuda.jit((ws: Array1D<Wave>, zs: Complex64Array) => {
  const i = cuda.grid(1);
  if (i + 1 < ws.length) { const v = ws[i]; zs[i] = cuda.complex.mul(v.z, ws[i].z); ws[i].w = cuda.complex.c128(v.z); ws[i + 1] = v; }
});`;

function check(body: string) {
  return checkSources({ "k.ts": HEADER + body });
}

function moduleOf(body: string): IrModule {
  const r = check(body);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.code} ${d.message}`), []);
  return r.module;
}

test("record arrays: a struct with numpy's layout, static_asserts, fields through the struct pointer", (t) => {
  const m = moduleOf(STEP);
  const src = generateCuda(m, { lineDirectives: false }).source;
  assert.match(src, /struct cs_rec_Particle \{\n  float f_x;\n  float f_y;\n  int f_id;\n\};/);
  assert.match(src, /typedef char cs_rec_Particle_size_is_12\[sizeof\(cs_rec_Particle\) == 12 \? 1 : -1\];/);
  assert.match(src, /typedef char cs_rec_Mixed_b_at_8\[\(unsigned long long\)&\(\(\(cs_rec_Mixed\*\)0\)->f_b\) == 8 \? 1 : -1\];/);
  assert.match(src, /cs_rec_Mixed_e_at_24\[/);
  assert.match(src, /reinterpret_cast<cs_rec_Particle\*>\(ps\)\[i\]\.f_id = i;/);
  assert.match(src, /\(ps_len \/ 12\)/);
  // A c64 field sits at numpy's offset 4: its member is the parts struct aligned as a float.
  assert.match(src, /struct cs_rec_Wave \{\n  unsigned char f_flag;\n  cs_c64_field f_z;\n  cs_c128_field f_w;\n\};/);
  assert.match(src, /cs_rec_Wave_z_at_4\[/);
  // A record by value: a one-record array whose fields are copied into locals on entry.
  assert.match(src, /void byValue\(unsigned char\* __restrict__ p, int p_len, float\* __restrict__ out, int out_len\) \{\n  float p_x = reinterpret_cast<cs_rec_Particle\*>\(p\)\[0\]\.f_x;/);
  assert.deepEqual(kernelSignature(m.kernels.find((k) => k.name === "byValue")!)[0]!.record?.byValue, true);
  // A device function takes the bytes with their byte count, as a kernel does, and counts records itself.
  assert.match(src, /bump\(ps, ps_len, 1, 0\)/);
  assert.match(src, /\(ps_len_?\d* \/ 12\)/);
  assert.match(src, /atomicAdd\(&reinterpret_cast<cs_rec_Particle\*>\(ps\)\[[^\]]+\]\.f_x, 1\.5f\)/);
  const sig = kernelSignature(m.kernels[0]!);
  assert.deepEqual(sig[0], { name: "ps", kind: "array", dtype: "u8", rank: 1, record: { name: "Particle", fields: [{ name: "x", dtype: "f32" }, { name: "y", dtype: "f32" }, { name: "id", dtype: "i32" }], size: 12 } });
  const nvrtc = nvrtcOrSkip(t);
  if (!nvrtc) return;
  const r = nvrtc.compile({ source: src, name: "k.cu", options: ["--gpu-architecture=compute_80"] });
  assert.ok(r.ok, r.log);
  // The layout checks bite: a struct whose member is not at numpy's offset does not compile.
  const wrong = src.replace("cs_rec_Mixed_b_at_8[(unsigned long long)&(((cs_rec_Mixed*)0)->f_b) == 8", "cs_rec_Mixed_b_at_8[(unsigned long long)&(((cs_rec_Mixed*)0)->f_b) == 4");
  assert.notEqual(wrong, src);
  assert.equal(nvrtc.compile({ source: wrong, name: "k.cu", options: ["--gpu-architecture=compute_80"] }).ok, false);
});

test("record arrays in the simulator's JavaScript: one typed view per field type", () => {
  const js = emitSimulatorModule(moduleOf(STEP)).source;
  assert.match(js, /(ps\$\d+)\$rFloat32Array = new Float32Array\(\1\.buffer, \1\.byteOffset/);
  assert.match(js, /(ps\$\d+)\$n = Math\.floor\(\1\.length \/ 12\)/);
  assert.match(js, /ps\$\d+\$rInt32Array\[i\$\d+ \* 3 \+ 2\] = i\$\d+;/);
});

test("record diagnostics: unknown fields, whole records as values, object-array parameters", () => {
  const codes = (body: string) => check(body).diagnostics.map((d) => d.code);
  assert.deepEqual(codes(`export const k = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => { out[0] = ps[0].z; });`), ["CS2042"]);
  assert.deepEqual(codes(`export const k = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => { out[0] = ps[0]; });`), ["CS2044"]);
  assert.deepEqual(codes(`export const k = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => { const p = ps[0]; out[0] = p; });`), ["CS2044"]);
  assert.deepEqual(codes(`export const k = cuda.jit((ps: Array1D<Particle>) => { cuda.atomic.add(ps, 0, 1); });`), ["CS2044"]);
  assert.deepEqual(codes(`export const k = cuda.jit((ps: Array1D<Particle>) => { cuda.atomic.add(ps, [0, "z"], 1); });`), ["CS2042"]);
  assert.deepEqual(codes(`export const k = cuda.jit((ms: Array1D<Mixed>) => { cuda.atomic.add(ms, [0, "a"], 1); });`), ["CS2003"]);
  // Record parameters and results of device functions (one parameter / result array per field); a result used in an expression is CS2041.
  assert.deepEqual(codes(`const f = cuda.device((p: Particle): f32 => p.x);`), []);
  assert.deepEqual(codes(`const f = cuda.device((p: Particle): Particle => p);`), []);
  assert.deepEqual(codes(`const f = cuda.device((p: Particle): Particle => p);\nexport const k = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => { out[0] = f(ps[0]).x; });`), ["CS2041"]);
  // Record arrays reached through array variables, ?: or views are used through their elements' fields, never read as bytes.
  const indirect = check(`export const k = cuda.jit((a: Array1D<Particle>, b: Array1D<Particle>, flag: bool, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  let src = a;
  if (flag) src = b;
  out[i] = src[i];
  const v = a.subarray(1, 5);
  out[i] = v[i].x;
  const w = flag ? a : b;
  w[i] = 3;
});`).diagnostics.filter((d) => d.severity === "error");
  // src[i] is a whole record read as a value, w[i] = 3 a number stored as a record (CS2044); v[i].x reads through a view.
  assert.deepEqual(indirect.map((d) => `${d.code}@${d.span.line}`), ["CS2044@10", "CS2044@14"]);
  const constCopy = check(`export const k = cuda.jit((ps: Array1D<Particle>) => { const p = ps[0]; p.x = 1; });`).diagnostics;
  assert.equal(constCopy.length, 1);
  assert.match(constCopy[0]!.message, /declare it with let/);
  const objArray = check(`export const k = cuda.jit((ps: Particle[]) => {});`).diagnostics;
  assert.equal(objArray[0]?.code, "CS2004");
  assert.match(objArray[0]!.message, /cuda\.record/);
});
