import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cuda } from "../index";
import type { KernelArtifact } from "@cudascript/compiler";
import { DebugSession, type DebugEvent, type StopEvent, type VariableView } from "./session";
import { argDesc, compileKernels, lineOf } from "./test-helpers";

const SOURCE = `import { cuda, f32, i32 } from "cudascript";
const twice = cuda.device((x: f32): f32 => {
  const y = x * 2; // twice body
  return y;
});
export const rotate = cuda.jit((a: Float32Array, out: Float32Array, scale: f32) => {
  const s = cuda.shared.array(8, f32);
  const t = cuda.threadIdx.x;
  const i = cuda.blockIdx.x * cuda.blockDim.x + t;
  s[t] = twice(a[i]) * scale; // write shared
  cuda.syncthreads(); // barrier
  const r = s[(t + 1) % 8]; // read neighbour
  out[i] = r;
});
export const overrun = cuda.jit((out: Int32Array) => {
  const t = cuda.threadIdx.x;
  const j = t + 2;
  if (j >= 0) out[j] = t; // overrun write
});
`;

const { module: ir, artifact, file } = compileKernels(SOURCE);
const L = (m: string) => lineOf(SOURCE, m);

function stop(e: DebugEvent): StopEvent {
  assert.equal(e.kind, "stop", `expected a stop, got ${JSON.stringify(e)}`);
  return e as StopEvent;
}
function variable(e: { frames: readonly { variables: readonly VariableView[] }[] }, name: string): VariableView {
  const v = e.frames[0]!.variables.find((x) => x.name === name);
  assert.ok(v, `no variable ${name} in ${e.frames[0]!.variables.map((x) => x.name).join(", ")}`);
  return v;
}

/** A fresh launch of rotate over two blocks of 8 threads; a[i] = i. */
function rotateSession(opts = {}) {
  const a = Float32Array.from({ length: 16 }, (_, i) => i);
  const out = new Float32Array(16);
  const s = new DebugSession({ module: ir, kernel: "rotate", grid: [2, 1, 1], block: [8, 1, 1], args: [argDesc(a), argDesc(out), argDesc(0.5)] }, { print: () => {}, ...opts });
  return { s, a, out };
}

/** The same launch on the fast simulator through the public API: the expected output. */
function fastRotate(art: KernelArtifact): Float32Array {
  const jit = cuda.jit as unknown as (fn: unknown, o: unknown, a: KernelArtifact, n: string) => { launch(g: number, b: number): (...x: unknown[]) => void };
  const a = Float32Array.from({ length: 16 }, (_, i) => i);
  const dout = cuda.toDevice(new Float32Array(16));
  jit(null, undefined, art, "rotate").launch(2, 8)(cuda.toDevice(a), dout, 0.5);
  return dout.copyToHost() as Float32Array;
}

