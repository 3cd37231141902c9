/**
 * The synchronous RPC between the debug adapter and a debugged program's thread: any method by name,
 * results and CudaScriptErrors kept, and a thread that fails or ends becomes a coded error (CSD022) for
 * the caller, never a wait that does not end.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { MessageChannel, Worker } from "node:worker_threads";
import { CudaScriptError } from "../../errors";
import { CONTROL_WORDS, SyncCaller } from "./rpc";

// The thread's side: serves calls on a small target until `finish` is called.
const SERVER = `
const { workerData } = require("node:worker_threads");
const { serveCalls } = require(${JSON.stringify(path.join(__dirname, "rpc.js"))});
const { CudaScriptError } = require(${JSON.stringify(path.join(__dirname, "..", "..", "errors.js"))});
const target = {
  scale: 2,
  times(x) { return { value: x * this.scale, memory: new Float32Array(workerData.memory) }; },
  fault() { throw new CudaScriptError("CSR020", "out-of-bounds write of array 'out'", { kind: "out-of-bounds", line: 7 }); },
  bug() { return undefined.x; },
  finish() { return { kind: "end" }; },
};
serveCalls(target, workerData.port, workerData.control, (_, v) => v && v.kind === "end", () => {});
`;

function startServer(): { caller: SyncCaller; worker: Worker; memory: SharedArrayBuffer; output: unknown[] } {
  const { port1, port2 } = new MessageChannel();
  const control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
  const memory = new SharedArrayBuffer(16);
  const worker = new Worker(SERVER, { eval: true, workerData: { port: port2, control, memory }, transferList: [port2] });
  const output: unknown[] = [];
  // The thread's end, as host-worker.ts signals it.
  worker.on("exit", () => port1.close());
  return { caller: new SyncCaller(port1, control, (m) => output.push(m)), worker, memory, output };
}

describe("debugger RPC (adapter ↔ program thread)", () => {
  const servers: Worker[] = [];
  after(() => Promise.all(servers.map((w) => w.terminate())));

  it("calls any method by name and reads any property; typed arrays over shared memory arrive as the same memory", () => {
    const s = startServer();
    servers.push(s.worker);
    const r = s.caller.call("times", [21]) as { value: number; memory: Float32Array };
    assert.equal(r.value, 42);
    assert.equal(s.caller.call("scale", []), 2);
    new Float32Array(s.memory)[1] = 7.5;
    assert.equal(r.memory[1], 7.5); // not a copy
    assert.deepEqual(s.caller.call("finish", []), { kind: "end" });
  });

  it("a CudaScriptError crosses with its code and details; any other failure of a call is CSD022", () => {
    const s = startServer();
    servers.push(s.worker);
    assert.throws(
      () => s.caller.call("fault", []),
      (e: unknown) => e instanceof CudaScriptError && e.code === "CSR020" && e.details?.line === 7 && /^CSR020: out-of-bounds write/.test(e.message),
    );
    assert.throws(() => s.caller.call("bug", []), (e: unknown) => e instanceof CudaScriptError && e.code === "CSD022" && /program thread failed: Cannot read properties of undefined/.test(e.message));
    assert.throws(() => s.caller.call("noSuchMethod", []), (e: unknown) => e instanceof CudaScriptError && e.code === "CSD022" && /has no 'noSuchMethod'/.test(e.message));
    // A value that cannot cross (a function: a breakpoint condition must be text here).
    assert.throws(() => s.caller.call("times", [() => 1]), (e: unknown) => e instanceof CudaScriptError && e.code === "CSD022" && /cannot be sent/.test(e.message));
    s.caller.call("finish", []);
  });

  it("a thread that ends while the caller waits is CSD022, not a wait that never ends", () => {
    const { port1, port2 } = new MessageChannel();
    const control = new Int32Array(new SharedArrayBuffer(CONTROL_WORDS * 4));
    // A thread that takes the call and ends without answering, saying so as host-worker.ts does at its exit.
    const worker = new Worker(
      `const { workerData, receiveMessageOnPort } = require("node:worker_threads");
       const { control } = workerData;
       while (!receiveMessageOnPort(workerData.port)) Atomics.wait(control, 0, Atomics.load(control, 0), 50);
       Atomics.store(control, 2, 1); Atomics.notify(control, 1);`,
      { eval: true, workerData: { port: port2, control }, transferList: [port2] },
    );
    servers.push(worker);
    const caller = new SyncCaller(port1, control, () => {});
    assert.throws(() => caller.call("continue", []), (e: unknown) => e instanceof CudaScriptError && e.code === "CSD022" && /ended while the debugger waited for 'continue'/.test(e.message));
    port1.close();
  });
});
