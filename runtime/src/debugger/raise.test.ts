/** The debugger stops at a kernel's throw as at a fault (issue 31 item 2): reason "exception", the raising thread in focus, CSR085. */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DebugSession, type StopEvent } from "./session";
import { argDesc, compileKernels, lineOf } from "./test-helpers";

const SOURCE = `import { cuda, i32 } from "cudascript";
const checked = cuda.device((x: i32): i32 => {
  if (x > 5) throw new Error(\`too big: \${x}\`); // device throw
  return x;
});
export const k = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  const v = checked(t);
  out[t] = v; // store
});
`;

const { module: ir, file } = compileKernels(SOURCE);
const L = (m: string) => lineOf(SOURCE, m);

describe("debugger: a throw in a kernel", () => {
  it("stops at the throw in the device function with the raising thread in focus, and the run ends with CSR085", () => {
    const out = new Int32Array(8);
    const s = new DebugSession({ module: ir, kernel: "k", grid: [1, 1, 1], block: [8, 1, 1], args: [argDesc(out)] }, { print: () => {} });
    // A condition never true: the block runs on the stepping backend.
    s.setBreakpoints(file, [{ line: L("out[t] = v; // store"), condition: "t < 0" }]);
    const e = s.continue() as StopEvent;
    assert.equal(e.kind, "stop");
    assert.equal(e.reason, "exception");
    assert.equal(e.line, L("device throw"));
    assert.deepEqual(e.thread, [6, 0, 0]);
    assert.equal(e.error?.code, "CSR085");
    const end = s.continue();
    assert.equal(end.kind, "end");
    assert.match(String(end.kind === "end" && end.error?.message), /CSR085: kernel raised an error .*in kernel 'k' \(device function 'checked'\), block \(0, 0, 0\), thread \(6, 0, 0\): too big: 6/);
  });
});

describe("debugger: a recursive device function", () => {
  it("stops inside it at a conditional breakpoint with one frame per nested call, and the run ends with the right results", () => {
    const SRC = `import { cuda, i32 } from "cudascript";
const fib3 = cuda.device((n: i32): i32 => {
  if (n < 2) return 1; // base
  return fib3(n - 1) + fib3(n - 2);
});
export const k = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  out[t] = fib3(t); // store
});
`;
    const c = compileKernels(SRC);
    const out = new Int32Array(8);
    const s = new DebugSession({ module: c.module, kernel: "k", grid: [1, 1, 1], block: [8, 1, 1], args: [argDesc(out)] }, { print: () => {} });
    s.setBreakpoints(c.file, [{ line: lineOf(SRC, "// base"), condition: "n === 0 && cuda.threadIdx.x === 3" }]);
    const e = s.continue() as StopEvent;
    assert.equal(e.kind, "stop");
    assert.equal(e.line, lineOf(SRC, "// base"));
    assert.deepEqual(e.thread, [3, 0, 0]);
    // fib3(3) → fib3(2) → fib3(0): three nested frames over the kernel's.
    assert.deepEqual(e.frames.map((f) => f.function), ["fib3", "fib3", "fib3", "k"]);
    s.setBreakpoints(c.file, []);
    assert.equal(s.continue().kind, "end");
    assert.deepEqual([...out], [1, 1, 2, 3, 5, 8, 13, 21]);
  });
});
