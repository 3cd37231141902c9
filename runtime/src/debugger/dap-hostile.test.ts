/**
 * `cudascript debug-adapter` over stdio given hostile input: an expression that never ends, launch
 * arguments that are out of range, thread / frame / variable ids it never gave, and a DAP frame whose
 * Content-Length is absurd. Each gets a coded answer, and the adapter still answers `threads` and
 * `disconnect` afterwards.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { DapClient, lineOf, type DapMessage } from "./test-helpers";

const SOURCE = `import { cuda, i32 } from "cudascript";
const forever = cuda.device((x: i32): i32 => {
  let k: i32 = x;
  while (k >= 0) {
    k = (k + 1) & 1023;
  }
  return k;
});
export const bump = cuda.jit((a: Int32Array, out: Int32Array) => {
  const t = cuda.threadIdx.x;
  if (a[t] < 0) out[t] = forever(a[t]);
  cuda.syncthreads();
  out[t] = a[t] + 1; // bump
});
export const spinCall = cuda.jit((a: Int32Array, out: Int32Array) => {
  const t = cuda.threadIdx.x;
  out[t] = a[t]; // before the call
  out[t] = forever(a[t]);
});
export const grid2 = cuda.jit((m: Array2D<f32>, out: Float32Array) => {
  out[0] = m[0][0]; // corner
});
`.replace("import { cuda, i32 }", "import { cuda, i32, f32, Array2D }");
const FILE = path.join(__dirname, `__dap_hostile_${process.pid}.ts`);
fs.writeFileSync(FILE, SOURCE);
after(() => fs.rmSync(FILE, { force: true }));
const BIN = path.join(__dirname, "..", "..", "bin", "cudascript.js");
const L = (m: string) => lineOf(SOURCE, m);
const BUMP = { program: FILE, kernel: "bump", grid: 1, block: 4, args: [{ dtype: "i32", range: 4 }, { dtype: "i32", zeros: 4 }] };

type Client = DapClient & { launched: Promise<DapMessage> };

/** `p`, or a failure after `ms` saying what did not come (a missing answer must fail the test, not hang it). */
function within<T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function initialized(): Promise<DapClient> {
  const c = new DapClient(process.execPath, [BIN, "debug-adapter"]);
  await within(c.request("initialize", { adapterID: "cudascript", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" }), "initialize response");
  await c.event("initialized");
  return c;
}

async function start(launch: object): Promise<Client> {
  const c = await initialized();
  return Object.assign(c, { launched: c.request("launch", launch) });
}

/** The adapter is alive: it answers `threads` and then `disconnect`. */
async function stillAnswers(c: DapClient): Promise<void> {
  assert.equal((await within(c.request("threads"), "threads response")).success, true);
  assert.equal((await within(c.request("disconnect", {}), "disconnect response")).success, true);
}

/** An error a user reads: coded, without a JavaScript stack or the install's paths. */
function assertCodedError(r: DapMessage, code: RegExp, what: string): void {
  assert.equal(r.success, false, `${what}: should fail`);
  const text = `${r.message ?? ""} ${JSON.stringify(r.body ?? {})}`;
  assert.match(r.message ?? "", code, `${what}: ${text}`);
  // The program's own path may appear; the adapter's installed files (a stack's frames) must not.
  assert.doesNotMatch(text, /\n\s+at |\bat .*\.js:\d+|\.js:\d+:\d+|node_modules/, `${what}: no stack trace or paths: ${text}`);
}

describe("debug adapter: hostile input", () => {
  it("an evaluate that calls a device function looping forever fails with CSD027 within the expression budget; the adapter answers on", async () => {
    const c = await start(BUMP);
    try {
      assert.equal((await c.launched).success, true);
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("// bump"), condition: "t === 1" }] });
      await c.request("configurationDone");
      const stopped = await within(c.event("stopped"), "the breakpoint's stop");
      const stack = await c.request("stackTrace", { threadId: stopped.body.threadId });
      const frameId = stack.body.stackFrames[0].id;
      const t0 = Date.now();
      const r = await within(c.request("evaluate", { expression: "forever(t)", frameId, context: "repl" }), "evaluate response", 15_000);
      assertCodedError(r, /^CSD027: the expression 'forever\(t\)' ran .* without finishing/, "evaluate forever(t)");
      assert.ok(Date.now() - t0 < 10_000, `answered after ${Date.now() - t0} ms`);
      // A warp watch of a runaway expression spends the budget once, not once per lane.
      const t1 = Date.now();
      const warp = await within(c.request("evaluate", { expression: "warp: forever(t + 1)", frameId, context: "watch" }), "warp watch response", 15_000);
      // Lanes 1–3 are in the kernel (0 has exited): 2 s for the first, at once for the others.
      assert.ok(Date.now() - t1 < 4_500, `warp watch answered after ${Date.now() - t1} ms`);
      const lanes = await c.request("variables", { variablesReference: warp.body.variablesReference });
      const errors = lanes.body.variables.filter((v: { value: string }) => /^error: CSD027: the warp watch 'forever\(t \+ 1\)' ran/.test(v.value));
      assert.equal(errors.length, 3, JSON.stringify(lanes.body.variables));
      // The session is usable after it: another evaluate, then the adapter answers.
      assert.equal((await c.request("evaluate", { expression: "t + 1", frameId, context: "repl" })).body.result, "2");
      await stillAnswers(c);
    } finally {
      c.close();
    }
  });

  it("a breakpoint condition that calls a device function looping forever ends the launch with CSD027; the adapter answers on", async () => {
    const c = await start(BUMP);
    try {
      assert.equal((await c.launched).success, true);
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("// bump"), condition: "forever(t) > 5000" }] });
      await c.request("configurationDone");
      await within(c.event("terminated"), "the launch's end", 30_000);
      const stderr = c.drain("output").filter((e) => e.body.category === "stderr").map((e) => e.body.output).join("");
      assert.match(stderr, /CSD027: the condition of the breakpoint at line \d+ 'forever\(t\) > 5000' ran .* without finishing/);
      await stillAnswers(c);
    } finally {
      c.close();
    }
  });

  it("a kernel's call of a device function looping forever, in a stepped block, stops with CSR024 at the loop instead of freezing the adapter", async () => {
    const c = await start({ ...BUMP, kernel: "spinCall" });
    try {
      assert.equal((await c.launched).success, true);
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("// before the call") }] });
      await c.request("configurationDone");
      const first = await within(c.event("stopped"), "the breakpoint's stop");
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [] });
      await c.request("continue", { threadId: first.body.threadId });
      const fault = await within(c.event("stopped"), "the stop at the runaway loop", 15_000);
      assert.equal(fault.body.reason, "exception");
      assert.match(fault.body.text, /^CSR024: runaway loop at .*:4:3 .*device function 'forever'.*2\.0 s past its time slice, in a device function call the debugger cannot pause inside/);
      await stillAnswers(c);
    } finally {
      c.close();
    }
  });

  it("launch arguments out of range are CSD014 with the host API's rule, answered at once; the adapter answers on", async () => {
    const c = await initialized();
    const bad: [object, RegExp][] = [
      // 24 GB: refused by the simulator's memory budget before anything is allocated.
      [{ ...BUMP, args: [{ dtype: "f64", zeros: 3e9 }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: .*out of device memory/],
      [{ ...BUMP, args: [{ dtype: "i32", range: 4 }, { dtype: "f32", range: 3e9 }] }, /^CSD014: launch configuration: .*out of device memory/],
      [{ ...BUMP, args: [{ dtype: "i8", range: 300 }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: "range": 300 counts to 299, over the largest i8 \(127\)/],
      [{ ...BUMP, args: [{ dtype: "i32", zeros: 4, zero: 4 }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: "zero" is not a field of an array argument/],
      [{ ...BUMP, kernel: "grid2", args: [{ dtype: "f32", zeros: 4, shape: [-1, -4] }, { dtype: "f32", zeros: 1 }] }, /^CSD014: launch configuration: args\[0\]: .*a shape is .* whole numbers ≥ 0, got \[-1, -4\]/],
      [{ ...BUMP, kernel: "grid2", args: [{ dtype: "f32", zeros: 4, shape: [0.5, 8] }, { dtype: "f32", zeros: 1 }] }, /^CSD014: launch configuration: args\[0\]: .*got \[0\.5, 8\]/],
      [{ ...BUMP, kernel: "grid2", args: [{ dtype: "f32", zeros: 4, shape: [2, 3] }, { dtype: "f32", zeros: 1 }] }, /^CSD014: launch configuration: args\[0\]: shape \[2, 3\] holds 6 elements, not 4/],
      [{ ...BUMP, args: [{ dtype: "i32", data: [1, "two", 3, 4] }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: data\[1\] is "two", not a number/],
      [{ ...BUMP, args: [{ dtype: "i32", data: [1, 2.5, 3, 4] }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: data\[1\] = 2\.5 does not fit i32/],
      [{ ...BUMP, args: [{ dtype: "i32", data: [1, 2], range: 4 }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: give one of "zeros", "range" or "data", not "range" and "data"/],
      [{ ...BUMP, args: [{ dtype: "i32" }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: give one of "zeros", "range" or "data"/],
      [{ ...BUMP, args: [{ dtype: "f17", zeros: 4 }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: args\[0\]: .*"f17" is not a dtype/],
      [{ ...BUMP, args: [{ dtype: "f32", zeros: 4 }, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: .*argument 1 'a' of kernel 'bump' expects Int32Array, but the device array holds f32/],
      [{ ...BUMP, args: [{ dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: .*takes 2 arguments, but was launched with 1/],
      [{ ...BUMP, args: [2.5, { dtype: "i32", zeros: 4 }] }, /^CSD014: launch configuration: .*argument 1 'a' of kernel 'bump' expects Int32Array .*got the number 2\.5/],
      [{ ...BUMP, grid: 0 }, /^CSD014: launch configuration: .*grid size x must be a whole number ≥ 1, got 0/],
      [{ ...BUMP, block: [2048, 1, 1] }, /^CSD014: launch configuration: .*2048 threads, but a block can have at most 1024/],
      [{ ...BUMP, grid: [1, 70000] }, /^CSD014: launch configuration: .*grid size y = 70000 is over the limit of 65535/],
      [{ ...BUMP, sharedMem: -1 }, /^CSD014: launch configuration: .*sharedMem is the number of bytes of dynamic shared memory, a whole number ≥ 0, got the number -1/],
      [{ ...BUMP, sharedMem: 1e9 }, /^CSD014: launch configuration: .*over the 163 KiB of shared memory a block can have/],
      [{ ...BUMP, kernel: "nope" }, /^CSD010: .*has no kernel 'nope'/],
      [{ ...BUMP, program: "/dev/zero" }, /^CSD014: launch configuration: "program" is the kernel file, got "\/dev\/zero"/],
      [{ ...BUMP, program: __dirname }, /^CSD014: launch configuration: "program" is the kernel file/],
      [{ ...BUMP, timeLimit: -5 }, /^CSD014: launch configuration: "timeLimit" is seconds > 0/],
    ];
    try {
      for (const [launch, message] of bad) {
        const t0 = Date.now();
        const r = await within(c.request("launch", launch), `launch response for ${JSON.stringify(launch)}`, 15_000);
        assertCodedError(r, message, JSON.stringify((launch as { args: unknown }).args));
        assert.ok(Date.now() - t0 < 5_000, `${JSON.stringify(launch)} answered after ${Date.now() - t0} ms`);
      }
      await stillAnswers(c);
    } finally {
      c.close();
    }
  });

  it("requests naming a thread, frame or variables reference the adapter never gave are coded errors with the id as sent, no stack", async () => {
    const c = await start(BUMP);
    try {
      assert.equal((await c.launched).success, true);
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("// bump") }] });
      await c.request("configurationDone");
      const stopped = await within(c.event("stopped"), "the breakpoint's stop");
      const stack = await c.request("stackTrace", { threadId: stopped.body.threadId });
      assert.equal(stack.success, true);
      for (const id of [999, 0, -1, 1.5, "x"]) {
        const shown = typeof id === "string" ? '"x"' : String(id);
        const thread = new RegExp(`^CSD028: .*thread ${shown.replace(/[.]/g, "\\.")} is not a thread of this launch: .*1 to 4`);
        assertCodedError(await c.request("stackTrace", { threadId: id }), thread, `stackTrace ${shown}`);
        assertCodedError(await c.request("next", { threadId: id }), thread, `next ${shown}`);
        assertCodedError(await c.request("stepIn", { threadId: id }), thread, `stepIn ${shown}`);
        assertCodedError(await c.request("stepOut", { threadId: id }), thread, `stepOut ${shown}`);
      }
      assertCodedError(await c.request("scopes", { frameId: 12345 }), /^CSD028: .*frame 12345 is not a stack frame of the current stop/, "scopes");
      assertCodedError(await c.request("evaluate", { expression: "t", frameId: 12345, context: "repl" }), /^CSD028: .*frame 12345 is not a stack frame/, "evaluate");
      assertCodedError(await c.request("variables", { variablesReference: 777 }), /^CSD028: .*variables reference 777 is not one of the current stop/, "variables");
      assertCodedError(await c.request("setVariable", { variablesReference: 777, name: "t", value: "1" }), /^CSD028: .*variables reference 777/, "setVariable");
      // dataBreakpointInfo answers "no data breakpoint here" (dataId null), saying why.
      const info = await c.request("dataBreakpointInfo", { variablesReference: 777, name: "[0]" });
      assert.deepEqual([info.success, info.body.dataId], [true, null]);
      assert.match(info.body.description, /^CSD028: variables reference 777 is not one of the current stop/);
      // Requests without their arguments: a coded message, never the library's stack trace.
      assertCodedError(await c.request("setBreakpoints", {}), /^CSR030: the debugger failed on a 'setBreakpoints' request: /, "setBreakpoints without source");
      assertCodedError(await c.request("setVariable", { variablesReference: (await c.request("scopes", { frameId: stack.body.stackFrames[0].id })).body.scopes[0].variablesReference, name: "t" }), /^CSR030: the debugger failed on a 'setVariable' request: /, "setVariable without value");
      // The valid ones still work after all that.
      assert.equal((await c.request("stackTrace", { threadId: stopped.body.threadId })).body.stackFrames[0].line, L("// bump"));
      await stillAnswers(c);
    } finally {
      c.close();
    }
  });

  it("a frame with Content-Length 99999999999 is refused (CSD029, naming the limit) and later requests are answered", async () => {
    const c = await initialized();
    try {
      c.child.stdin.write('Content-Length: 99999999999\r\n\r\n{"seq":90,"type":"request","command":"threads"}');
      c.child.stdin.write("Content-Length: nine\r\n\r\n");
      const output = within(c.event("output"), "output event about the refused frame");
      assert.equal((await within(c.request("threads"), "threads after the refused frame")).success, true);
      assert.match((await output).body.output, /^CSD029: refused a DAP message of 99999999999 bytes \(Content-Length\): the limit is 64 MiB/);
      assert.match((await within(c.event("output"), "output event about the bad header")).body.output, /^CSD029: .*'Content-Length: nine'/);
      // A header that never ends is refused too, at its limit.
      c.child.stdin.write("X".repeat(70_000));
      assert.equal((await within(c.request("threads"), "threads after the endless header")).success, true);
      assert.match((await within(c.event("output"), "output event about the endless header")).body.output, /^CSD029: .*header/);
      await stillAnswers(c);
    } finally {
      c.close();
    }
  });
});
