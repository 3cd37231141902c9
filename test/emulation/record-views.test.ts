/**
 * Views of record arrays (docs/kernel-language.md#records, #views): `ps.subarray(begin)` of an
 * `Array1D<P>` and a row `g[r]` of an `Array2D<P>`, read and written through their elements (fields,
 * copies, whole-record stores in both directions, `.length`), lowered to the base array as every view
 * is. The simulator matches plain TypeScript; the g++ emulation of the generated C++ leaves the
 * simulator's bytes; the C++ compiles with NVRTC (compute_80) and assembles with ptxas (sm_80). An
 * element past a view's end is the simulator's out-of-bounds fault, as for any view. Array variables
 * and `?:` over record arrays (a buffer swap) likewise: fields, copies, whole stores, `+=` on a field
 * and elements passed to a device function's record parameter, through the chosen record array.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { cuda, f32, i32 } from "cudascript";
import type { CorpusCase, HostValue } from "../corpus/case";
import { kernel } from "../simulator/helpers";
import { assertCompilesForSm80 } from "../support/toolchain-or-skip";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f32, i32, type Array1D, type Array2D } from "cudascript";
interface P { x: f32; y: f32; id: i32 }
const P = cuda.record({ x: f32, y: f32, id: i32 });

export const views = cuda.jit((ps: Array1D<P>, g: Array2D<P>, src: Array1D<P>, qs: Array1D<P>, out: Array1D<f32>, off: i32) => {
  const i = cuda.grid(1);
  const tail = ps.subarray(off);
  if (i < tail.length) {
    const p = tail[i];
    tail[i].id = i;
    out[i] = p.x + tail[i].y + tail.length;
  }
  if (i < g.shape[1]) {
    const row = g[1];
    row[i].x = row[i].x * 2;
    qs[i] = row[i];
    row[i] = src[i];
  }
});

// Array variables and ?: over record arrays (Numba's buffer swap): a selector over the candidates.
const weight = cuda.device((c: P): f32 => c.x * 2 + c.id);
export const pingpong = cuda.jit((a: Array1D<P>, b: Array1D<P>, steps: i32, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i >= a.length) return;
  let src = a, dst = b;
  for (let s = 0; s < steps; s++) {
    const p = src[i];
    dst[i] = p;
    dst[i].x += 1;
    dst[i].id = s;
    const t = src;
    src = dst;
    dst = t;
  }
  const pick = steps % 2 === 0 ? a : b;
  out[i] = pick[i].x + weight(pick[i]) + (steps > 10 ? a : b)[i].y;
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__record_views_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const art = () => makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const P = cuda.record({ x: f32, y: f32, id: i32 });
const N = 20, R = 3, C = 8, OFF = 5;
const f = Math.fround;

function inputs() {
  const ps = cuda.recordArray(P, N), g = cuda.recordArray(P, [R, C]), src = cuda.recordArray(P, C), qs = cuda.recordArray(P, C);
  for (let i = 0; i < N; i++) ps.set(i, { x: i * 0.5, y: 1 - i, id: -1 });
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) g.set(r, c, { x: r + c / 8, y: -r, id: r * 10 + c });
  for (let c = 0; c < C; c++) src.set(c, { x: 100 + c, y: 200 + c, id: 300 + c });
  return { ps, g, src, qs, out: new Float32Array(N) };
}

function reference() {
  const v = inputs();
  for (let i = 0; i < N - OFF; i++) {
    const p = v.ps.get(OFF + i);
    v.ps.set(OFF + i, { ...p, id: i });
    v.out[i] = f(f(p.x + p.y) + (N - OFF));
  }
  for (let c = 0; c < C; c++) {
    const e = v.g.get(1, c);
    v.qs.set(c, { ...e, x: f(e.x * 2) });
    v.g.set(1, c, v.src.get(c));
  }
  return v;
}

const run = (v: ReturnType<typeof inputs>, off = OFF) => kernel(art(), "views").launch(1, 32)(v.ps, v.g, v.src, v.qs, v.out, off);

describe("views of record arrays", () => {
  it("check without errors", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  });

  it("subarray and row views on the simulator match plain TypeScript", () => {
    const v = inputs(), want = reference();
    run(v);
    assert.deepEqual(v.out, want.out);
    assert.deepEqual(v.ps.bytes, want.ps.bytes);
    assert.deepEqual(v.g.bytes, want.g.bytes);
    assert.deepEqual(v.qs.bytes, want.qs.bytes);
  });

  it("the view's length bounds its elements (a negative offset counts from the end, as subarray's does)", () => {
    const v = inputs();
    run(v, -3);
    assert.deepEqual([0, 1, 2].map((i) => v.ps.get(N - 3 + i).id), [0, 1, 2]);
    assert.equal(v.ps.get(N - 4).id, -1);
    assert.ok(v.out[2]! !== 0 && v.out[3] === 0);
  });

  it("array variables and ?: over record arrays (a buffer swap) on the simulator match plain TypeScript", () => {
    for (const steps of [3, 4]) {
      const a = cuda.recordArray(P, N), b = cuda.recordArray(P, N), out = new Float32Array(N);
      for (let i = 0; i < N; i++) a.set(i, { x: i / 4, y: 10 - i, id: -1 });
      const wa = cuda.recordArray(P, N), wb = cuda.recordArray(P, N), want = new Float32Array(N);
      wa.bytes.set(a.bytes);
      for (let i = 0; i < N; i++) {
        let src = wa, dst = wb;
        for (let s = 0; s < steps; s++) {
          const p = src.get(i);
          dst.set(i, { ...p, x: f(p.x + 1), id: s });
          [src, dst] = [dst, src];
        }
        const pick = (steps % 2 === 0 ? wa : wb).get(i);
        want[i] = f(f(pick.x + f(f(pick.x * 2) + pick.id)) + wb.get(i).y);
      }
      kernel(art(), "pingpong").launch(1, 32)(a, b, steps, out);
      assert.deepEqual(a.bytes, wa.bytes, `a, steps=${steps}`);
      assert.deepEqual(b.bytes, wb.bytes, `b, steps=${steps}`);
      assert.deepEqual(out, want, `out, steps=${steps}`);
    }
  });

  it("the g++ emulation of the generated C++ leaves the simulator's bytes", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const h = inputs();
    const values: Record<string, HostValue> = { ps: h.ps.bytes, g: { data: h.g.bytes, shape: [R, C * P.itemsize] }, src: h.src.bytes, qs: h.qs.bytes, out: h.out, off: OFF };
    const pa = cuda.recordArray(P, N);
    for (let i = 0; i < N; i++) pa.set(i, { x: i / 4, y: 10 - i, id: -1 });
    Object.assign(values, { pa: pa.bytes, pb: new Uint8Array(N * P.itemsize), steps: 3, pout: new Float32Array(N) });
    const launches = [
      { kernel: "views", grid: 1, block: 32, args: ["ps", "g", "src", "qs", "out", "off"] },
      { kernel: "pingpong", grid: 1, block: 32, args: ["pa", "pb", "steps", "pout"] },
    ];
    const c: CorpusCase = { name: "record views", setup: () => values, launches, reference: () => ({}) };
    const { outputs } = await emulateCase(gxx, "record-views", gen, c, values);
    const s = inputs();
    run(s);
    const sa = cuda.recordArray(P, N), sb = cuda.recordArray(P, N), sout = new Float32Array(N);
    sa.bytes.set(pa.bytes);
    kernel(art(), "pingpong").launch(1, 32)(sa, sb, 3, sout);
    const pairs = [["ps", s.ps.bytes], ["g", s.g.bytes], ["qs", s.qs.bytes], ["out", s.out], ["pa", sa.bytes], ["pb", sb.bytes], ["pout", sout]] as const;
    for (const [k, sim] of pairs) assert.equal(compareArrays(k, sim, outputs.get(k)!), undefined);
  });

  it("the generated C++ compiles with NVRTC (compute_80) and assembles with ptxas (sm_80)", (t) => {
    assertCompilesForSm80(t, generateCuda(check.module, { lineDirectives: false }).source, "record_views.cu");
  });
});
