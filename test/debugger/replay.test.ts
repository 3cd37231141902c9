/**
 * Replay to a fault, in-process (runtime/src/debugger/replay-launch.ts): a launch that faults on the
 * simulator (with the sanitizer where the finding needs it) is debugged again from its original memory
 * and stops at the faulting thread, at the pass over the line where it faulted, before the statement
 * runs — with its locals, shared memory, and for a race the other thread as it was at its access.
 */
import * as assert from "node:assert/strict";
import { describe, it } from "node:test";
import { replayLaunch, replayTarget, type ReplayedLaunch } from "cudascript/dist/debugger/replay-launch";
import { DebugSession } from "cudascript/dist/debugger/session";
import { otherAccessOf } from "cudascript/dist/debugger/replay-target";
import type { StopEvent, VariableView } from "cudascript/dist/debugger/session";
import { argDesc, compileKernels, lineOf } from "cudascript/dist/debugger/test-helpers";
import { CudaScriptError } from "cudascript";
import { IMPORTS, RACY, RAISING } from "./replay-fixtures";

const SOURCE = `${IMPORTS}export const oob = cuda.jit((a: Float32Array, out: Float32Array) => {
  const t = cuda.threadIdx.x;
  let acc = 0;
  for (let k = 0; k < 4; k++) {
    const j = t === 5 && k === 2 ? 1000 : t * 4 + k;
    acc += a[j]; // oob read
  }
  out[t] = acc;
});
${RACY}${RAISING}export const crossBlock = cuda.jit((data: Float32Array, out: Float32Array) => {
  const t = cuda.threadIdx.x;
  const b = cuda.blockIdx.x;
  let x: f32 = 0;
  for (let k = 0; k < 2; k++) {
    if (b === 0 && t === 2) data[5] = k + 10; // write 5
    x += data[5]; // read 5
  }
  out[b * 4 + t] = x;
});
`;

const { module: ir, file } = compileKernels(SOURCE);
const L = (m: string) => lineOf(SOURCE, m);

function launch(kernel: string, grid: number, block: number, args: ReplayedLaunch["args"], sanitize = false): ReplayedLaunch {
  return { module: ir, kernel, grid: [grid, 1, 1], block: [block, 1, 1], args, sanitize, uninitializedShared: "warn" };
}
function scalar(frame: { variables: readonly VariableView[] }, name: string): unknown {
  const v = frame.variables.find((x) => x.name === name);
  assert.ok(v, `no variable ${name} in ${frame.variables.map((x) => x.name).join(", ")}`);
  return v.value;
}