describe("debugger: stepping backend and controller", () => {
  it("a line breakpoint stops the first thread to reach the line, then the next one", () => {
    const { s } = rotateSession();
    assert.deepEqual(s.setBreakpoints(file, [{ line: L("read neighbour") }]), [{ line: L("read neighbour"), verified: true }]);
    const e1 = stop(s.continue());
    assert.equal(e1.reason, "breakpoint");
    assert.equal(e1.line, L("read neighbour"));
    assert.deepEqual([e1.block, e1.thread], [[0, 0, 0], [0, 0, 0]]);
    const e2 = stop(s.continue());
    assert.deepEqual([e2.block, e2.thread, e2.line], [[0, 0, 0], [1, 0, 0], L("read neighbour")]);
  });

  it("a breakpoint on a line without a statement is not verified", () => {
    const { s } = rotateSession();
    assert.deepEqual(s.setBreakpoints(file, [{ line: 1 }]), [{ line: 1, verified: false }]);
  });

  it("a conditional breakpoint on the thread and block index stops only that thread", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("write shared"), condition: "cuda.threadIdx.x === 5 && cuda.blockIdx.x === 1" }]);
    const e = stop(s.continue());
    assert.deepEqual([e.block, e.thread, e.line], [[1, 0, 0], [5, 0, 0], L("write shared")]);
    assert.equal(variable(e, "i").value, 13);
    assert.equal(s.continue().kind, "end");
  });

  it("a condition that does not parse is CSD009 with what to write; one that faults for a thread is CSD009 when tried", () => {
    const { s } = rotateSession();
    const [r] = s.setBreakpoints(file, [{ line: L("write shared"), condition: "cuda.threadIdx.x ===" }]);
    assert.equal(r!.verified, false);
    assert.match(r!.message!, /CSD009: the condition of the breakpoint at line 10 'cuda.threadIdx.x ===' is not an expression .*cuda.threadIdx.x === 5/);
    s.setBreakpoints(file, [{ line: L("write shared"), condition: "a[i + 100] > 1" }]);
    assert.throws(() => s.continue(), /CSD009: the condition of the breakpoint at line 10 \(a\[i \+ 100\] > 1\) failed for thread \(0, 0, 0\): out-of-bounds read of array 'a': index 100 is outside 0..15/);
  });

  it("a condition over locals, given as a function", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("write shared"), condition: ({ locals }) => locals.i === 10 }]);
    const e = stop(s.continue());
    assert.deepEqual([e.block, e.thread], [[1, 0, 0], [2, 0, 0]]);
  });

  it("the focus thread's locals and parameters", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("read neighbour"), condition: "cuda.threadIdx.x === 3" }]);
    const e = stop(s.continue());
    assert.equal(variable(e, "t").value, 3);
    assert.equal(variable(e, "i").value, 3);
    assert.equal(variable(e, "scale").value, 0.5);
    assert.equal(variable(e, "scale").isParam, true);
    assert.equal(variable(e, "a").kind, "array");
    // `r` is declared on this line: not yet in scope.
    assert.ok(!e.frames[0]!.variables.some((v) => v.name === "r"));
  });

  it("a step over cuda.syncthreads() runs the rest of the block to the barrier: the other threads' shared values are there", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("barrier"), condition: "cuda.threadIdx.x === 0" }]);
    const e = stop(s.continue());
    const shared = () => (variable(s.focusView(), "s").value as { data: Float32Array }).data;
    // Only thread 0 has written so far.
    assert.deepEqual([...shared()], [0, 0, 0, 0, 0, 0, 0, 0]);
    assert.equal(e.line, L("barrier"));
    s.setBreakpoints(file, []);
    const after = stop(s.stepOver());
    assert.equal(after.reason, "step");
    assert.equal(after.acrossBarrier, true);
    assert.equal(after.line, L("read neighbour"));
    assert.deepEqual(after.thread, [0, 0, 0]);
    assert.deepEqual([...shared()], [0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it("step into a device function, step out of it, step over a call", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("write shared") }]);
    stop(s.continue());
    const inside = stop(s.stepIn());
    assert.equal(inside.line, L("twice body"));
    assert.deepEqual(inside.frames.map((f) => f.function), ["twice", "rotate"]);
    assert.equal(inside.frames[1]!.line, L("write shared"));
    assert.equal(variable(inside, "x").value, 0);
    const out = stop(s.stepOut());
    assert.equal(out.line, L("barrier"));
    assert.deepEqual(out.frames.map((f) => f.function), ["rotate"]);
    // Thread 1 is next at the breakpoint; stepping over its call stays in the kernel.
    s.setBreakpoints(file, []);
    const again = rotateSession();
    again.s.setBreakpoints(file, [{ line: L("write shared") }]);
    stop(again.s.continue());
    again.s.setBreakpoints(file, []);
    assert.equal(stop(again.s.stepOver()).line, L("barrier"));
  });

  it("a breakpoint inside a device function stops there, with the caller's frame below", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("twice body"), condition: "x === 13" }]);
    const e = stop(s.continue());
    assert.deepEqual([e.block, e.thread, e.line], [[1, 0, 0], [5, 0, 0], L("twice body")]);
    assert.deepEqual(e.frames.map((f) => [f.function, f.line]), [["twice", L("twice body")], ["rotate", L("write shared")]]);
    assert.equal(variable(e, "x").value, 13);
  });

  it("the focus moves to another thread of the block", () => {
    const { s } = rotateSession();
    s.setBreakpoints(file, [{ line: L("read neighbour"), condition: "cuda.threadIdx.x === 2" }]);
    stop(s.continue());
    const f = s.focus([6, 0, 0]);
    assert.deepEqual(f.thread, [6, 0, 0]);
    assert.equal(f.status, "running");
    assert.equal(f.frames[0]!.line, L("barrier"));
    assert.equal(variable(f, "t").value, 6);
    const done = s.focus([0, 0, 0]);
    assert.equal(done.status, "exited");
    assert.throws(() => s.focus([8, 0, 0]), /CSD011/);
    // A step moves the focus thread.
    s.focus([6, 0, 0]);
    s.setBreakpoints(file, []);
    const e = stop(s.stepOver());
    assert.deepEqual([e.thread, e.line], [[6, 0, 0], L("read neighbour")]);
  });

  it("a step of a thread that has not started stops at its first statement", () => {
    const { s } = rotateSession({ stopOnEntry: true });
    stop(s.continue());
    assert.equal(s.focus([5, 0, 0]).status, "not started");
    const e = stop(s.stepOver());
    assert.deepEqual([e.reason, e.thread, e.line], ["step", [5, 0, 0], L("cuda.shared.array(8")]);
  });

  it("set a variable of the focus thread: the kernel goes on with it", () => {
    const { s, out } = rotateSession();
    s.setBreakpoints(file, [{ line: L("out[i] = r"), condition: "cuda.threadIdx.x === 1 && cuda.blockIdx.x === 0" }]);
    stop(s.continue());
    assert.equal(s.setVariable(0, "r", 41.3).value, Math.fround(41.3));
    assert.throws(() => s.setVariable(0, "nope", 1), /CSD013/);
    s.setBreakpoints(file, []);
    assert.equal(s.continue().kind, "end");
    assert.equal(out[1], Math.fround(41.3));
  });

  it("break on fault: an out-of-bounds write stops at its line with the faulting thread in focus", () => {
    const out = new Int32Array(8);
    const s = new DebugSession({ module: ir, kernel: "overrun", grid: [1, 1, 1], block: [8, 1, 1], args: [argDesc(out)] }, { print: () => {} });
    // A condition over a variable, never true: the block cannot run on the fast simulator.
    s.setBreakpoints(file, [{ line: L("overrun write"), condition: "j < 0" }]);
    const e = stop(s.continue());
    assert.equal(e.reason, "exception");
    assert.equal(e.line, L("overrun write"));
    assert.deepEqual(e.thread, [6, 0, 0]);
    assert.equal(e.error?.code, "CSR020");
    assert.equal(variable(e, "j").value, 8);
    const end = s.continue();
    assert.equal(end.kind, "end");
    assert.match(String(end.kind === "end" && end.error?.message), /CSR020: out-of-bounds write of array 'out' .*thread \(6, 0, 0\): index 8 is outside 0..7/);
  });

  it("break on fault in a block the fast simulator ran: the faulting thread, without locals", () => {
    const out = new Int32Array(8);
    const s = new DebugSession({ module: ir, kernel: "overrun", grid: [1, 1, 1], block: [8, 1, 1], args: [argDesc(out)] }, { print: () => {} });
    const e = stop(s.continue());
    assert.deepEqual([e.reason, e.line, e.thread, e.frames.length], ["exception", L("overrun write"), [6, 0, 0], 0]);
  });

  it("with a breakpoint set, a fault in a block run on the fast simulator is run again stepped: the faulting thread with its locals", () => {
    const run = (condition: string) => {
      const out = new Int32Array(8);
      const s = new DebugSession({ module: ir, kernel: "overrun", grid: [2, 1, 1], block: [8, 1, 1], args: [argDesc(out)] }, { print: () => {} });
      s.setBreakpoints(file, [{ line: L("const j = t + 2"), condition }]);
      return stop(s.continue());
    };
    // Block 0 faults before block 1 could stop: run fast with the breakpoint's probe, then again stepped
    // (the fault might have been the condition's own), which keeps the faulting thread's locals.
    const fast = run("cuda.blockIdx.x === 1");
    assert.deepEqual([fast.reason, fast.block, fast.thread], ["exception", [0, 0, 0], [6, 0, 0]]);
    assert.equal(variable(fast, "j").value, 8);
    const stepped = run("t === 100");
    assert.deepEqual([stepped.reason, stepped.block, stepped.thread], ["exception", [0, 0, 0], [6, 0, 0]]);
    assert.equal(variable(stepped, "j").value, 8);
  });

  it("continue to the end gives the fast simulator's output, breakpoints set or not", () => {
    const want = fastRotate(artifact);
    const plain = rotateSession();
    assert.equal(plain.s.continue().kind, "end");
    assert.deepEqual([...plain.out], [...want]);
    const stepped = rotateSession();
    stepped.s.setBreakpoints(file, [{ line: L("barrier"), condition: "cuda.threadIdx.x === 4" }]);
    assert.equal(stop(stepped.s.continue()).kind, "stop");
    stop(stepped.s.stepOver());
    assert.equal(stop(stepped.s.continue()).kind, "stop"); // block 1, thread 4
    stepped.s.setBreakpoints(file, []);
    assert.equal(stepped.s.continue().kind, "end");
    assert.deepEqual([...stepped.out], [...want]);
  });

  it("a cooperative kernel (g.sync()) is refused with CSD012, not run wrongly", () => {
    const coop = compileKernels(`import { cuda } from "cudascript";
export const steps = cuda.jit((a: Float32Array) => {
  const i = cuda.grid(1);
  if (i < a.length) a[i] = 1;
  cuda.cg.thisGrid().sync();
  if (i < a.length) a[i] += 1;
});
`);
    const s = new DebugSession({ module: coop.module, kernel: "steps", grid: [2, 1, 1], block: [4, 1, 1], args: [argDesc(new Float32Array(8))] }, { fastBlocks: false, print: () => {} });
    assert.throws(() => s.continue(), /CSD012: kernel 'steps' calls g.sync\(\)/);
  });

  it("stop on entry, and a kernel name the module does not have", () => {
    const { s } = rotateSession({ stopOnEntry: true });
    const e = stop(s.continue());
    assert.deepEqual([e.reason, e.thread, e.line], ["entry", [0, 0, 0], L("cuda.shared.array(8")]);
    assert.throws(() => new DebugSession({ module: ir, kernel: "missing", grid: [1, 1, 1], block: [1, 1, 1], args: [] }), /CSD010: .*no kernel 'missing'.*rotate, overrun/);
  });
});

