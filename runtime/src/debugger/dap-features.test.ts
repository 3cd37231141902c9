/**
 * `cudascript debug-adapter` over stdio, as an editor drives it: conditions in the kernel language, hit
 * counts, logpoints, evaluate (repl, watch) and the warp watch, a data breakpoint on a shared element,
 * and pause of a kernel that loops forever.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { DapClient, FEATURE_KERNELS as SOURCE, lineOf, type DapMessage } from "./test-helpers";

const FILE = path.join(__dirname, `__dap_features_${process.pid}.ts`);
fs.writeFileSync(FILE, SOURCE);
after(() => fs.rmSync(FILE, { force: true }));
const BIN = path.join(__dirname, "..", "..", "bin", "cudascript.js");
const L = (m: string) => lineOf(SOURCE, m);
const FEAT = { program: FILE, kernel: "feat", grid: 2, block: 32, args: [{ dtype: "i32", range: 32 }, { dtype: "f32", zeros: 64 }] };

type Client = DapClient & { launched: Promise<DapMessage> };

async function start(launch: object): Promise<Client> {
  const c = new DapClient(process.execPath, [BIN, "debug-adapter"]);
  const init = await c.request("initialize", { adapterID: "cudascript", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  assert.equal(init.body.supportsHitConditionalBreakpoints, true);
  assert.equal(init.body.supportsLogPoints, true);
  assert.equal(init.body.supportsDataBreakpoints, true);
  await c.event("initialized");
  return Object.assign(c, { launched: c.request("launch", launch) });
}

/** The innermost frame's Locals of a thread, by name. */
async function locals(c: DapClient, threadId: number): Promise<Map<string, { value: string; variablesReference: number }>> {
  const stack = await c.request("stackTrace", { threadId });
  const scopes = await c.request("scopes", { frameId: stack.body.stackFrames[0].id });
  const vars = await c.request("variables", { variablesReference: scopes.body.scopes[0].variablesReference });
  return new Map(vars.body.variables.map((v: { name: string }) => [v.name, v]));
}

