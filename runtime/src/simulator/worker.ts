/**
 * A simulator worker thread: instantiates kernel modules (cached by key), and runs chunks of blocks
 * of each launch it is sent, taking them from the launch's shared counter. Device memory arrives as
 * SharedArrayBuffers, so the kernels write straight into it. Replies (printf output, sanitizer warnings, the first fault)
 * go through the MessagePort the main thread reads synchronously.
 */
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { ModuleCache } from "./module-cache";
import { reclaimFreedMemory } from "./reclaim";
import { joinLaunch, runShare, serializeFault, type ArgDesc, type SerializedFault } from "./executor";
import type { PrivSpec } from "./privatize";

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
  /** Smallest claim of blocks, and how many executors share the launch (guided scheduling). */
  readonly chunk: number;
  readonly executors: number;
  readonly priv: readonly PrivSpec[];
  /** Other executors share device memory during this launch (atomics must be real atomics). */
  readonly concurrent: boolean;
  readonly deadline: number;
  readonly deadlineLabel?: string;
  readonly uninitializedShared: "warn" | "error";
}

const port = (workerData as { port: MessagePort }).port;
const cache = new ModuleCache();
const sources = new Map<string, string>();

parentPort!.on("message", (msg: RunMessage | { readonly type: "reclaim" }) => {
  // The calling thread freed device memory: drop this thread's handles on it too.
  if (msg.type === "reclaim") return reclaimFreedMemory();
  const ctl = new Int32Array(msg.ctl);
  if (msg.source !== undefined) sources.set(msg.key, msg.source);
  // Finished without this worker (it was still starting): no reply, the calling thread expects none.
  if (!joinLaunch(ctl)) return;
  const prints: string[] = [];
  const warnings: SerializedFault[] = [];
  let error: SerializedFault | undefined;
  try {
    const source = sources.get(msg.key);
    if (source === undefined) throw new Error(`module ${msg.key} was never sent to this worker`);
    const mod = cache.get({ key: msg.key, source }, msg.concurrent, { at: msg.deadline, label: msg.deadlineLabel }, (s) => prints.push(s), {
      uninitializedShared: msg.uninitializedShared,
      warn: (f) => warnings.push(serializeFault(f, msg.kernel)),
    });
    const k = mod.kernels[msg.kernel];
    if (!k) throw new Error(`kernel '${msg.kernel}' is missing from its module`);
    runShare(k.run, msg, msg.priv, ctl, msg.nBlocks, msg.chunk, msg.executors);
  } catch (e) {
    Atomics.store(ctl, 2, 1);
    error = serializeFault(e, msg.kernel);
  }
  port.postMessage({ prints, warnings, error });
  Atomics.add(ctl, 1, 1);
  Atomics.notify(ctl, 1);
});
