/** The debugger shows a record array's elements as their fields (record-values.ts). */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda, f32, i32 } from "../index";
import { DebugSession, type StopEvent } from "./session";
import { compileKernels, lineOf } from "./test-helpers";
import { formatRecord, recordElement } from "./record-values";

const SOURCE = `import { cuda, f32, i32, type Array1D } from "cudascript";
interface Particle { x: f32; y: f32; id: i32 }
export const step = cuda.jit((ps: Array1D<Particle>, out: Array1D<f32>) => {
  const i = cuda.grid(1);
  const p = ps[i];
  out[i] = p.x + p.y; // sum
});
`;

const { module: ir, file } = compileKernels(SOURCE);

describe("debugger: record arrays", () => {
  it("a record array variable is shown as its records' fields", () => {
    const Particle = cuda.record({ x: f32, y: f32, id: i32 });
    const ps = cuda.recordArray(Particle, 4);
    for (let i = 0; i < 4; i++) ps.set(i, { x: i + 0.5, y: -i, id: 10 * i });
    const out = new Float32Array(4);
    const arg = (a: Uint8Array | Float32Array, dtype: "u8" | "f32") => ({ kind: "array" as const, buffer: a.buffer, byteOffset: a.byteOffset, length: a.length, dtype, shape: [a.length], strides: [1] });
    const s = new DebugSession({ module: ir, kernel: "step", grid: [1, 1, 1], block: [4, 1, 1], args: [arg(ps.bytes, "u8"), arg(out, "f32")] }, { print: () => {} });
    s.setBreakpoints(file, [{ line: lineOf(SOURCE, "// sum"), condition: "cuda.threadIdx.x === 2" }]);
    const e = s.continue() as StopEvent;
    assert.equal(e.kind, "stop");
    const v = e.frames[0]!.variables.find((x) => x.name === "ps")!;
    assert.equal(v.record?.name, "Particle");
    assert.deepEqual(recordElement(v, 2), { x: 2.5, y: -2, id: 20 });
    assert.equal(formatRecord(recordElement(v, 3)), "{ x: 3.5, y: -3, id: 30 }");
    // The copy's fields are locals of their own.
    assert.equal(e.frames[0]!.variables.find((x) => x.name === "p_x")?.value, 2.5);
  });
});

const SOURCE_2D = `import { cuda, f32, i32, type Array1D, type Array2D } from "cudascript";
interface Cell { w: f32; n: i32 }
const Cell = cuda.record({ w: f32, n: i32 });
const twice = cuda.device((c: Cell): f32 => c.w * 2 + c.n); // inner
const lastW = cuda.device((g: Array2D<Cell>, r: i32): f32 => g[r][g.shape[1] - 1].w);
export const grid2 = cuda.jit((g: Array2D<Cell>, out: Array1D<f32>) => {
  const t = cuda.threadIdx.x;
  const sh = cuda.shared.array(4, Cell);
  sh[t] = g[1][t];
  cuda.syncthreads();
  out[t] = twice(sh[t]) + g[0][t].w + lastW(g, 0); // sum
});
`;

describe("debugger: 2-D record arrays, shared record arrays, record parameters", () => {
  const { module: ir2, file: file2 } = compileKernels(SOURCE_2D);
  const Cell = cuda.record({ w: f32, n: i32 });
  const g = cuda.recordArray(Cell, [2, 4]);
  for (let r = 0; r < 2; r++) for (let c = 0; c < 4; c++) g.set(r, c, { w: r * 10 + c + 0.5, n: r - c });
  const out = new Float32Array(4);
  const args = () => [
    { kind: "array" as const, buffer: g.bytes.buffer, byteOffset: 0, length: g.bytes.length, dtype: "u8" as const, shape: [2, 4 * Cell.itemsize], strides: [4 * Cell.itemsize, 1] },
    { kind: "array" as const, buffer: out.buffer, byteOffset: 0, length: 4, dtype: "f32" as const, shape: [4], strides: [1] },
  ];

  it("an Array2D<Cell> parameter is shown by (row, col) as fields; the shared record array as one array per field", () => {
    const s = new DebugSession({ module: ir2, kernel: "grid2", grid: [1, 1, 1], block: [4, 1, 1], args: args() }, { print: () => {} });
    s.setBreakpoints(file2, [{ line: lineOf(SOURCE_2D, "// sum"), condition: "cuda.threadIdx.x === 2" }]);
    const e = s.continue() as StopEvent;
    assert.equal(e.kind, "stop");
    const v = e.frames[0]!.variables.find((x) => x.name === "g")!;
    assert.equal(v.record?.name, "Cell");
    const { shape, strides } = v.value as { shape: number[]; strides: number[] };
    assert.deepEqual([shape, strides], [[2, 4], [4, 1]]);
    assert.deepEqual(recordElement(v, 1 * strides[0]! + 2), { w: 12.5, n: -1 });
    const shw = e.frames[0]!.variables.find((x) => x.name === "sh.w");
    assert.ok(shw, `variables: ${e.frames[0]!.variables.map((x) => x.name).join(", ")}`);
    assert.equal((shw.value as { data: Float32Array }).data[2], 12.5);
  });

  it("runs to the end with the values of the fast simulator (2-D record array through a device function)", () => {
    out.fill(0);
    const s = new DebugSession({ module: ir2, kernel: "grid2", grid: [1, 1, 1], block: [4, 1, 1], args: args() }, { print: () => {} });
    assert.equal(s.continue().kind, "end");
    // out[t] = (g[1][t].w * 2 + g[1][t].n) + g[0][t].w + g[0][3].w
    assert.deepEqual([...out], [0, 1, 2, 3].map((t) => Math.fround(Math.fround(Math.fround((10 + t + 0.5) * 2) + (1 - t)) + (t + 0.5)) + 3.5));
  });

  it("a device function's record parameter is shown as its fields", () => {
    const s = new DebugSession({ module: ir2, kernel: "grid2", grid: [1, 1, 1], block: [4, 1, 1], args: args() }, { print: () => {} });
    s.setBreakpoints(file2, [{ line: lineOf(SOURCE_2D, "// inner"), condition: "cuda.threadIdx.x === 3" }]);
    const e = s.continue() as StopEvent;
    assert.equal(e.kind, "stop");
    const names = e.frames[0]!.variables.map((x) => `${x.name}=${String(x.value)}`);
    assert.ok(names.includes("c_w=13.5") && names.includes("c_n=-2"), names.join(", "));
  });
});
