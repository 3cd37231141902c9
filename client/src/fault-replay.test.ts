import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { faultDebugConfiguration, runFault } from "./fault-replay";

const RACE =
  "cudascript: error CSR021: shared-memory race on 's[0]' at src/kernels.ts:8:15 in kernel 'racy', block (0, 0, 0), thread (1, 0, 0): thread (1, 0, 0) reads it after thread (0, 0, 0) wrote it (line 7) with no cuda.syncthreads() in between";

test("a run's kernel fault: its code, kernel, place, block and thread, from the coded line (not the context after it)", () => {
  const output = ["before", "cudascript: running main.ts on the simulator (--sanitize), sanitizer on", RACE, "  (from the host program at main.ts:5:19)", ""].join("\n");
  assert.deepEqual(runFault(output), { code: "CSR021", kernel: "racy", file: "src/kernels.ts", line: 8, block: [0, 0, 0], thread: [1, 0, 0], gpu: false });
});

test("a fault in a device function, in another block; a build error or a launch error is no kernel fault", () => {
  const oob = "cudascript: error CSR020: out-of-bounds read of array 'a' at kernels.ts:14:10 in kernel 'gather' (device function 'pick'), block (1, 0, 0), thread (5, 0, 0): index 99 is outside 0..15";
  assert.deepEqual(runFault(`cudascript: running on the simulator: no GPU driver — cudascript doctor\n${oob}`), { code: "CSR020", kernel: "gather", file: "kernels.ts", line: 14, block: [1, 0, 0], thread: [5, 0, 0], gpu: false });
  assert.equal(runFault("main.ts:3:14 - error CS1001: strings are not supported in kernels"), undefined);
  assert.equal(runFault("cudascript: error CSR008: block too large: 2048 threads"), undefined);
});

test("the debug configuration replays the program as the run ran it, to that fault", () => {
  const cwd = path.resolve("/ws");
  const c = faultDebugConfiguration({ program: path.join(cwd, "main.ts"), cwd, sanitize: true }, runFault(`cudascript: running main.ts on the simulator (--sanitize), sanitizer on\n${RACE}`)!);
  assert.deepEqual(c, {
    type: "cudascript",
    request: "launch",
    name: "Debug this fault: CSR021 in racy",
    program: path.join(cwd, "main.ts"),
    cwd,
    sanitize: true,
    onFault: { code: "CSR021", kernel: "racy", file: path.join(cwd, "src/kernels.ts"), line: 8, block: [0, 0, 0], thread: [1, 0, 0] },
  });
});

test("a fault a GPU reported: the replay is held to its code, kernel and line, not to the thread the GPU reported first", () => {
  const raised = "cudascript: error CSR085: kernel raised an error at main.ts:9:5 in kernel 'k', block (3, 0, 0), thread (17, 0, 0): bad";
  const f = runFault(`cudascript: running main.ts on NVIDIA A100 (sm_80)\n${raised}`)!;
  assert.equal(f.gpu, true);
  const c = faultDebugConfiguration({ program: "/ws/main.ts", cwd: "/ws", sanitize: false }, f);
  assert.deepEqual(c.onFault, { code: "CSR085", kernel: "k", file: path.join("/ws", "main.ts"), line: 9 });
});
