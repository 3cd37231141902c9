/**
 * 2-D and 3-D record arrays (docs/kernel-language.md#records): `Array2D<Cell>` / `Array3D<Cell>` kernel
 * parameters over host record arrays with a shape (`cuda.recordArray(Cell, [rows, cols])`, `get(r, c)`,
 * `set(r, c, value)`), passed directly or through `cuda.toDevice`: field reads and writes, record copies,
 * `.shape`/`.length`, a field atomic, an element passed to a device function's record parameter, and the
 * 2-D record array passed to a device function.
 * The simulator matches plain TypeScript; the g++ emulation of the generated C++ leaves the simulator's
 * bytes; the C++ compiles with NVRTC (compute_80) and assembles with ptxas (sm_80). A record array of
 * the wrong rank is CSR081 at the launch.
 */
import { strict as assert } from "node:assert";
import * as path from "node:path";
import { describe, it } from "node:test";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { bool, cuda, f32, i32 } from "cudascript";
import type { CorpusCase, HostValue } from "../corpus/case";
import { kernel, throwsCode } from "../simulator/helpers";
import { assertCompilesForSm80 } from "../support/toolchain-or-skip";
import { compareArrays, emulateCase, findGxx } from "./harness";

const SOURCE = `import { cuda, f32, i32, bool, type Array2D, type Array3D } from "cudascript";
interface Cell { w: f32; n: i32; flag: bool }
const Cell = cuda.record({ w: f32, n: i32, flag: bool });

const weight = cuda.device((c: Cell, k: f32): f32 => (c.flag ? c.w * k : c.w) + c.n);
const rowSum = cuda.device((g: Array2D<Cell>, r: i32): f32 => {
  let s: f32 = 0;
  for (let c = 0; c < g.shape[1]; c++) s += g[r][c].w;
  return s;
});

export const relax = cuda.jit((g: Array2D<Cell>, out: Array2D<f32>, tally: Array2D<Cell>) => {
  const [r, c] = cuda.grid(2);
  if (r < g.shape[0] && c < g.shape[1]) {
    const me = g[r][c];
    const right = c + 1 < g.shape[1] ? g[r][c + 1].w : 0;
    out[r][c] = weight(me, 2) + right + g.length + rowSum(g, r);
    g[r][c].n = r * 100 + c;
    if (me.flag) cuda.atomic.add(tally, [0, 0, "n"], 1);
  }
});

export const fill = cuda.jit((v: Array3D<Cell>) => {
  const [i, j, k] = cuda.grid(3);
  if (i < v.shape[0] && j < v.shape[1] && k < v.shape[2]) {
    v[i][j][k].w = i * 100 + j * 10 + k;
    v[i][j][k].flag = (i + j + k) % 2 === 0;
    v[i][(j + 1) % v.shape[1]][k].n = 7;
  }
});
`;

const file = path.join(__dirname, "..", "..", "emulation", `__record_2d_${process.pid}.ts`);
const checker = new KernelChecker();
checker.setFileText(file, SOURCE);
const check = checker.checkFile(file);
const art = () => makeArtifact(check.module, { staticSharedBytes: check.staticSharedBytes });
const Cell = cuda.record({ w: f32, n: i32, flag: bool });
const R = 7, C = 11;
const f = Math.fround;

function grid() {
  const g = cuda.recordArray(Cell, [R, C]);
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) g.set(r, c, { w: r * 0.5 - c * 0.25, n: -r - c, flag: (r * C + c) % 3 === 0 });
  return g;
}

function relaxReference() {
  const g = grid(), out = new Float32Array(R * C), tally = cuda.recordArray(Cell, [1, 1]);
  for (let r = 0; r < R; r++)
    for (let c = 0; c < C; c++) {
      const me = g.get(r, c);
      const weight = f((me.flag ? f(me.w * 2) : me.w) + me.n);
      let rowSum = 0;
      for (let k = 0; k < C; k++) rowSum = f(rowSum + g.get(r, k).w);
      out[r * C + c] = f(f(f(weight + (c + 1 < C ? g.get(r, c + 1).w : 0)) + R) + rowSum);
    }
  for (let r = 0; r < R; r++) for (let c = 0; c < C; c++) g.set(r, c, { ...g.get(r, c), n: r * 100 + c });
  let flagged = 0;
  for (let k = 0; k < R * C; k++) if (k % 3 === 0) flagged++;
  tally.set(0, 0, { w: 0, n: flagged, flag: false });
  return { g, out, tally };
}

