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
