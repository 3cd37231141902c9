import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { KernelChecker } from "../checker/checker";
import { convertJs, emitSimulatorModule, literal } from "./emit";
import { makeArtifact } from "./artifact";

function module(src: string) {
  const checker = new KernelChecker();
  const file = path.join(__dirname, "__emit_test.ts");
  checker.setFileText(file, src);
  const r = checker.checkFile(file);
  assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error"), []);
  return r;
}

describe("simulator JavaScript emitter", () => {
  it("literals and conversions follow the language's semantics", () => {
    assert.equal(literal(0.1, "f32"), String(Math.fround(0.1)));
    assert.equal(literal(-1, "u32"), "4294967295");
    assert.equal(literal(300, "u8"), "44");
    assert.equal(literal(-0, "f64"), "(-0)");
    assert.equal(literal(NaN, "f32"), "NaN");
    const ev = (js: string, x: number) => new Function("x", `return ${js};`)(x) as number;
    assert.equal(ev(convertJs("x", "f64", "i32"), -3.9), -3);
    assert.equal(ev(convertJs("x", "f64", "i32"), NaN), 0);
    assert.equal(ev(convertJs("x", "f64", "u32"), -1), 4294967295);
    assert.equal(ev(convertJs("x", "i32", "i8"), 200), -56);
    assert.equal(ev(convertJs("x", "i32", "u16"), -1), 65535);
    assert.equal(ev(convertJs("x", "i32", "f32"), 16777217), 16777216);
  });
  it("plain loops for barrier-free kernels, fission for kernels that synchronise", () => {
    const r = module(`
import { cuda, f32 } from "cudascript";
export const add = cuda.jit((a: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = a[i] + 1;
});
export const red = cuda.jit((a: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  s[t] = a[t];
  cuda.syncthreads();
  for (let k = 32; k > 0; k >>= 1) {
    if (t < k) s[t] += s[t + k];
    cuda.syncthreads();
  }
  if (t === 0) out[0] = s[0];
});
export const warp = cuda.jit((a: Int32Array) => {
  const t = cuda.threadIdx.x;
  a[t] = cuda.shflXorSync(0xffffffff, a[t], 1);
});`);
    const m = emitSimulatorModule(r.module);
    assert.deepEqual(m.kernels.map((k) => [k.name, k.strategy, k.usesBarriers, k.usesWarpOps]), [
      ["add", "loop", false, false],
      ["red", "fission", true, false],
      ["warp", "fission", false, true],
    ]);
    // The reduction's loop counter is block-uniform: a plain JS loop, not per-thread state.
    assert.match(m.source, /\$L\d+: for \(;;\) \{\nif \(!\(k\$\d+ > 0\)\) break;/);
    assert.doesNotMatch(m.source, /\$V_k\$/);
    // Every array access is bounds-checked.
    assert.match(m.source, /\$oob\(/);
    assert.doesNotThrow(() => new Function("rt", m.source));
    const san = emitSimulatorModule(r.module, { sanitize: true });
    assert.match(san.source, /\$S\.sync\(\)/); // a barrier outside divergent code cannot diverge
    assert.match(san.source, /rt\.watchdog/);
  });
  it("artifacts carry signatures, both variants and the IR", () => {
    const r = module(`
import { cuda, f32, Array2D } from "cudascript";
export const k = cuda.jit((m: Array2D<f32>, v: f32, d: Uint8Array) => {
  const s = cuda.shared.array(0, f32);
  const [x, y] = cuda.grid(2);
  if (y < m.shape[0] && x < m.shape[1]) m[y][x] = v + s.length;
});`);
    const a = makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes });
    assert.equal(a.format, "cudascript-artifact@1");
    assert.deepEqual(a.kernels.k!.signature, [
      { name: "m", kind: "array", dtype: "f32", rank: 2 },
      { name: "v", kind: "scalar", dtype: "f32", rank: 0 },
      { name: "d", kind: "array", dtype: "u8", rank: 1 },
    ]);
    assert.equal(a.kernels.k!.usesDynamicShared, true);
    assert.ok(a.simulator.js.length > 0 && a.simulator.jsSanitize.length > 0);
    assert.equal(a.ir?.kernels[0]?.name, "k");
    assert.doesNotThrow(() => JSON.parse(JSON.stringify(a)));
  });
  it("sanitizer: no watchdog counter in loops with a small constant trip count; every other loop keeps one", () => {
    const r = module(`
import { cuda, f32, i32, u32 } from "cudascript";
export const k = cuda.jit((a: Float32Array, n: i32) => {
  let acc: f32 = 0;
  for (let j = 0; j < 16; j++) acc += a[j];        // small and counted: no watchdog
  for (let j = 10; j >= 0; j -= 2) acc += a[j];    // counted down (i32): none either
  for (let j = 0; j < n; j++) acc += a[j];          // bound not constant
  for (let j = 0; j < 16; j++) { acc += a[j]; j = j - 1; }  // counter changed in the body
  for (let j: u32 = 10; j >= 0; j--) acc += a[j];   // u32 counting down never fails the test
  for (let j = 0; j < 100000; j++) acc += a[0];     // too many iterations to call small
  let w = 1;
  while (w < n) w = w * 2;
  a[0] = acc;
});`);
    const san = emitSimulatorModule(r.module, { sanitize: true }).source;
    const lines = (san.match(/rt\.watchdog\(\$sites\[(\d+)\]\)/g) ?? []).map((m) => JSON.parse(san.match(/const \$sites = (.*);/)![1]!)[Number(/\d+/.exec(m)![0])].line);
    assert.deepEqual(lines, [7, 8, 9, 10, 12]);
  });
  it("sanitizer: shared accesses check inline against the epoch values, with one shadow number per access", () => {
    const r = module(`
import { cuda, f32 } from "cudascript";
export const k = cuda.jit((out: Float32Array) => {
  const s = cuda.shared.array([4, 8], f32);
  const t = cuda.threadIdx.x;
  s[t & 3][t >> 2] = t;
  cuda.syncthreads();
  out[t] = s[(t + 1) & 3][t >> 2];
});`);
    const san = emitSimulatorModule(r.module, { sanitize: true }).source;
    assert.match(san, /const \{ WP: \$WP0, RP: \$RP0, UO: \$UO0 \} = \$S\.shadow\(0\);/);
    assert.match(san, /\$S\.sync\(\); \$G\.sync\(\);\n\$E = \$S\.E; \$E1 = \$S\.E1; \$BS = \$S\.BS; \$EB = \$S\.EB; \$ud = \$S\.UD; \$GE = \$G\.E;/);
    // The global array parameter's accesses check inline against the global detector's bounds (sanitize-global.ts).
    assert.match(san, /out\$\d+\$GW\[/);
    assert.match(san, /\(\$f\d = /, "a 2-D flat index is computed once for the checks");
    assert.match(san, /\$WP0\[\$f\d\] = \$M1 \+ \d+; \$RP0\[\$f\d\] = 0;/, "a write records writer and site in one store");
    assert.doesNotThrow(() => new Function("rt", san));
  });

  it("undefined values: shadows only where a shared read can reach, checks only where such a value is used", () => {
    const r = module(`
import { cuda, f32 } from "cudascript";
export const k = cuda.jit((x: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(64, f32);
  const t = cuda.threadIdx.x;
  const scale = x[0] * 2;
  s[t] = x[t] * scale;
  cuda.syncthreads();
  const v = s[63 - t];
  out[t] = v + scale;
});
export const plain = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  const y = x[i] * 2;
  if (y > 0) out[i] = y;
});`);
    const san = emitSimulatorModule(r.module, { sanitize: true }).source;
    assert.match(san, /\$u_v\$\d+ = \$U;/, "v, read from shared memory, has a shadow");
    assert.doesNotMatch(san, /\$u_(scale|t|y|i)\$/, "locals no shared read reaches have none");
    // Checked where the value is stored (directly, or as the global race check's `$sv`, sanitize-global.ts).
    assert.match(san, /(out\$\d+\[t\$\d+\] = |const \$sv = )\(\$u0 = \$U, \$U = 0, \$uchk\(/, "the global store of v is checked");
    const plainCode = san.slice(san.indexOf("function $k1_plain"));
    assert.doesNotMatch(plainCode.slice(0, plainCode.indexOf("return {")), /\$uchk|\$U\b/, "a kernel without shared reads checks nothing");
    const none = module(`
import { cuda } from "cudascript";
export const add = cuda.jit((a: Float32Array, out: Float32Array) => { const i = cuda.grid(1); if (i < a.length) out[i] = a[i] + 1; });`);
    assert.doesNotMatch(emitSimulatorModule(none.module, { sanitize: true }).source, /\$U|\$uchk/, "a module without shared memory emits no tracking at all");
  });
});