describe("2-D and 3-D record arrays", () => {
  it("check without errors", () => {
    assert.deepEqual(check.diagnostics.filter((d) => d.severity === "error").map((d) => `${d.span.line}: ${d.code} ${d.message}`), []);
  });

  it("host record arrays with a shape: get/set by (r, c), shape, length, size, bytes", () => {
    const g = grid();
    assert.deepEqual([g.shape, g.length, g.size, g.ndim, g.bytes.length], [[R, C], R, R * C, 2, R * C * 12]);
    assert.deepEqual(g.get(2, 3), { w: 0.25, n: -5, flag: false });
    throwsCode(() => g.get(2), "CSR084", /2 dimensions \[7, 11\]: give one index per dimension/);
    throwsCode(() => g.get(2, 11), "CSR084", /index 1 must be a whole number in 0 … 10/);
  });

  it("Array2D<Cell> on the simulator matches plain TypeScript (host arrays and device arrays)", () => {
    const want = relaxReference();
    for (const viaDevice of [false, true]) {
      const g = grid(), out = new Float32Array(R * C), tally = cuda.recordArray(Cell, [1, 1]);
      const outNd = cuda.ndarray(out, [R, C]);
      if (viaDevice) {
        const dg = cuda.toDevice(g), dt = cuda.toDevice(tally);
        kernel(art(), "relax").launch([2, 4], [4, 4])(dg, outNd, dt);
        dg.copyToHost(g);
        dt.copyToHost(tally);
      } else kernel(art(), "relax").launch([2, 4], [4, 4])(g, outNd, tally);
      assert.deepEqual(out, want.out);
      assert.deepEqual(g.bytes, want.g.bytes);
      assert.deepEqual(tally.get(0, 0).n, want.tally.get(0, 0).n);
    }
  });

  it("Array3D<Cell> on the simulator", () => {
    const v = cuda.recordArray(Cell, [3, 4, 5]);
    kernel(art(), "fill").launch([1, 1, 1], [4, 4, 8])(v);
    for (let i = 0; i < 3; i++) for (let j = 0; j < 4; j++) for (let k = 0; k < 5; k++) assert.deepEqual(v.get(i, j, k), { w: i * 100 + j * 10 + k, n: 7, flag: (i + j + k) % 2 === 0 });
  });

  it("a record array of another rank is CSR081 at the launch", () => {
    throwsCode(() => kernel(art(), "fill").launch(1, 1)(grid()), "CSR081", /Array3D<Cell>, but the record array is 2-D: make it with cuda.recordArray\(dtype, \[d0, d1, d2\]\)/);
    throwsCode(() => kernel(art(), "relax").launch(1, 1)(cuda.recordArray(Cell, 5), cuda.ndarray(new Float32Array(4), [2, 2]), grid()), "CSR081");
  });

  it("the g++ emulation of the generated C++ leaves the simulator's bytes", async (t) => {
    const gxx = findGxx();
    if (!gxx) return t.skip("g++ not found");
    const gen = generateCuda(check.module);
    const bytes2d = (a: ReturnType<typeof grid>) => ({ data: a.bytes, shape: [a.shape[0]!, a.shape[1]! * Cell.itemsize] });
    const v = cuda.recordArray(Cell, [3, 4, 5]);
    const values: Record<string, HostValue> = { g: bytes2d(grid()), out: { data: new Float32Array(R * C), shape: [R, C] }, tally: bytes2d(cuda.recordArray(Cell, [1, 1])), v: { data: v.bytes, shape: [3, 4, 5 * Cell.itemsize] } };
    const launches = [
      { kernel: "relax", grid: [2, 4] as const, block: [4, 4] as const, args: ["g", "out", "tally"] },
      { kernel: "fill", grid: [1, 1, 1] as const, block: [4, 4, 8] as const, args: ["v"] },
    ];
    const c: CorpusCase = { name: "record 2-D", setup: () => values, launches, reference: () => ({}) };
    const { outputs } = await emulateCase(gxx, "record-2d", gen, c, values);
    const g = grid(), out = new Float32Array(R * C), tally = cuda.recordArray(Cell, [1, 1]), sv = cuda.recordArray(Cell, [3, 4, 5]);
    kernel(art(), "relax").launch([2, 4], [4, 4])(g, cuda.ndarray(out, [R, C]), tally);
    kernel(art(), "fill").launch([1, 1, 1], [4, 4, 8])(sv);
    assert.equal(compareArrays("g", g.bytes, outputs.get("g")!), undefined);
    assert.equal(compareArrays("out", out, outputs.get("out")!), undefined);
    assert.equal(compareArrays("tally", tally.bytes, outputs.get("tally")!), undefined);
    assert.equal(compareArrays("v", sv.bytes, outputs.get("v")!), undefined);
  });

  it("the generated C++ compiles with NVRTC (compute_80) and assembles with ptxas (sm_80)", (t) => {
    assertCompilesForSm80(t, generateCuda(check.module, { lineDirectives: false }).source, "record_2d.cu");
  });
});
