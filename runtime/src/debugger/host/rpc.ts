/**
 * A synchronous, generic RPC between the debug adapter (main thread) and the thread that runs the host
 * program (host-worker.ts): a call is a method name and its arguments, the answer its result or error.
 *
 * Why synchronous on both sides: a kernel launch is synchronous in the host program, so while a launch
 * is stopped the program's thread blocks in `Atomics.wait` and serves calls (`receiveMessageOnPort`):
 * the DebugSession and the launch's device memory stay in that thread. The adapter calls the same
 * methods it calls on an in-process DebugSession, and blocks until the answer: its request handlers
 * stay synchronous, and a method added to DebugSession works through here without a change.
 *
 * Values cross by structured clone: device memory is SharedArrayBuffers, so the typed arrays of a
 * stop's frames are the live memory, not copies. A CudaScriptError loses its class and code in a
 * structured clone: it crosses as { $error: { code, message, details } } and is made again.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import { CudaScriptError, type FaultDetails } from "../../errors";

/** Slots of the control words shared by both threads (an Int32Array over a SharedArrayBuffer). */
export const Slot = {
  /** Bumped by the adapter after it posts a call. */
  Calls: 0,
  /** Bumped by the program's thread after it posts an answer. */
  Answers: 1,
  /** Set by the program's thread when it ends: an adapter waiting for an answer stops waiting. */
  Ended: 2,
} as const;
export const CONTROL_WORDS = 3;

export interface CallMessage {
  readonly type: "call";
  readonly id: number;
  readonly method: string;
  readonly args: readonly unknown[];
}
export interface AnswerMessage {
  readonly type: "answer";
  readonly id: number;
  readonly value?: unknown;
  readonly error?: EncodedError;
}
interface EncodedError {
  readonly code: string;
  readonly message: string;
  readonly details?: FaultDetails;
}

/** Replaces the CudaScriptErrors in a value (a DebugEvent carries one) by plain objects that survive a structured clone. */
export function encode(v: unknown): unknown {
  if (v instanceof CudaScriptError) return { $error: encodeError(v) };
  if (Array.isArray(v)) return v.map(encode);
  if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[k] = encode(x);
    return out;
  }
  return v;
}

/** The inverse of encode. */
export function decode(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(decode);
  if (v && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype) {
    const o = v as Record<string, unknown>;
    if (o.$error && Object.keys(o).length === 1) return decodeError(o.$error as EncodedError);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) out[k] = decode(x);
    return out;
  }
  return v;
}

export function encodeError(e: unknown): EncodedError {
  if (e instanceof CudaScriptError) return { code: e.code, message: e.message.replace(new RegExp(`^${e.code}: `), ""), ...(e.details ? { details: e.details } : {}) };
  // Not ours: a bug, or a value that cannot cross (a function). Coded, so the adapter says which.
  return { code: "CSD022", message: `the debugger's program thread failed: ${(e as Error)?.message ?? String(e)}` };
}

export function decodeError(e: EncodedError): CudaScriptError {
  return new CudaScriptError(e.code, e.message, e.details);
}

/**
 * The program's side: answers calls on `target` until `done(result)` says a call ended the stop (the
 * launch ran to its end). Blocks the thread between calls; other messages are handed to `other`.
 */
export function serveCalls(target: object, port: MessagePort, control: Int32Array, done: (method: string, value: unknown) => boolean, other: (message: unknown) => void): void {
  let seen = Atomics.load(control, Slot.Calls);
  for (;;) {
    const m = receiveMessageOnPort(port)?.message as CallMessage | { type: string } | undefined;
    if (!m) {
      Atomics.wait(control, Slot.Calls, seen);
      seen = Atomics.load(control, Slot.Calls);
      continue;
    }
    if (m.type !== "call") {
      other(m);
      continue;
    }
    const call = m as CallMessage;
    let answer: AnswerMessage;
    let finished = false;
    try {
      if (!(call.method in target)) throw new CudaScriptError("CSD022", `the debug session has no '${call.method}'`);
      const member = (target as Record<string, unknown>)[call.method];
      const value = typeof member === "function" ? (member as (...a: unknown[]) => unknown).apply(target, decode(call.args) as unknown[]) : member;
      answer = { type: "answer", id: call.id, value: encode(value) };
      finished = done(call.method, value);
    } catch (e) {
      answer = { type: "answer", id: call.id, error: encodeError(e) };
    }
    try {
      port.postMessage(answer);
    } catch (e) {
      // A result that cannot be cloned: the adapter gets the reason instead of waiting for nothing.
      port.postMessage({ type: "answer", id: call.id, error: encodeError(e) } satisfies AnswerMessage);
    }
    Atomics.add(control, Slot.Answers, 1);
    Atomics.notify(control, Slot.Answers);
    if (finished) return;
  }
}

/**
 * The adapter's side: `call` posts a call and blocks until its answer. Messages that arrive meanwhile
 * (the kernels' console output) go to `other`, in order, before the answer is returned.
 */
export class SyncCaller {
  private nextId = 1;

  constructor(
    private readonly port: MessagePort,
    private readonly control: Int32Array,
    private readonly other: (message: unknown) => void,
  ) {}

  call(method: string, args: readonly unknown[]): unknown {
    const id = this.nextId++;
    let seen = Atomics.load(this.control, Slot.Answers);
    try {
      this.port.postMessage({ type: "call", id, method, args: encode(args) as unknown[] } satisfies CallMessage);
    } catch (e) {
      throw new CudaScriptError("CSD022", `the arguments of '${method}' cannot be sent to the debugged program's thread (${(e as Error).message}): give plain values — a breakpoint condition as text`);
    }
    Atomics.add(this.control, Slot.Calls, 1);
    Atomics.notify(this.control, Slot.Calls);
    for (;;) {
      const m = receiveMessageOnPort(this.port)?.message as AnswerMessage | { type: string } | undefined;
      if (m?.type === "answer" && (m as AnswerMessage).id === id) {
        const a = m as AnswerMessage;
        if (a.error) throw decodeError(a.error);
        return decode(a.value);
      }
      if (m) {
        this.other(m);
        continue;
      }
      if (Atomics.load(this.control, Slot.Ended) !== 0)
        throw new CudaScriptError("CSD022", `the debugged program's thread ended while the debugger waited for '${method}': its output above says why; start the debug session again`);
      // Bounded waits: the thread's end is noticed even if it could not say so.
      Atomics.wait(this.control, Slot.Answers, seen, 200);
      seen = Atomics.load(this.control, Slot.Answers);
    }
  }
}
