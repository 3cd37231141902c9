/**
 * The controller's breakpoint, variable and control features (issue 15 items 3–5): conditions and
 * expressions in the kernel language, hit counts, logpoints, evaluate and the warp watch, data
 * breakpoints, pause and the time limit.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DebugExpressionCompiler } from "@cudascript/compiler";
import { DebugSession, type DebugEvent, type LogEvent, type StopEvent, type VariableView } from "./session";
import { argDesc, compileKernels, FEATURE_KERNELS as SOURCE, lineOf } from "./test-helpers";


const { module: ir, file } = compileKernels(SOURCE);
const L = (m: string) => lineOf(SOURCE, m);

function stop(e: DebugEvent): StopEvent {
  assert.equal(e.kind, "stop", `expected a stop, got ${JSON.stringify(e)}`);
  return e as StopEvent;
}
function variable(e: { frames: readonly { variables: readonly VariableView[] }[] }, name: string): unknown {
  const v = e.frames[0]!.variables.find((x) => x.name === name);
  assert.ok(v, `no variable ${name}`);
  return v.value;
}

/** feat over two blocks of 32 threads; a[t] = t. */
function featSession(opts = {}) {
  const a = Int32Array.from({ length: 32 }, (_, i) => i);
  const out = new Float32Array(64);
  const s = new DebugSession({ module: ir, kernel: "feat", grid: [2, 1, 1], block: [32, 1, 1], args: [argDesc(a), argDesc(out)] }, { print: () => {}, ...opts });
  return { s, a, out };
}