describe("debug adapter: breakpoint, variable and control features", () => {
  it("a condition in the kernel language, a bad one's coded error, a hit count, a logpoint, evaluate in the repl and a warp watch", async () => {
    const c = await start(FEAT);
    try {
      assert.equal((await c.launched).success, true);
      const bps = await c.request("setBreakpoints", {
        source: { path: FILE },
        breakpoints: [
          { line: L("shared write"), condition: "t === 1", logMessage: "acc = {acc}" },
          { line: L("read back"), condition: "cuda.threadIdx.x === 5 && cuda.blockIdx.x === 1" },
          { line: L("loop body"), condition: "i >" },
          // i32 wraps in the kernel: a[t] + 2147483647 is negative from t = 1 on (never in JavaScript); the 3rd hit is thread 3.
          { line: L("const t ="), condition: "a[cuda.threadIdx.x] + 2147483647 < 0", hitCondition: "== 3" },
        ],
      });
      assert.deepEqual(bps.body.breakpoints.map((b: { verified: boolean }) => b.verified), [true, true, false, true]);
      assert.match(bps.body.breakpoints[2].message, /^CSD009: the condition of the breakpoint at line 7 'i >' is not an expression/);
      await c.request("configurationDone");

      const first = await c.event("stopped");
      assert.deepEqual([first.body.reason, first.body.threadId], ["breakpoint", 4]);
      await c.request("continue", { threadId: 4 });
      const stopped = await c.event("stopped");
      assert.deepEqual([stopped.body.reason, stopped.body.threadId], ["breakpoint", 6]);
      const threads = await c.request("threads");
      assert.match(threads.body.threads[5].name, /thread \(5, 0, 0\) of block \(1, 0, 0\)/);
      const logs = c.drain("output").filter((e) => e.body.category === "console").map((e) => e.body.output);
      assert.deepEqual(logs, ["[block (0, 0, 0) thread (1, 0, 0)] acc = 136\n", "[block (1, 0, 0) thread (1, 0, 0)] acc = 136\n"]);

      const stack = await c.request("stackTrace", { threadId: 6 });
      const frameId = stack.body.stackFrames[0].id;
      const repl = await c.request("evaluate", { expression: "acc + t", frameId, context: "repl" });
      assert.deepEqual([repl.body.result, repl.body.type], [String(16 * 5 + 120 + 5), "i32"]);
      assert.equal((await c.request("evaluate", { expression: "t / 2", frameId, context: "hover" })).body.result, "2.5");
      const bad = await c.request("evaluate", { expression: "t + nope", frameId, context: "repl" });
      assert.equal(bad.success, false);
      assert.match(bad.message ?? "", /^CS1015: the expression 't \+ nope', column 5: 'nope' is not available in kernels/);

      const warp = await c.request("evaluate", { expression: "warp: acc * 2 + t", frameId, context: "watch" });
      assert.equal(warp.body.indexedVariables, 32);
      const lanes = await c.request("variables", { variablesReference: warp.body.variablesReference });
      assert.equal(lanes.body.variables.length, 32);
      assert.deepEqual([lanes.body.variables[0].name, lanes.body.variables[0].value], ["lane 0 (0, 0, 0)", "— exited"]);
      assert.deepEqual([lanes.body.variables[5].name, lanes.body.variables[5].value], ["lane 5 (5, 0, 0)", String(2 * (16 * 5 + 120) + 5)]);
      for (let lane = 6; lane < 32; lane++) assert.match(lanes.body.variables[lane].value, new RegExp(`^${2 * (16 * lane + 120) + lane} \\(`));

      await c.request("continue", { threadId: 6 });
      await c.event("terminated");
    } finally {
      c.close();
    }
  });

  it("a data breakpoint on a shared element stops at the write, in the writing thread, with the old and new value", async () => {
    const c = await start(FEAT);
    try {
      await c.launched;
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [{ line: L("loop body"), condition: "t === 0 && i === 0" }] });
      await c.request("configurationDone");
      await c.event("stopped");
      const s = (await locals(c, 1)).get("s")!;
      const rows = await c.request("variables", { variablesReference: s.variablesReference });
      const row2 = rows.body.variables[2];
      const info = await c.request("dataBreakpointInfo", { variablesReference: row2.variablesReference, name: "[3]" });
      assert.ok(info.body.dataId);
      assert.deepEqual(info.body.accessTypes, ["write"]);
      const set = await c.request("setDataBreakpoints", { breakpoints: [{ dataId: info.body.dataId, accessType: "write" }] });
      assert.deepEqual(set.body.breakpoints.map((b: { verified: boolean }) => b.verified), [true]);
      await c.request("setBreakpoints", { source: { path: FILE }, breakpoints: [] });
      await c.request("continue", { threadId: 1 });
      const hit = await c.event("stopped");
      assert.deepEqual([hit.body.reason, hit.body.threadId], ["data breakpoint", 20]);
      assert.equal(hit.body.description, `s[2][3] written by thread (19, 0, 0): 0 → ${16 * 19 + 120}`);
      const stack = await c.request("stackTrace", { threadId: 20 });
      assert.equal(stack.body.stackFrames[0].line, L("shared write"));
      // Not an element: no id, and why.
      const row = await c.request("dataBreakpointInfo", { variablesReference: s.variablesReference, name: "[2]" });
      assert.equal(row.body.dataId, null);
      await c.request("setDataBreakpoints", { breakpoints: [] });
      await c.request("continue", { threadId: 20 });
      await c.event("terminated");
    } finally {
      c.close();
    }
  });

  it("pause stops a kernel that loops forever, in its loop; the adapter answers requests while it runs", async () => {
    const c = await start({ program: FILE, kernel: "spin", grid: 2, block: 4, args: [{ dtype: "i32", zeros: 8 }] });
    try {
      await c.launched;
      await c.request("configurationDone");
      const threads = await c.request("threads");
      assert.equal(threads.success, true);
      await new Promise((r) => setTimeout(r, 200));
      const paused = c.request("pause", { threadId: 1 });
      const stopped = await c.event("stopped");
      assert.equal((await paused).success, true);
      assert.equal(stopped.body.reason, "pause");
      const stack = await c.request("stackTrace", { threadId: stopped.body.threadId });
      assert.ok([L("while (true)"), L("spin body")].includes(stack.body.stackFrames[0].line));
      const k = (await locals(c, stopped.body.threadId)).get("k")!;
      assert.ok(Number(k.value) > 0);
      // It runs on after a continue, and pauses again.
      await c.request("continue", { threadId: stopped.body.threadId });
      await c.request("pause", { threadId: 1 });
      assert.equal((await c.event("stopped")).body.reason, "pause");
      await c.request("disconnect", {});
    } finally {
      c.close();
    }
  });
});
