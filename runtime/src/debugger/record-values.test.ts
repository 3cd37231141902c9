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
