/**
 * A simulator worker thread: instantiates kernel modules (cached by key), and runs chunks of blocks
 * of each launch it is sent, taking them from the launch's shared counter. Device memory arrives as
 * SharedArrayBuffers, so the kernels write straight into it. Replies (printf output, the first fault)
 * go through the MessagePort the main thread reads synchronously.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { ModuleCache, type LaunchData } from "./module-cache";
import { makeArgs, runChunks, serializeFault, type ArgDesc, type SerializedFault } from "./executor";

interface RunMessage {
  readonly type: "run";
  readonly ctl: SharedArrayBuffer;
  readonly key: string;
  readonly source?: string;
  readonly kernel: string;
  readonly args: readonly ArgDesc[];
  readonly grid: readonly [number, number, number];
  readonly block: readonly [number, number, number];
  readonly sharedMem: number;
  readonly nBlocks: number;
  readonly chunk: number;
  readonly deadline: number;
  readonly deadlineLabel?: string;
}

const port = (workerData as { port: MessagePort }).port;
const cache = new ModuleCache();
const sources = new Map<string, string>();

parentPort!.on("message", (msg: RunMessage) => {
  const ctl = new Int32Array(msg.ctl);
  const prints: string[] = [];
  let error: SerializedFault | undefined;
  try {
    if (msg.source !== undefined) sources.set(msg.key, msg.source);
    const source = sources.get(msg.key);
    if (source === undefined) throw new Error(`module ${msg.key} was never sent to this worker`);
    const mod = cache.get({ key: msg.key, source }, true, { at: msg.deadline, label: msg.deadlineLabel }, (s) => prints.push(s));
    const k = mod.kernels[msg.kernel];
    if (!k) throw new Error(`kernel '${msg.kernel}' is missing from its module`);
    const L: LaunchData = { args: makeArgs(msg.args), grid: msg.grid, block: msg.block, dynBuf: new ArrayBuffer(msg.sharedMem) };
    runChunks(k.run, L, ctl, msg.nBlocks, msg.chunk);
  } catch (e) {
    Atomics.store(ctl, 2, 1);
    error = serializeFault(e, msg.kernel);
  }
  port.postMessage({ prints, error });
  Atomics.add(ctl, 1, 1);
  Atomics.notify(ctl, 1);
});