describe("debugger: conditions and expressions in the kernel language", () => {
  it("a condition over a loop variable stops where it first holds", () => {
    const { s } = featSession();
    s.setBreakpoints(file, [{ line: L("loop body"), condition: "i > 10" }]);
    const e = stop(s.continue());
    assert.deepEqual([e.block, e.thread, variable(e, "i")], [[0, 0, 0], [0, 0, 0], 11]);
  });

  it("i32 arithmetic in a condition wraps as in the kernel (in JavaScript it would never hold)", () => {
    const { s } = featSession();
    // a[t] + 2147483647 overflows i32 for t ≥ 1: negative in the kernel, 2147483648 in JavaScript.
    s.setBreakpoints(file, [{ line: L("shared write"), condition: "a[t] + 2147483647 < 0" }]);
    const e = stop(s.continue());
    assert.deepEqual(e.thread, [1, 0, 0]);
  });

  it("a condition reads an element of a 2-D shared array, and calls Math as the kernel does", () => {
    const { s } = featSession();
    // After the barrier every thread of block 0 has written s; s[1][2] is thread 10's sum, 16·10 + 120.
    s.setBreakpoints(file, [{ line: L("read back"), condition: "s[1][2] === 280 && Math.max(t, 3) === 7" }]);
    const e = stop(s.continue());
    assert.deepEqual([e.block, e.thread], [[0, 0, 0], [7, 0, 0]]);
    assert.deepEqual(s.evaluate("s[1][2] / 3"), { result: String(Math.fround(280 / 3)), type: "f32" });
  });

  it("a bad condition is not set: not an expression (CSD009), or a type error with the checker's code and the column", () => {
    const { s } = featSession();
    const r = s.setBreakpoints(file, [{ line: L("loop body"), condition: "i >" }, { line: L("loop body"), condition: "acc > 1 && nope" }, { line: L("shared write") }]);
    assert.equal(r[0]!.verified, false);
    assert.match(r[0]!.message!, /^CSD009: the condition of the breakpoint at line 7 'i >' is not an expression \(Expression expected\.\): write one expression in the kernel language/);
    assert.equal(r[1]!.verified, false);
    assert.match(r[1]!.message!, /^CS1015: the condition of the breakpoint at line 7 'acc > 1 && nope', column 12: 'nope' is not available in kernels/);
    assert.deepEqual(r[2], { line: L("shared write"), verified: true });
    // The bad ones are not set: the good one stops.
    assert.equal(stop(s.continue()).line, L("shared write"));
  });

  it("a kernel file that cannot be read (not on disk, no source given) is CSD015 with what to do", () => {
    const s = new DebugSession({ module: { ...ir, file: `${file}.missing.ts` }, kernel: "feat", grid: [1, 1, 1], block: [32, 1, 1], args: [argDesc(new Int32Array(32)), argDesc(new Float32Array(32))] }, { print: () => {} });
    const [r] = s.setBreakpoints(file, [{ line: L("loop body"), condition: "i > 3" }]);
    assert.match(r!.message!, /^CSD015: .*cannot be read .*give its text as the launch's `source`/);
  });

  it("sessions of the same module share compiled conditions: a host program's next launch does not type-check them again", () => {
    const proto = DebugExpressionCompiler.prototype as unknown as { compile: (...a: unknown[]) => unknown };
    const original = proto.compile;
    let compiles = 0;
    proto.compile = function (this: unknown, ...a: unknown[]) {
      compiles++;
      return original.apply(this, a);
    };
    try {
      const condition = "i > 10 && t !== 31";
      for (let launch = 0; launch < 3; launch++) {
        const { s } = featSession();
        s.setBreakpoints(file, [{ line: L("loop body"), condition }]);
        assert.equal(variable(stop(s.continue()), "i"), 11, `launch ${launch} stops where the condition first holds`);
      }
      assert.equal(compiles, 1);
    } finally {
      proto.compile = original;
    }
  });

  it("an expression that would change memory is refused with CSD015", () => {
    const { s } = featSession();
    const r = s.setBreakpoints(file, [{ line: L("loop body"), condition: "cuda.atomic.add(a, 0, 1) > 0" }]);
    assert.match(r[0]!.message!, /^CSD015: .*cannot be evaluated by the debugger: it updates memory \(cuda.atomic.add\)/);
  });
});

describe("debugger: breakpoints probed in the fast simulator", () => {
  it("a breakpoint whose condition over a local never holds lets every block run on the fast simulator, with its output", () => {
    const { s, out } = featSession();
    s.setBreakpoints(file, [{ line: L("loop body"), condition: "acc < 0" }, { line: L("spin body") }]);
    assert.equal(s.continue().kind, "end");
    assert.equal(s.steppedBlocks, 0);
    const want = featSession();
    want.s.continue();
    assert.deepEqual([...out], [...want.out]);
  });

  it("a probe that fires puts the memory back and runs the block again stepped: earlier blocks' writes and output happen once", () => {
    const out = new Int32Array(16);
    const printed: string[] = [];
    const s = new DebugSession({ module: ir, kernel: "shout", grid: [4, 1, 1], block: [4, 1, 1], args: [argDesc(out)] }, { print: (x) => printed.push(x) });
    s.setBreakpoints(file, [{ line: L("bump"), condition: "cuda.blockIdx.x === 2 && t === 3" }]);
    const e = stop(s.continue());
    assert.deepEqual([e.block, e.thread, s.steppedBlocks], [[2, 0, 0], [3, 0, 0], 1]);
    assert.deepEqual([...out], [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0]);
    assert.deepEqual(printed, ["block 0\n", "block 1\n", "block 2\n"]);
    assert.equal(s.continue().kind, "end");
    assert.deepEqual([...out], Array(16).fill(1));
    assert.deepEqual(printed, ["block 0\n", "block 1\n", "block 2\n", "block 3\n"]);
    assert.equal(s.steppedBlocks, 1);
  });
});

describe("debugger: hit counts and logpoints", () => {
  it("a hit count counts every thread's hits in the order the scheduler runs them: thread 0's 16 passes, then thread 1's", () => {
    const { s } = featSession();
    s.setBreakpoints(file, [{ line: L("loop body"), hitCondition: "== 20" }]);
    const e = stop(s.continue());
    assert.deepEqual([e.thread, variable(e, "i")], [[1, 0, 0], 3]);
    // Only the 20th: the launch runs to its end.
    assert.equal(s.continue().kind, "end");
    const every = featSession().s;
    every.setBreakpoints(file, [{ line: L("shared write"), hitCondition: "% 16", condition: "cuda.blockIdx.x === 1" }]);
    const first = stop(every.continue());
    assert.deepEqual([first.block, first.thread], [[1, 0, 0], [15, 0, 0]]);
    assert.deepEqual(stop(every.continue()).thread, [31, 0, 0]);
    assert.equal(every.continue().kind, "end");
  });

  it("a hit condition the debugger does not know is CSD016", () => {
    const { s } = featSession();
    assert.match(s.setBreakpoints(file, [{ line: L("loop body"), hitCondition: "twice" }])[0]!.message!, /^CSD016: .*write a number \(stop from that hit on\), or '== 5'/);
  });

  it("a logpoint prints its message with each thread's block and thread index and does not stop", () => {
    const logs: LogEvent[] = [];
    const { s } = featSession({ log: (e: LogEvent) => logs.push(e) });
    s.setBreakpoints(file, [{ line: L("shared write"), logMessage: "acc = {acc}, s[0][1] = {s[0][1]} {{ok}}", condition: "t === 1" }]);
    assert.equal(s.continue().kind, "end");
    assert.deepEqual(
      logs.map((l) => [l.block, l.thread, l.line, l.text]),
      [
        [[0, 0, 0], [1, 0, 0], L("shared write"), "acc = 136, s[0][1] = 0 {ok}"],
        [[1, 0, 0], [1, 0, 0], L("shared write"), "acc = 136, s[0][1] = 0 {ok}"],
      ],
    );
    const printed: string[] = [];
    const p = featSession({ print: (x: string) => printed.push(x) }).s;
    p.setBreakpoints(file, [{ line: L("shared write"), logMessage: "t={t}", condition: "t === 2 && cuda.blockIdx.x === 1" }]);
    p.continue();
    assert.deepEqual(printed, ["[block (1, 0, 0) thread (2, 0, 0)] t=2\n"]);
    assert.match(p.setBreakpoints(file, [{ line: L("loop body"), logMessage: "x = {x" }])[0]!.message!, /^CSD017: /);
  });
});

describe("debugger: evaluate and the warp watch", () => {
  it("evaluate in the focus thread's frame, and a warp watch over the 32 lanes of its warp", () => {
    const { s } = featSession();
    s.setBreakpoints(file, [{ line: L("read back"), condition: "t === 5" }]);
    stop(s.continue());
    assert.deepEqual(s.evaluate("acc + t"), { result: String(16 * 5 + 120 + 5), type: "i32" });
    assert.deepEqual(s.evaluate("t / 2"), { result: "2.5", type: "f32" });
    assert.deepEqual(s.evaluate("s").array, { name: "s", frame: 0 });
    assert.throws(() => s.evaluate("t +"), /CSD009/);
    const w = s.evaluateWarp("acc * 2 + t");
    assert.equal(w.type, "i32");
    assert.equal(w.lanes.length, 32);
    // Lanes 0–4 ran past the read and exited; 5 is the focus; 6–31 are released from the barrier, not yet on.
    assert.deepEqual(w.lanes.slice(0, 5).map((l) => [l.status, l.result]), Array(5).fill(["exited", undefined]));
    assert.deepEqual([w.lanes[5]!.active, w.lanes[5]!.result], [true, String(2 * (16 * 5 + 120) + 5)]);
    for (let lane = 6; lane < 32; lane++) assert.equal(w.lanes[lane]!.result, String(2 * (16 * lane + 120) + lane), `lane ${lane}`);
    assert.deepEqual(w.lanes[31]!.thread, [31, 0, 0]);
  });
});

describe("debugger: data breakpoints", () => {
  it("a data breakpoint on a shared element stops at the write in the thread that writes it, with the old and new value", () => {
    const { s } = featSession();
    s.setBreakpoints(file, [{ line: L("loop body"), condition: "t === 0 && i === 0" }]);
    stop(s.continue());
    const info = s.dataBreakpointInfo(0, "s", [2, 3]);
    assert.ok(info.dataId);
    assert.match(info.description, /^s\[2\]\[3\] \(shared f32\) is written/);
    assert.deepEqual(s.setDataBreakpoints([info.dataId!]), [{ dataId: info.dataId, verified: true }]);
    s.setBreakpoints(file, []);
    const e = stop(s.continue());
    assert.deepEqual([e.reason, e.line, e.block, e.thread], ["data breakpoint", L("shared write"), [0, 0, 0], [19, 0, 0]]);
    assert.equal(e.description, `s[2][3] written by thread (19, 0, 0): 0 → ${16 * 19 + 120}`);
    assert.deepEqual(s.focusView().thread, [19, 0, 0]);
    // The next block zeroes its shared memory (no thread's write), then thread 19 writes it again.
    const e2 = stop(s.continue());
    assert.deepEqual([e2.block, e2.thread], [[1, 0, 0], [19, 0, 0]]);
    assert.equal(s.continue().kind, "end");
  });

  it("only an element of a shared or global array can be watched; an unknown id is CSD018", () => {
    const { s } = featSession();
    s.setBreakpoints(file, [{ line: L("shared write") }]);
    stop(s.continue());
    assert.equal(s.dataBreakpointInfo(0, "acc", []).dataId, null);
    assert.match(s.dataBreakpointInfo(0, "s", [9, 0]).description, /pick one element of 's' \(shape \[4, 8\]\)/);
    assert.ok(s.dataBreakpointInfo(0, "out", [3]).dataId);
    assert.match(s.setDataBreakpoints(["nope"])[0]!.message!, /^CSD018: /);
  });
});

describe("debugger: pause and the time limit", () => {
  const spin = (opts = {}) => {
    const out = new Int32Array(4);
    return { out, s: new DebugSession({ module: ir, kernel: "spin", grid: [2, 1, 1], block: [4, 1, 1], args: [argDesc(out)] }, { print: () => {}, ...opts }) };
  };

  it("pause stops a kernel that loops forever, in its loop, with its locals", () => {
    const { s } = spin();
    s.setBreakpoints(file, [{ line: L("shared write") }]); // in another kernel: every block is stepped
    s.begin("continue");
    assert.equal(s.runSlice(20).kind, "running");
    assert.equal(s.runSlice(20).kind, "running");
    s.pause();
    const e = stop(s.runSlice(20) as DebugEvent);
    assert.equal(e.reason, "pause");
    assert.deepEqual(e.thread, [0, 0, 0]);
    assert.ok([L("while (true)"), L("spin body")].includes(e.line), `line ${e.line}`);
    assert.ok((variable(e, "k") as number) > 1000);
    // Stepping on from a pause works as from any stop.
    const st = stop(s.stepOver());
    assert.equal(st.reason, "step");
  });

  it("a kernel that never ends, without breakpoints, pauses itself at the time limit (CSD019): the fast simulator's run is stopped, its memory restored, and the block stepped", () => {
    const { s, out } = spin({ timeLimitMs: 600, fastBlockTimeoutMs: 200 });
    const t0 = performance.now();
    const e = stop(s.continue());
    assert.ok(performance.now() - t0 < 5000);
    assert.equal(e.reason, "pause");
    assert.match(e.description!, /^CSD019: the launch ran 0\.6 s without reaching a breakpoint: paused where thread \(0, 0, 0\) was\. Continue to let it run on/);
    assert.deepEqual([...out], [0, 0, 0, 0]);
  });
});