describe("debugger: replay to a fault", () => {
  it("CSR020 (out of bounds): stops thread 5 at the pass of the loop where it faults, before the read, with its locals", () => {
    const a = Float32Array.from({ length: 32 }, (_, i) => i);
    const out = new Float32Array(8);
    const r = replayLaunch(launch("oob", 1, 8, [argDesc(a), argDesc(out)]), { print: () => {} });
    assert.equal(r.fault?.code, "CSR020");
    assert.equal(r.problem, undefined);
    const e = r.session!.continue() as StopEvent;
    assert.equal(e.kind, "stop");
    assert.equal(e.reason, "exception");
    assert.equal(e.error?.code, "CSR020");
    assert.deepEqual([e.line, e.block, e.thread], [L("oob read"), [0, 0, 0], [5, 0, 0]]);
    assert.equal(e.file, file);
    assert.equal(scalar(e.frames[0]!, "k"), 2);
    assert.equal(scalar(e.frames[0]!, "j"), 1000);
    assert.equal(scalar(e.frames[0]!, "acc"), 20 + 21); // a[20] + a[21], the two passes before
    // The threads before it ran: the launch is replayed from its original memory, not from the faulted run's.
    assert.deepEqual([...out.slice(0, 5)], [0 + 1 + 2 + 3, 4 + 5 + 6 + 7, 8 + 9 + 10 + 11, 12 + 13 + 14 + 15, 16 + 17 + 18 + 19]);
    const end = r.session!.continue();
    assert.equal(end.kind, "end");
    assert.equal(end.error?.code, "CSR020");
  });

  it("CSR021 (shared race, with the sanitizer): stops the reading thread at its third pass and shows the writer as it was at its write", () => {
    const out = new Float32Array(8);
    const r = replayLaunch(launch("racy", 1, 8, [argDesc(out)], true), { print: () => {} });
    assert.equal(r.fault?.code, "CSR021");
    assert.equal(r.problem, undefined);
    // The finding names the writer structurally (details.other), with its file and column.
    assert.deepEqual(otherAccessOf(r.fault!), { block: [0, 0, 0], thread: [0, 0, 0], file, line: L("write own"), col: 5 });
    const e = r.session!.continue() as StopEvent;
    assert.equal(e.reason, "exception");
    assert.equal(e.error?.code, "CSR021");
    assert.deepEqual([e.line, e.thread], [L("racy read"), [1, 0, 0]]);
    assert.equal(scalar(e.frames[0]!, "k"), 2);
    assert.equal(scalar(e.frames[0]!, "acc"), 1 + 2); // s[1] at k = 0 and k = 1
    // Shared memory in view: s[0] holds thread 0's last write (0 + 2), the element the race is on.
    const s = e.frames[0]!.variables.find((v) => v.name === "s")!;
    assert.equal(s.space, "shared");
    assert.equal((s.value as { data: Float32Array }).data[0], 2);
    const other = r.session!.replayOther()!;
    assert.deepEqual([other.block, other.thread, other.frames[0]!.line], [[0, 0, 0], [0, 0, 0], L("write own")]);
    assert.equal(scalar(other.frames[0]!, "k"), 2);
    assert.equal(r.session!.continue().kind, "end");
  });

  it("CSR021 is not found without the sanitizer: the launch runs clean and its results are kept", () => {
    const out = new Float32Array(8);
    const r = replayLaunch(launch("racy", 1, 8, [argDesc(out)], false), { print: () => {} });
    assert.equal(r.fault, undefined);
    assert.equal(out[1], 1 + 2 + 2); // s[1] + s[1] + s[0]
  });

  it("CSR085 (a kernel throws) in the second block: the first block runs fast, the thread stops before its throw", () => {
    const out = new Int32Array(8);
    const r = replayLaunch(launch("raising", 2, 4, [argDesc(out), argDesc(6)]), { print: () => {} });
    assert.equal(r.fault?.code, "CSR085");
    const e = r.session!.continue() as StopEvent;
    assert.equal(e.reason, "exception");
    assert.deepEqual([e.line, e.block, e.thread], [L("raise"), [1, 0, 0], [2, 0, 0]]);
    assert.equal(scalar(e.frames[0]!, "k"), 1);
    assert.equal(scalar(e.frames[0]!, "t"), 6);
    assert.equal(r.session!.steppedBlocks, 1);
    assert.deepEqual([...out.slice(0, 4)], [3, 3, 3, 3]); // block 0 ran whole: 0 + 1 + 2
  });

  it("any finding with a block, thread, line and details.other replays generically: a race between blocks shows the other block's thread at its access", () => {
    // What the global race detector reports (CSR066/CSR067): the other access in details.other.
    const error = new CudaScriptError("CSR067", "global-memory race on 'data[5]'", {
      kind: "race",
      kernel: "crossBlock",
      file,
      line: L("read 5"),
      col: 10,
      block: [1, 0, 0],
      thread: [1, 0, 0],
      array: "data",
      index: 5,
      other: { block: [0, 0, 0], thread: [2, 0, 0], access: "write", file, line: L("write 5"), col: 29 },
    } as CudaScriptError["details"]);
    assert.deepEqual(otherAccessOf(error), { block: [0, 0, 0], thread: [2, 0, 0], file, line: L("write 5"), col: 29 });
    const data = new Float32Array(8);
    const out = new Float32Array(8);
    // The passes as the counting run would find them: block 1 thread 1's second read; block 0 thread 2's second write (its line holds the if and the write).
    const s = new DebugSession(
      { module: ir, kernel: "crossBlock", grid: [2, 1, 1], block: [4, 1, 1], args: [argDesc(data), argDesc(out)] },
      {
        print: () => {},
        replay: {
          error,
          fault: { file, line: L("read 5"), block: [1, 0, 0], thread: [1, 0, 0], hits: 2 },
          other: { file, line: L("write 5"), block: [0, 0, 0], thread: [2, 0, 0], hits: 4 },
        },
      },
    );
    const e = s.continue() as StopEvent;
    assert.equal(e.reason, "exception");
    assert.equal(e.error?.code, "CSR067");
    assert.deepEqual([e.line, e.block, e.thread], [L("read 5"), [1, 0, 0], [1, 0, 0]]);
    assert.equal(scalar(e.frames[0]!, "k"), 1);
    assert.equal(scalar(e.frames[0]!, "x"), 11); // data[5] after block 0: 11, read once at k = 0
    const other = s.replayOther()!;
    assert.deepEqual([other.block, other.thread, other.frames[0]!.line], [[0, 0, 0], [2, 0, 0], L("write 5")]);
    assert.equal(scalar(other.frames[0]!, "k"), 1);
    assert.equal(s.steppedBlocks, 2);
    assert.equal(s.continue().kind, "end");
  });

  it("a fault that does not recur on replay is CSR089, never a stop at the wrong place", () => {
    const a = Float32Array.from({ length: 32 }, (_, i) => i);
    const l = launch("oob", 1, 8, [argDesc(a), argDesc(new Float32Array(8))]);
    const claimed = new CudaScriptError("CSR020", "out-of-bounds read", { kind: "out-of-bounds", kernel: "oob", file, line: L("oob read"), col: 5, block: [0, 0, 0], thread: [6, 0, 0] });
    const { target, problem } = replayTarget(l, claimed);
    assert.equal(target, undefined);
    assert.equal(problem?.code, "CSR089");
    assert.match(problem!.message, /did not recur on replay/);
  });
});
