/**
 * `cudascript debug-adapter` driven over stdio as an editor drives it: initialize, launch,
 * setBreakpoints, configurationDone, stopped, threads, stackTrace, scopes, variables (a shared array
 * paged), next (across a barrier), setVariable, continue, terminated.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { DapClient, lineOf } from "./test-helpers";

const SOURCE = `import { cuda, f32 } from "cudascript";
export const rotate = cuda.jit((a: Float32Array, out: Float32Array) => {
  const s = cuda.shared.array(8, f32);
  const t = cuda.threadIdx.x;
  s[t] = a[t] * 2; // write shared
  cuda.syncthreads(); // barrier
  const r = s[(t + 1) % 8]; // read neighbour
  out[t] = r;
  console.log("thread", t, "wrote", r);
});
`;
const FILE = path.join(__dirname, `__dap_${process.pid}.ts`);
fs.writeFileSync(FILE, SOURCE);
after(() => fs.rmSync(FILE, { force: true }));
const BIN = path.join(__dirname, "..", "..", "bin", "cudascript.js");
const L = (m: string) => lineOf(SOURCE, m);

const LAUNCH = { program: FILE, kernel: "rotate", grid: 1, block: 8, args: [{ dtype: "f32", range: 8 }, { dtype: "f32", zeros: 8 }] };

/** `p`, or a failure after `ms` saying what did not come (a missing event must fail the test, not hang it). */
function within<T>(p: Promise<T>, what: string, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

async function start(launch: object): Promise<DapClient> {
  const c = new DapClient(process.execPath, [BIN, "debug-adapter"]);
  const init = await c.request("initialize", { adapterID: "cudascript", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  assert.equal(init.success, true);
  assert.equal(init.body.supportsConditionalBreakpoints, true);
  await c.event("initialized");
  const launched = c.request("launch", launch);
  return Object.assign(c, { launched });
}

describe("debug adapter (DAP over stdio)", () => {
  it("breakpoint with a condition, threads of the focus warp, stack, scopes, variables, a step across the barrier, set variable, continue to the end", async () => {
    const c = (await start(LAUNCH)) as DapClient & { launched: Promise<{ success?: boolean }> };
    try {
      assert.equal((await c.launched).success, true);
      const bps = await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("barrier"), condition: "cuda.threadIdx.x === 2" }, { line: 1 }] });
      assert.deepEqual(bps.body.breakpoints.map((b: { verified: boolean }) => b.verified), [true, false]);
      await c.request("configurationDone");

      const stopped = await c.event("stopped");
      assert.equal(stopped.body.reason, "breakpoint");
      assert.equal(stopped.body.threadId, 3); // thread (2, 0, 0)
      const threads = await c.request("threads");
      assert.equal(threads.body.threads.length, 8);
      assert.match(threads.body.threads[2].name, /thread \(2, 0, 0\) of block \(0, 0, 0\) — paused$/, "stopped here: paused, not 'running'");
      assert.ok(threads.body.threads.every((t: { name: string }) => !/— running$/.test(t.name)), "no thread of a stopped kernel reads 'running'");

      const stack = await c.request("stackTrace", { threadId: 3 });
      assert.equal(stack.body.stackFrames[0].line, L("barrier"));
      assert.equal(stack.body.stackFrames[0].name, "rotate");
      const scopes = await c.request("scopes", { frameId: stack.body.stackFrames[0].id });
      assert.deepEqual(scopes.body.scopes.map((s: { name: string }) => s.name), ["Locals", "CUDA"]);
      const locals = await c.request("variables", { variablesReference: scopes.body.scopes[0].variablesReference });
      const byName = new Map<string, { value: string; variablesReference: number; indexedVariables?: number }>(locals.body.variables.map((v: { name: string }) => [v.name, v]));
      assert.equal(byName.get("t")!.value, "2");
      assert.equal(byName.get("s")!.value, "f32[8] shared");
      assert.equal(byName.get("s")!.indexedVariables, 8);
      const cudaVars = await c.request("variables", { variablesReference: scopes.body.scopes[1].variablesReference });
      assert.equal(cudaVars.body.variables[0].value, "{ x: 2, y: 0, z: 0 }");
      // Threads 0..2 have written their element of the shared array; a page of it:
      const page = await c.request("variables", { variablesReference: byName.get("s")!.variablesReference, start: 1, count: 3 });
      assert.deepEqual(page.body.variables.map((v: { name: string; value: string }) => `${v.name}=${v.value}`), ["[1]=2", "[2]=4", "[3]=0"]);

      // Step over the barrier: the rest of the block writes first.
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [] });
      await c.request("next", { threadId: 3 });
      const stepped = await c.event("stopped");
      assert.equal(stepped.body.reason, "step");
      assert.match(stepped.body.description, /across a barrier/);
      const stack2 = await c.request("stackTrace", { threadId: 3 });
      assert.equal(stack2.body.stackFrames[0].line, L("read neighbour"));
      const scopes2 = await c.request("scopes", { frameId: stack2.body.stackFrames[0].id });
      const locals2 = await c.request("variables", { variablesReference: scopes2.body.scopes[0].variablesReference });
      const s2 = locals2.body.variables.find((v: { name: string }) => v.name === "s");
      const all = await c.request("variables", { variablesReference: s2.variablesReference });
      assert.deepEqual(all.body.variables.map((v: { value: string }) => v.value), ["0", "2", "4", "6", "8", "10", "12", "14"]);

      // One more step: r is in scope; set it.
      await c.request("next", { threadId: 3 });
      await c.event("stopped");
      const stack3 = await c.request("stackTrace", { threadId: 3 });
      const scopes3 = await c.request("scopes", { frameId: stack3.body.stackFrames[0].id });
      const set = await c.request("setVariable", { variablesReference: scopes3.body.scopes[0].variablesReference, name: "r", value: "100" });
      assert.equal(set.success, true);
      assert.equal(set.body.value, "100");

      await c.request("continue", { threadId: 3 });
      await c.event("terminated");
      const output = c.drain("output").map((e) => e.body.output).join("");
      assert.match(output, /thread 2 wrote 100\b/);
      assert.match(output, /thread 3 wrote 8\b/);
    } finally {
      c.close();
    }
  });

  it("break on an out-of-bounds write: stopped with reason exception on the faulting thread", async () => {
    const src = SOURCE.replace("out[t] = r;", "out[t + 1] = r; // overrun");
    const file = FILE.replace(/\.ts$/, "_oob.ts");
    fs.writeFileSync(file, src);
    const c = (await start({ ...LAUNCH, program: file })) as DapClient & { launched: Promise<{ success?: boolean }> };
    try {
      await c.launched;
      // A condition over a local that never holds: the block is stepped, so the fault keeps its locals.
      await c.request("setBreakpoints", { source: { path: file }, breakpoints: [{ line: lineOf(src, "overrun"), condition: "r < -1" }] });
      await c.request("configurationDone");
      const stopped = await c.event("stopped");
      assert.equal(stopped.body.reason, "exception");
      assert.equal(stopped.body.threadId, 8);
      assert.match(stopped.body.text, /CSR020: out-of-bounds write of array 'out'/);
      const stack = await c.request("stackTrace", { threadId: 8 });
      assert.equal(stack.body.stackFrames[0].line, lineOf(src, "overrun"));
      await c.request("continue", { threadId: 8 });
      await c.event("terminated");
      assert.match(c.drain("output").map((e) => e.body.output).join(""), /CSR020/);
    } finally {
      c.close();
      fs.rmSync(file, { force: true });
    }
  });

  it("a fault in a block run at full speed (no breakpoint can stop in it) stops on the faulting thread at the faulting line", async () => {
    const src = SOURCE.replace("out[t] = r;", "out[t + 1] = r; // overrun");
    const file = FILE.replace(/\.ts$/, "_fast.ts");
    fs.writeFileSync(file, src);
    const c = (await start({ ...LAUNCH, program: file })) as DapClient & { launched: Promise<{ success?: boolean }> };
    try {
      await c.launched;
      await c.request("configurationDone");
      const stopped = await c.event("stopped");
      assert.deepEqual([stopped.body.reason, stopped.body.threadId], ["exception", 8]);
      const threads = await c.request("threads");
      assert.deepEqual(threads.body.threads.map((t: { id: number }) => t.id), [8]);
      const stack = await c.request("stackTrace", { threadId: 8 });
      assert.deepEqual(stack.body.stackFrames.map((f: { name: string; line: number }) => [f.name, f.line]), [["rotate", lineOf(src, "overrun")]]);
      await c.request("continue", { threadId: 8 });
      await c.event("terminated");
    } finally {
      c.close();
      fs.rmSync(file, { force: true });
    }
  });

  it("the focus request moves the focus to another thread of the stopped block and a stopped event refreshes it; outside the block is CSD025, another block of the grid CSD026", async () => {
    const c = (await start({ ...LAUNCH, grid: [2, 1, 1], block: [8, 1, 1] })) as DapClient & { launched: Promise<{ success?: boolean }> };
    try {
      await c.launched;
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("read neighbour"), condition: "cuda.threadIdx.x === 1" }] });
      await c.request("configurationDone");
      // Every stop tells the client the launch's dims and the focus (a thread picker validates against them).
      const focus = await within(c.event("cudascript.focus"), "cudascript.focus event at the stop");
      assert.deepEqual(focus.body, { gridDim: [2, 1, 1], blockDim: [8, 1, 1], block: [0, 0, 0], thread: [1, 0, 0] });
      assert.equal((await c.event("stopped")).body.threadId, 2);

      const moved = await c.request("cudascript.focus", { block: [0, 0, 0], thread: [6, 0, 0] });
      assert.equal(moved.success, true);
      assert.deepEqual([moved.body.block, moved.body.thread], [[0, 0, 0], [6, 0, 0]]);
      assert.deepEqual((await within(c.event("cudascript.focus"), "cudascript.focus event after the focus request")).body.thread, [6, 0, 0]);
      const stopped = await within(c.event("stopped"), "stopped event for the new focus");
      assert.deepEqual([stopped.body.reason, stopped.body.threadId], ["focus", 7]);
      const stack = await c.request("stackTrace", { threadId: 7 });
      const scopes = await c.request("scopes", { frameId: stack.body.stackFrames[0].id });
      const locals = await c.request("variables", { variablesReference: scopes.body.scopes[0].variablesReference });
      assert.equal(locals.body.variables.find((v: { name: string }) => v.name === "t").value, "6");

      const outside = await c.request("cudascript.focus", { thread: [8, 0, 0] });
      assert.equal(outside.success, false);
      assert.match(outside.message ?? "", /CSD025: focus: thread \[8,0,0\] is not in the launch: .*below blockDim \(8, 1, 1\)/);
      const otherBlock = await c.request("cudascript.focus", { block: [1, 0, 0], thread: [0, 0, 0] });
      assert.equal(otherBlock.success, false);
      assert.match(otherBlock.message ?? "", /CSD026: focus: block \(1, 0, 0\) is not the block being debugged.*cuda\.blockIdx\.x === 1/);
      const noBlock = await c.request("cudascript.focus", { block: [2, 0, 0], thread: [0, 0, 0] });
      assert.match(noBlock.message ?? "", /CSD025: focus: block \[2,0,0\] is not in the launch.*gridDim \(2, 1, 1\)/);

      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [] });
      await c.request("continue", { threadId: 7 });
      await c.event("terminated");
    } finally {
      c.close();
    }
  });

  it("the focus request works in a launch from the kernel's @run tag (the program's thread, through the adapter's stand-in for its session)", async () => {
    const src = SOURCE.replace("export const rotate", "/** @run grid=2 block=8 args=[range(8, f32), zeros(8, f32)] */\nexport const rotate");
    const file = FILE.replace(/\.ts$/, "_tag.ts");
    fs.writeFileSync(file, src);
    const c = (await start({ program: file, kernel: "rotate" })) as DapClient & { launched: Promise<{ success?: boolean; message?: string }> };
    try {
      await c.request("setBreakpoints", { source: { path: file }, breakpoints: [{ line: lineOf(src, "read neighbour"), condition: "cuda.threadIdx.x === 1" }] });
      assert.equal((await c.launched).success, true, (await c.launched).message);
      await c.request("configurationDone");
      assert.deepEqual((await within(c.event("cudascript.focus"), "cudascript.focus event at the stop")).body, { gridDim: [2, 1, 1], blockDim: [8, 1, 1], block: [0, 0, 0], thread: [1, 0, 0] });
      await within(c.event("stopped"), "the breakpoint's stop");
      const moved = await c.request("cudascript.focus", { thread: [6, 0, 0] });
      assert.equal(moved.success, true, moved.message);
      const stopped = await within(c.event("stopped"), "stopped event for the new focus");
      assert.equal(stopped.body.threadId, 7);
      const stack = await c.request("stackTrace", { threadId: 7 });
      const scopes = await c.request("scopes", { frameId: stack.body.stackFrames[0].id });
      const locals = await c.request("variables", { variablesReference: scopes.body.scopes[0].variablesReference });
      assert.equal(locals.body.variables.find((v: { name: string }) => v.name === "t").value, "6");
      await c.request("setBreakpoints", { source: { path: file }, breakpoints: [] });
      await c.request("continue", { threadId: 7 });
      await within(c.event("terminated"), "the end of the session");
    } finally {
      c.close();
      fs.rmSync(file, { force: true });
    }
  });

  it("a bad launch configuration is an error response with CSD014 and what to write", async () => {
    const c = (await start({ ...LAUNCH, args: [{ dtype: "f17", zeros: 8 }, 1] })) as DapClient & { launched: Promise<{ success?: boolean; message?: string }> };
    try {
      const r = await c.launched;
      assert.equal(r.success, false);
      assert.match(r.message ?? "", /CSD014: launch configuration: args\[0\]: CSR013: "dtype": "f17" is not a dtype; use f32, f64/);
    } finally {
      c.close();
    }
  });
});
