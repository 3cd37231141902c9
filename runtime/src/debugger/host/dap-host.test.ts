/**
 * `cudascript debug-adapter` debugging a host program, driven over stdio as an editor drives it: the
 * program runs as `cudascript run` runs it, each of its kernel launches stops at the editor's
 * breakpoints, its console output is DAP output, and its end (exit code, an uncaught CSR error) ends the
 * session. Also the `{ program, kernel }` launch from a kernel's @run tag.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { DapClient, lineOf } from "../test-helpers";
import { parseResults } from "../../report/protocol";
import { formatReport } from "../../report/text";

const BIN = path.join(__dirname, "..", "..", "..", "bin", "cudascript.js");
const DIR = fs.mkdtempSync(path.join(__dirname, `__dap_host_${process.pid}_`));
after(() => fs.rmSync(DIR, { recursive: true, force: true }));

const KERNELS = `import { cuda, f32 } from "cudascript";
/** @run grid=1 block=8 args=[range(8, f32), zeros(8, f32), scalar(2)] */
export const scale = cuda.jit((x: Float32Array, y: Float32Array, k: f32) => {
  const t = cuda.threadIdx.x;
  const v = x[t] * k;
  y[t] = v; // store
  if (t === 0) console.log("kernel k =", k);
});
export const untagged = cuda.jit((x: Float32Array) => {
  x[cuda.threadIdx.x] = 1;
});
`;
const MAIN = `import { scale } from "./kernels";
const a = new Float32Array(8).map((_, i) => i);
const out = new Float32Array(8);
console.log("before", Array.from(a).join(","));
scale.launch(1, 8)(a, out, 2);
console.log("first", Array.from(out).join(","));
scale.launch(1, 8)(out, a, 3);
console.log("second", Array.from(a).join(","));
`;
const THROWS = `import { scale } from "./kernels";
console.log("launching");
scale.launch(1, 8)(new Float32Array(4), new Float32Array(8), 2);
console.log("not reached");
`;
const KERNEL_FILE = path.join(DIR, "kernels.ts");
const MAIN_FILE = path.join(DIR, "main.ts");
const THROWS_FILE = path.join(DIR, "throws.ts");
fs.writeFileSync(KERNEL_FILE, KERNELS);
fs.writeFileSync(MAIN_FILE, MAIN);
fs.writeFileSync(THROWS_FILE, THROWS);
const STORE = lineOf(KERNELS, "// store");

type Client = DapClient & { launched: Promise<{ success?: boolean; message?: string }> };

async function start(launch: object, breakpoints: { line: number; condition?: string; hitCondition?: string; logMessage?: string }[] = []): Promise<Client> {
  const c = new DapClient(process.execPath, [BIN, "debug-adapter"]);
  await c.request("initialize", { adapterID: "cudascript", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  await c.event("initialized");
  const launched = c.request("launch", launch);
  await c.request("setBreakpoints", { source: { path: KERNEL_FILE }, breakpoints });
  return Object.assign(c, { launched });
}

/** The value of a local of the stopped thread's innermost frame. */
async function local(c: DapClient, threadId: number, name: string): Promise<string | undefined> {
  const stack = await c.request("stackTrace", { threadId });
  const scopes = await c.request("scopes", { frameId: stack.body.stackFrames[0].id });
  const vars = await c.request("variables", { variablesReference: scopes.body.scopes[0].variablesReference });
  return vars.body.variables.find((v: { name: string }) => v.name === name)?.value;
}

function stdoutOf(c: DapClient, category = "stdout"): string {
  return c
    .drain("output")
    .filter((e) => e.body.category === category)
    .map((e) => e.body.output)
    .join("");
}

/** What `cudascript run` prints for the program, and the arrays it reports to a results panel. */
function cudascriptRun(program: string): { stdout: string; stderr: string; status: number | null; report: string } {
  const results = path.join(DIR, "results.jsonl");
  fs.rmSync(results, { force: true });
  const r = spawnSync(process.execPath, [BIN, "run", "--backend", "simulator", program], { encoding: "utf8", cwd: DIR, env: { ...process.env, CUDASCRIPT_RESULTS_FILE: results } });
  const report = fs.existsSync(results) ? formatReport(parseResults(fs.readFileSync(results, "utf8"))) : "";
  return { stdout: r.stdout, stderr: r.stderr, status: r.status, report };
}

describe("debug adapter: a host program", { timeout: 120_000 }, () => {
  it("stops in both launches of a kernel at the breakpoint's line and thread, shows their locals, and ends with the program's output, as `cudascript run` prints it", async () => {
    const c = await start({ program: MAIN_FILE }, [{ line: STORE, condition: "cuda.threadIdx.x === 3" }]);
    try {
      assert.equal((await c.launched).success, true);
      await c.request("configurationDone");

      const first = await c.event("stopped");
      assert.deepEqual([first.body.reason, first.body.threadId], ["breakpoint", 4]); // thread (3, 0, 0)
      const stack = await c.request("stackTrace", { threadId: 4 });
      assert.deepEqual([stack.body.stackFrames[0].name, stack.body.stackFrames[0].line], ["scale", STORE]);
      assert.equal(await local(c, 4, "v"), "6"); // a[3] * 2
      assert.equal(await local(c, 4, "k"), "2");
      await c.request("continue", { threadId: 4 });

      const second = await c.event("stopped");
      assert.deepEqual([second.body.reason, second.body.threadId], ["breakpoint", 4]);
      assert.equal(await local(c, 4, "v"), "18"); // out[3] * 3
      assert.equal(await local(c, 4, "k"), "3");
      await c.request("continue", { threadId: 4 });

      const exited = await c.event("exited");
      assert.equal(exited.body.exitCode, 0);
      await c.event("terminated");
      const run = cudascriptRun(MAIN_FILE);
      assert.equal(run.status, 0);
      assert.match(run.stdout, /^before 0,1,2,3,4,5,6,7\nkernel k = 2\nfirst 0,2,4,6,8,10,12,14\nkernel k = 3\nsecond 0,6,12,18,24,30,36,42\n$/);
      assert.equal(stdoutOf(c), run.stdout);
    } finally {
      c.close();
    }
  });

  it("a program that throws a CSR error (a kernel's out-of-bounds read) ends with that error as output and exit code 1", async () => {
    const c = await start({ program: "throws.ts", cwd: DIR, breakOnFault: false }); // the program relative to "cwd"
    try {
      assert.equal((await c.launched).success, true);
      await c.request("configurationDone");
      const exited = await c.event("exited");
      await c.event("terminated");
      assert.equal(exited.body.exitCode, 1);
      const events = c.drain("output");
      const out = events.filter((e) => e.body.category === "stdout").map((e) => e.body.output).join("");
      const err = events.filter((e) => e.body.category === "stderr").map((e) => e.body.output).join("");
      const run = cudascriptRun(THROWS_FILE);
      assert.equal(run.status, 1);
      assert.equal(out, run.stdout);
      assert.match(out, /^launching\n/);
      assert.match(err, /cudascript: error CSR020: out-of-bounds read of array 'x' at kernels\.ts:5:13 in kernel 'scale', block \(0, 0, 0\), thread \(4, 0, 0\)/);
      // The build's warnings, the backend line and the error, as `cudascript run` prints them.
      assert.equal(err, run.stderr);
    } finally {
      c.close();
    }
  });

  it("breakpoints are unverified until a launch has a statement on their line; one in host code stays unverified", async () => {
    const c = await start({ program: MAIN_FILE }, [{ line: STORE, condition: "cuda.threadIdx.x === 99" }, { line: lineOf(KERNELS, "export const untagged") }]);
    try {
      await c.launched;
      const host = await c.request("setBreakpoints", { source: { path: MAIN_FILE }, breakpoints: [{ line: 5 }] });
      assert.deepEqual(host.body.breakpoints.map((b: { verified: boolean }) => b.verified), [false]);
      await c.request("configurationDone");
      await c.event("terminated");
      const changed = c.drain("breakpoint").map((e) => [e.body.reason, e.body.breakpoint.line, e.body.breakpoint.verified]);
      assert.deepEqual(changed, [["changed", STORE, true]]); // not the line without a statement, nor main.ts's
    } finally {
      c.close();
    }
  });

  it("a breakpoint condition that does not parse is reported and removed: the program runs to its end as without it", async () => {
    const c = await start({ program: MAIN_FILE }, [{ line: STORE, condition: "v >" }]);
    try {
      await c.launched;
      await c.request("configurationDone");
      const exited = await c.event("exited");
      await c.event("terminated");
      const events = c.drain("output");
      const of = (category: string) => events.filter((e) => e.body.category === category).map((e) => e.body.output).join("");
      assert.equal(exited.body.exitCode, 0, of("stderr"));
      assert.equal(of("stdout"), cudascriptRun(MAIN_FILE).stdout);
      assert.match(of("stderr"), /cudascript debug: CSD009: the condition of the breakpoint at line \d+ 'v >' is not an expression .*: it is removed\n/);
    } finally {
      c.close();
    }
  });

  it("a breakpoint condition that fails for a thread ends the debug session with CSD009, not the program with an exception it could catch", async () => {
    const caught = path.join(DIR, "caught.ts");
    fs.writeFileSync(caught, `import { scale } from "./kernels";\ntry {\n  scale.launch(1, 8)(new Float32Array(8), new Float32Array(8), 2);\n} catch (e) {\n  console.log("the program caught", String(e));\n}\n`);
    const c = await start({ program: caught }, [{ line: STORE, condition: "x[t + 100] > 1" }]);
    try {
      await c.launched;
      await c.request("configurationDone");
      const exited = await c.event("exited");
      await c.event("terminated");
      const events = c.drain("output");
      const of = (category: string) => events.filter((e) => e.body.category === category).map((e) => e.body.output).join("");
      assert.equal(exited.body.exitCode, 1);
      assert.equal(of("stdout"), "");
      assert.match(of("stderr"), /cudascript debug: CSD009: the condition of the breakpoint at line \d+ \(x\[t \+ 100\] > 1\) failed for thread \(0, 0, 0\): out-of-bounds read of array 'x'.*\nThe launch cannot go on/);
    } finally {
      c.close();
    }
  });

  it("a condition that fails for a thread while the adapter continues a stopped launch ends the session with CSD009 too", async () => {
    const c = await start({ program: MAIN_FILE }, [{ line: STORE }]);
    try {
      await c.launched;
      await c.request("configurationDone");
      const stopped = await c.event("stopped");
      await c.request("setBreakpoints", { source: { path: KERNEL_FILE }, breakpoints: [{ line: STORE + 1, condition: "x[t + 100] > 1" }] });
      void c.request("continue", { threadId: stopped.body.threadId });
      assert.equal((await c.event("exited")).body.exitCode, 1);
      await c.event("terminated");
      const err = c.drain("output").filter((e) => e.body.category === "stderr").map((e) => e.body.output).join("");
      assert.match(err, /cudascript debug: CSD009: the condition of the breakpoint at line \d+ \(x\[t \+ 100\] > 1\) failed for thread .*\nThe launch cannot go on/);
    } finally {
      c.close();
    }
  });

  it("a logpoint and a hit condition apply to every launch of the program: the logpoint prints for each thread, the hit count starts again in each launch", async () => {
    const c = await start({ program: MAIN_FILE }, [
      { line: STORE, logMessage: "v = {v}" },
      { line: STORE - 1, hitCondition: "== 5" },
    ]);
    try {
      await c.launched;
      await c.request("configurationDone");
      for (let launch = 0; launch < 2; launch++) {
        const stopped = await c.event("stopped");
        assert.equal(await local(c, stopped.body.threadId, "t"), "4"); // the 5th thread to reach the line
        void c.request("continue", { threadId: stopped.body.threadId });
      }
      assert.equal((await c.event("exited")).body.exitCode, 0);
      await c.event("terminated");
      const logs = c.drain("output").filter((e) => e.body.category === "console").map((e) => e.body.output as string);
      assert.equal(logs.filter((l) => /^\[block \(0, 0, 0\) thread \(\d, 0, 0\)\] v = /.test(l)).length, 16, logs.join(""));
      assert.ok(logs.includes("[block (0, 0, 0) thread (3, 0, 0)] v = 6\n"), logs.join("")); // x[3] = 3, k = 2 in the first launch
    } finally {
      c.close();
    }
  });

  it("terminate stops a program that is running host code (not stopped in a launch)", async () => {
    const spin = path.join(DIR, "spin.ts");
    fs.writeFileSync(spin, `console.log("spinning");\nfor (;;) {}\n`);
    const c = await start({ program: spin });
    try {
      await c.launched;
      await c.request("configurationDone");
      for (let e = await c.event("output"); !/spinning/.test(e.body.output); e = await c.event("output"));
      assert.equal((await c.request("terminate")).success, true);
      await c.event("exited");
      await c.event("terminated");
    } finally {
      c.close();
    }
  });

  it("disconnect while a launch is stopped ends the program's thread before it answers, and the adapter exits once its input closes", async () => {
    const c = await start({ program: MAIN_FILE }, [{ line: STORE }]);
    try {
      await c.launched;
      await c.request("configurationDone");
      await c.event("stopped");
      const exit = new Promise<number | null>((resolve) => c.child.on("exit", (code) => resolve(code)));
      assert.equal((await c.request("disconnect", { terminateDebuggee: true })).success, true);
      // The thread's end is reported (exited, terminated) once it is gone: a thread left blocked in the stopped launch never ends.
      const ended = await Promise.race([c.event("exited").then(() => "ended"), new Promise<string>((resolve) => setTimeout(() => resolve("the program's thread still runs after 10 s"), 10_000))]);
      assert.equal(ended, "ended");
      assert.equal(c.drain("output").some((e) => /second/.test(e.body.output)), false); // stopped for good, not run on
      c.child.stdin.end();
      const code = await Promise.race([exit, new Promise<string>((resolve) => setTimeout(() => resolve("still running after 10 s"), 10_000))]);
      assert.equal(code, 0);
    } finally {
      c.close();
    }
  });
});

describe("debug adapter: a kernel from its @run tag", { timeout: 120_000 }, () => {
  it("stops at a breakpoint in the launch the tag describes, then ends with the output and the report of arrays that Run Kernel's program gives", async () => {
    const c = await start({ program: KERNEL_FILE, kernel: "scale" }, [{ line: STORE, condition: "cuda.threadIdx.x === 5" }]);
    try {
      assert.equal((await c.launched).success, true);
      await c.request("configurationDone");
      const stopped = await c.event("stopped");
      assert.deepEqual([stopped.body.reason, stopped.body.threadId], ["breakpoint", 6]);
      assert.equal(await local(c, 6, "v"), "10"); // range(8)[5] * scalar(2)
      await c.request("continue", { threadId: 6 });
      assert.equal((await c.event("exited")).body.exitCode, 0);
      await c.event("terminated");

      const generated = path.join(DIR, ".cudascript", "debug-kernels-scale.ts");
      const run = cudascriptRun(generated);
      assert.equal(run.status, 0);
      assert.match(run.report, /^report:\n {2}y: f32\[8\] \[0, 2, 4, 6, 8, 10, 12, 14\]/);
      const events = c.drain("output");
      const of = (category: string) => events.filter((e) => e.body.category === category).map((e) => e.body.output).join("");
      assert.equal(of("stdout"), run.stdout);
      assert.match(of("stdout"), /ran scale with grid=1 block=8\n$/);
      assert.equal(of("console"), run.report);
    } finally {
      c.close();
    }
  });

  it("a kernel without an @run tag is CSD020 with a tag to write; a bad tag is CSD021", async () => {
    const c = await start({ program: KERNEL_FILE, kernel: "untagged" });
    try {
      const r = await c.launched;
      assert.equal(r.success, false);
      assert.match(r.message ?? "", /CSD020: kernel 'untagged' has no @run tag .* for example \/\*\* @run grid=4096 block=256 args=\[random\(1<<20, f32\)\] \*\//);
    } finally {
      c.close();
    }
    const bad = path.join(DIR, "bad-tag.ts");
    fs.writeFileSync(bad, KERNELS.replace("args=[range(8, f32), zeros(8, f32), scalar(2)]", "args=[range(8, f32), scalar(2)]"));
    const d = await start({ program: bad, kernel: "scale" });
    try {
      const r = await d.launched;
      assert.equal(r.success, false);
      assert.match(r.message ?? "", /CSD021: the @run tag of kernel 'scale' .*gives 2 arguments, the kernel takes 3 \(x, y, k\)/);
    } finally {
      d.close();
    }
  });
});