describe("debugger: N-D parameters of any layout", () => {
  const FSRC = `import { cuda, f32, Array2D } from "cudascript";
export const corner = cuda.jit((m: Array2D<f32>, out: Float32Array) => {
  const x = m[1][0] + m[0][2];
  out[0] = x; // read corner
});
`;
  const f = compileKernels(FSRC);
  it("an F-order matrix is read through its strides, and its frame variable carries them for paging", () => {
    // [2, 3] in Fortran order: element (i, j) at i + 2 * j.
    const data = Float32Array.from([0, 10, 1, 11, 2, 12]);
    const out = new Float32Array(1);
    const m = { kind: "array" as const, buffer: data.buffer, byteOffset: 0, length: 6, dtype: "f32" as const, shape: [2, 3], strides: [1, 2] };
    const s = new DebugSession({ module: f.module, kernel: "corner", grid: [1, 1, 1], block: [1, 1, 1], args: [m, argDesc(out)] }, { print: () => {} });
    s.setBreakpoints(f.file, [{ line: lineOf(FSRC, "read corner") }]);
    const e = stop(s.continue());
    assert.equal(variable(e, "x").value, 10 + 2);
    assert.deepEqual((variable(e, "m").value as { strides: number[] }).strides, [1, 2]);
    assert.equal(s.continue().kind, "end");
    assert.equal(out[0], 12);
  });
});
