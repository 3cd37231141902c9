/**
 * Replay to a fault through `cudascript debug-adapter`, as VS Code's "Debug this fault" drives it: a
 * host program's launch configuration with `onFault` (the fault the run reported) and `sanitize` stops
 * with reason `exception` at the faulting thread and line; the race's other access is a thread of its
 * own whose frame is at its line with its locals; `continue` lets the program end with the fault.
 * Also the `{ program, kernel }` configuration (a kernel's @run tag), and a bad `onFault` (CSD014).
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { DapClient, type DapMessage } from "cudascript/dist/debugger/test-helpers";
import { IMPORTS, lineIn, RACY, RAISING } from "./replay-fixtures";

const BIN = path.join(__dirname, "..", "..", "..", "runtime", "bin", "cudascript.js");
const DIR = fs.mkdtempSync(path.join(__dirname, `__replay_dap_${process.pid}_`));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

const KERNELS = `${IMPORTS}${RACY}${RAISING}`;
const KERNEL_FILE = path.join(DIR, "kernels.ts");
const MAIN_FILE = path.join(DIR, "main.ts");
fs.writeFileSync(KERNEL_FILE, KERNELS);
fs.writeFileSync(
  MAIN_FILE,
  `import { cuda } from "cudascript";
import { racy } from "./kernels";
const out = cuda.deviceArray(8, "f32");
racy.launch(1, 8)(out);
console.log("not reached");
`,
);
const line = (marker: string) => lineIn(KERNELS, marker);

async function start(launch: object): Promise<{ c: DapClient; launched: Promise<DapMessage> }> {
  const c = new DapClient(process.execPath, [BIN, "debug-adapter"]);
  await c.request("initialize", { adapterID: "cudascript", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  await c.event("initialized");
  const launched = c.request("launch", launch);
  await c.request("configurationDone");
  return { c, launched };
}

async function locals(c: DapClient, threadId: number): Promise<{ line: number; name: string; vars: Record<string, string> }> {
  const stack = await c.request("stackTrace", { threadId });
  const top = stack.body.stackFrames[0];
  const scopes = await c.request("scopes", { frameId: top.id });
  const vars = await c.request("variables", { variablesReference: scopes.body.scopes[0].variablesReference });
  return { line: top.line, name: top.name, vars: Object.fromEntries(vars.body.variables.map((v: { name: string; value: string }) => [v.name, v.value])) };
}

describe("debug adapter: replay to a fault (onFault)", { timeout: 180_000 }, () => {
  it("a host program's shared race: stops the reading thread at its line; the writer is the thread 'other access' at its line", async () => {
    const { c, launched } = await start({
      type: "cudascript",
      request: "launch",
      program: MAIN_FILE,
      cwd: DIR,
      sanitize: true,
      onFault: { code: "CSR021", kernel: "racy", file: KERNEL_FILE, line: line("racy read"), block: [0, 0, 0], thread: [1, 0, 0] },
    });
    try {
      assert.equal((await launched).success, true);
      const stopped = await c.event("stopped");
      assert.equal(stopped.body.reason, "exception");
      assert.equal(stopped.body.threadId, 2);
      assert.match(stopped.body.text, /^CSR021: shared-memory race on 's\[0\]'/);
      const me = await locals(c, 2);
      assert.deepEqual([me.line, me.name, me.vars.k, me.vars.acc, me.vars.t], [line("racy read"), "racy", "2", "3", "1"]);
      const threads = (await c.request("threads")).body.threads as { id: number; name: string }[];
      const other = threads.find((t) => t.id === 9);
      assert.ok(other, JSON.stringify(threads));
      assert.equal(other.name, `other access of the race: thread (0, 0, 0) of block (0, 0, 0) at line ${line("write own")}`);
      const o = await locals(c, 9);
      assert.deepEqual([o.line, o.vars.k, o.vars.t], [line("write own"), "2", "0"]);
      // Its CUDA scope is its own.
      const stack = await c.request("stackTrace", { threadId: 9 });
      const scopes = await c.request("scopes", { frameId: stack.body.stackFrames[0].id });
      const cudaVars = await c.request("variables", { variablesReference: scopes.body.scopes[1].variablesReference });
      assert.equal(cudaVars.body.variables.find((v: { name: string }) => v.name === "threadIdx").value, "{ x: 0, y: 0, z: 0 }");
      await c.request("continue", { threadId: 2 });
      const exited = await c.event("exited");
      assert.equal(exited.body.exitCode, 1);
      const stderr = c
        .drain("output")
        .filter((e) => e.body.category === "stderr")
        .map((e) => e.body.output)
        .join("");
      assert.match(stderr, /error CSR021/);
      assert.doesNotMatch(stderr, /CSR089/);
    } finally {
      c.close();
    }
  });

  it("a kernel's @run tag: the thread that throws (CSR085) in block 1 stops before its throw, with its locals", async () => {
    const { c, launched } = await start({ type: "cudascript", request: "launch", program: KERNEL_FILE, kernel: "raising", cwd: DIR, onFault: true });
    try {
      assert.equal((await launched).success, true);
      const stopped = await c.event("stopped");
      assert.equal(stopped.body.reason, "exception");
      assert.match(stopped.body.text, /^CSR085: kernel raised an error/);
      assert.equal(stopped.body.threadId, 3);
      const me = await locals(c, 3);
      assert.deepEqual([me.line, me.vars.k, me.vars.t], [line("// raise"), "1", "6"]);
      const threads = (await c.request("threads")).body.threads as { id: number }[];
      assert.ok(!threads.some((t) => t.id === 5), "no other access for a thrown error");
      const focus = await c.request("cudascript.focus", { thread: [2, 0, 0] });
      assert.deepEqual(focus.body.block, [1, 0, 0]);
      await c.request("continue", { threadId: 3 });
      assert.equal((await c.event("exited")).body.exitCode, 1);
    } finally {
      c.close();
    }
  });

  it("a kernel launch written out in the configuration: replayed in the adapter itself; a clean launch has nothing to replay", async () => {
    const launch = { type: "cudascript", request: "launch", program: KERNEL_FILE, kernel: "racy", grid: 1, block: 8, args: [{ dtype: "f32", zeros: 8 }], onFault: true };
    const { c, launched } = await start({ ...launch, sanitize: true });
    try {
      assert.equal((await launched).success, true);
      const stopped = await c.event("stopped");
      assert.equal(stopped.body.reason, "exception");
      assert.equal(stopped.body.threadId, 2);
      const threads = (await c.request("threads")).body.threads as { id: number; name: string }[];
      assert.ok(threads.some((t) => t.id === 9 && t.name.startsWith("other access of the race: thread (0, 0, 0)")), JSON.stringify(threads));
      assert.equal((await locals(c, 9)).line, line("write own"));
      await c.request("continue", { threadId: 2 });
      await c.event("terminated");
      const stderr = c
        .drain("output")
        .filter((e) => e.body.category === "stderr")
        .map((e) => e.body.output)
        .join("");
      assert.match(stderr, /^CSR021: shared-memory race/m);
    } finally {
      c.close();
    }
    const clean = await start(launch);
    try {
      assert.equal((await clean.launched).success, true);
      await clean.c.event("terminated");
      const out = clean.c
        .drain("output")
        .map((e) => e.body.output)
        .join("");
      assert.match(out, /the launch ran without a kernel fault: nothing to replay \(sanitizer findings are faults only with "sanitize": true\)/);
      assert.equal(clean.c.drain("stopped").length, 0);
    } finally {
      clean.c.close();
    }
  });

  it("a fault the replay does not meet is said (CSR089), and a bad onFault is CSD014", async () => {
    const { c, launched } = await start({ type: "cudascript", request: "launch", program: MAIN_FILE, cwd: DIR, onFault: { code: "CSR021", kernel: "racy" } });
    try {
      assert.equal((await launched).success, true);
      // Without the sanitizer the race is no fault: the program runs to its end.
      assert.equal((await c.event("exited")).body.exitCode, 0);
      const stderr = c
        .drain("output")
        .map((e) => e.body.output)
        .join("");
      assert.match(stderr, /CSR089: the fault did not recur on replay: the program ended without a kernel fault \(the run reported CSR021 \(kernel 'racy'\)\); if the run's fault was a sanitizer finding, debug with the sanitizer on/);
    } finally {
      c.close();
    }
    const bad = await start({ type: "cudascript", request: "launch", program: MAIN_FILE, cwd: DIR, onFault: { thread: [1, 2] } });
    try {
      const r = await bad.launched;
      assert.equal(r.success, false);
      assert.match(r.message!, /CSD014: launch configuration: "onFault" field 'thread' must be \[x, y, z\]/);
    } finally {
      bad.c.close();
    }
  });
});
