/**
 * The transport between rank processes: a star over TCP around rank 0. Rank 0 listens (the
 * rendezvous), every other rank connects to it; a collective step gathers every rank's call and bytes
 * at rank 0, which computes the step once (collective.ts) and answers each rank; send/recv go through
 * rank 0, which forwards them. Simple and exact (one place reduces, in rank order), and it needs
 * nothing but Node; it is the simulator's transport and the GPU's where NCCL is not found
 * (docs/distributed.md#transport).
 *
 * Failures end the job, never hang it: a rank whose connection closes while others still need it,
 * ranks that disagree, a step that waits past the collective time limit — rank 0 sends every rank
 * the same coded error (an abort frame), and every pending and later call rejects with it.
 */
import * as net from "node:net";
import { CudaScriptError } from "../errors";
import { computeStep, describeCall } from "./collective";
import type { DistPlacement } from "./env";
import { FrameReader, writeFrame, type CollectiveCall, type Frame, type Message } from "./wire";

/** A message sent with `dist.send`, as the receiver gets it. */
export interface Delivery {
  readonly from: number;
  readonly dtype: string;
  readonly count: number;
  readonly payload: Uint8Array;
}

export interface Transport {
  /** This rank's part of the next collective step; resolves with its result bytes. */
  collective(call: CollectiveCall, payload: Uint8Array): Promise<Uint8Array>;
  send(to: number, dtype: string, count: number, payload: Uint8Array): void;
  recv(from: number): Promise<Delivery>;
}

function timeLimitText(ms: number): string {
  return `${ms / 1000} s (the collective time limit: cudascript launch --collective-timeout, or CUDASCRIPT_DIST_TIMEOUT)`;
}

function ranksText(ranks: readonly number[]): string {
  return `${ranks.length === 1 ? "rank" : "ranks"} ${ranks.join(", ")}`;
}

/**
 * What both ends share: the job's failure once there is one, the messages received by `recv` (per
 * sender, in order) and the count of calls under way, which keeps the process alive while it waits.
 */
abstract class Endpoint implements Transport {
  protected failure: CudaScriptError | undefined;
  protected seq = 0;
  private readonly inbox = new Map<number, Delivery[]>();
  private readonly receivers = new Map<number, { resolve(d: Delivery): void; reject(e: Error): void }[]>();
  private readonly rejecters = new Set<(e: Error) => void>();
  protected waiting = 0;
  /**
   * Resolved once every rank has met at rank 0: the collective time limit counts from then, so that a
   * rank still starting is not taken for one that hangs (the rendezvous has its own, longer limit).
   */
  protected readonly met: Promise<void>;
  protected markMet!: () => void;

  constructor(protected readonly placement: DistPlacement) {
    this.met = new Promise((resolve) => (this.markMet = resolve));
  }

  abstract collective(call: CollectiveCall, payload: Uint8Array): Promise<Uint8Array>;
  abstract send(to: number, dtype: string, count: number, payload: Uint8Array): void;
  /** Keeps the process alive (true) or lets it end (false) while nothing waits. */
  protected abstract hold(on: boolean): void;

  /** Runs `body` as a call under way: rejected by the job's failure, held alive, and bounded by the time limit. */
  protected pending<T>(what: () => string, body: (resolve: (v: T) => void, reject: (e: Error) => void) => void, extraMs = 0): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      if (++this.waiting === 1) this.hold(true);
      let timer: NodeJS.Timeout | undefined;
      // Until the ranks have met, this keeps the process alive instead of the timer (the rendezvous limits the wait).
      const keepAlive = setInterval(() => {}, 1 << 30);
      void this.met.then(() => {
        if (!this.rejecters.has(onFailure)) return;
        timer = setTimeout(
          () => finish(() => reject(new CudaScriptError("CSR074", `${what()} waited longer than ${timeLimitText(this.placement.timeoutMs)}`))),
          this.placement.timeoutMs + extraMs,
        );
      });
      const finish = (settle: () => void) => {
        if (!this.rejecters.delete(onFailure)) return;
        clearInterval(keepAlive);
        clearTimeout(timer);
        if (--this.waiting === 0) this.hold(false);
        settle();
      };
      const onFailure = (e: Error) => finish(() => reject(e));
      this.rejecters.add(onFailure);
      body(
        (v) => finish(() => resolve(v)),
        (e) => finish(() => reject(e)),
      );
    });
  }

  recv(from: number): Promise<Delivery> {
    const queued = this.inbox.get(from);
    if (queued?.length) return Promise.resolve(queued.shift()!);
    return this.pending(
      () => `rank ${this.placement.rank}'s dist.recv from rank ${from}`,
      (resolve, reject) => {
        const list = this.receivers.get(from) ?? [];
        list.push({ resolve, reject });
        this.receivers.set(from, list);
      },
    );
  }

  protected deliver(d: Delivery): void {
    const waiting = this.receivers.get(d.from);
    if (waiting?.length) waiting.shift()!.resolve(d);
    else this.inbox.set(d.from, [...(this.inbox.get(d.from) ?? []), d]);
  }

  /** The job is over: every call under way and every later one rejects with `error`. */
  protected fail(error: CudaScriptError): void {
    if (this.failure) return;
    this.failure = error;
    for (const reject of [...this.rejecters]) reject(error);
    this.receivers.clear();
  }

  /** A failure with no call of this rank waiting to report it: said on stderr, and the rank's exit code is 1. */
  protected reportUnheard(error: CudaScriptError): void {
    if (this.waiting > 0) return;
    process.stderr.write(`cudascript: error ${error.message}\n`);
    process.exitCode = 1;
  }
}

interface Step {
  readonly calls: (CollectiveCall | undefined)[];
  readonly payloads: Uint8Array[];
  arrived: number;
  /** Set once every rank has met. */
  timer?: NodeJS.Timeout;
  readonly firstCall: CollectiveCall;
  resolveOwn?: (bytes: Uint8Array) => void;
}

/** Rank 0: the rendezvous, where every collective step is computed and every send is forwarded. */
export class Hub extends Endpoint {
  private readonly server: net.Server | undefined;
  private readonly peers: (net.Socket | undefined)[];
  private readonly left = new Set<number>();
  private readonly steps = new Map<number, Step>();
  private readonly rendezvousTimer: NodeJS.Timeout | undefined;
  private connected = 0;

  constructor(placement: DistPlacement, job: string) {
    super(placement);
    this.peers = new Array<net.Socket | undefined>(placement.size).fill(undefined);
    if (placement.size === 1) {
      this.markMet();
      return;
    }
    this.server = net.createServer((socket) => this.accept(socket, job));
    this.server.on("error", (e: NodeJS.ErrnoException) =>
      this.abort(new CudaScriptError("CSR077", `rank 0 cannot listen on port ${placement.port} for the other ranks (${e.code ?? e.message}): choose another with cudascript launch --port`)),
    );
    // Every interface: under Slurm and Kubernetes the other ranks reach rank 0 by its node's or pod's name.
    this.server.listen({ port: placement.port, host: placement.host === "127.0.0.1" || placement.host === "localhost" ? "127.0.0.1" : undefined });
    this.rendezvousTimer = setTimeout(() => {
      const missing = this.peers.map((p, r) => (r > 0 && !p && !this.left.has(r) ? r : -1)).filter((r) => r >= 0);
      this.abort(new CudaScriptError("CSR077", `${ranksText(missing)} did not reach rank 0's rendezvous at port ${placement.port} within ${placement.rendezvousMs / 1000} s: ${missing.length === 1 ? "its" : "their"} own output says why (a crash before the first collective, another network)`));
    }, placement.rendezvousMs);
  }

  protected hold(): void {
    // Nothing to do: rank 0 stays while other ranks are connected (it forwards their sends), since
    // their sockets keep its event loop alive; a call under way is held by its time-limit timer.
  }

  private accept(socket: net.Socket, job: string): void {
    socket.setNoDelay(true);
    let rank = -1;
    const reader = new FrameReader((frame) => {
      if (rank < 0) {
        const m = frame.message;
        if (m.kind !== "hello" || m.job !== job || m.size !== this.placement.size || m.rank <= 0 || m.rank >= this.placement.size || this.peers[m.rank]) {
          socket.destroy(); // another job's rank, or a duplicate: not one of ours
          return;
        }
        rank = m.rank;
        this.peers[rank] = socket;
        this.flushQueued();
        if (++this.connected === this.placement.size - 1) {
          clearTimeout(this.rendezvousTimer);
          this.server!.close(); // every rank is here: no more connections to wait for
          for (const peer of this.peers) if (peer) writeFrame(peer, { kind: "welcome" });
          this.markMet();
          for (const [seq, step] of this.steps) if (!step.timer) step.timer = this.stepTimer(seq, step.firstCall);
        }
        if (this.failure) writeFrame(socket, { kind: "abort", code: this.failure.code, message: this.failure.message.replace(/^CSR\d+: /, "") });
        return;
      }
      this.onFrame(rank, frame);
    });
    socket.on("data", (chunk) => reader.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      if (rank < 0) return;
      this.peers[rank] = undefined;
      this.left.add(rank);
      const needed = [...this.steps.entries()].find(([, s]) => s.calls[rank] === undefined);
      if (needed) this.abort(this.leftError(rank, `before calling collective #${needed[0] + 1}, which the others are in`));
    });
  }

  private leftError(rank: number, when: string): CudaScriptError {
    return new CudaScriptError("CSR073", `rank ${rank} left the job ${when}: it failed or ended (its own output says why), so the job stops`);
  }

  private onFrame(from: number, { message, payload }: Frame): void {
    if (message.kind === "contribute") this.arrive(from, message.seq, message.call, payload);
    else if (message.kind === "p2p") this.forward({ from, dtype: message.dtype, count: message.count, payload }, message.to);
  }

  private arrive(rank: number, seq: number, call: CollectiveCall, payload: Uint8Array, resolveOwn?: (bytes: Uint8Array) => void): void {
    if (this.failure) return;
    let step = this.steps.get(seq);
    if (!step) {
      const gone = [...this.left];
      if (gone.length > 0) {
        this.abort(this.leftError(gone[0]!, `before collective #${seq + 1} (${describeCall(call)})`));
        return;
      }
      step = { calls: new Array(this.placement.size).fill(undefined), payloads: new Array(this.placement.size), arrived: 0, firstCall: call };
      // The time limit counts once every rank has met (see Endpoint.met).
      if (this.connected === this.placement.size - 1) step.timer = this.stepTimer(seq, call);
      this.steps.set(seq, step);
    }
    step.calls[rank] = call;
    step.payloads[rank] = payload;
    if (resolveOwn) step.resolveOwn = resolveOwn;
    if (++step.arrived === this.placement.size) this.complete(seq, step);
  }

  private stepTimer(seq: number, call: CollectiveCall): NodeJS.Timeout {
    return setTimeout(() => {
      const s = this.steps.get(seq)!;
      const missing = s.calls.map((c, r) => (c ? -1 : r)).filter((r) => r >= 0);
      const waiting = s.calls.map((c, r) => (c ? r : -1)).filter((r) => r >= 0);
      this.abort(
        new CudaScriptError(
          "CSR074",
          `collective #${seq + 1} (${describeCall(call)}): ${ranksText(waiting)} waited ${timeLimitText(this.placement.timeoutMs)} for ${ranksText(missing)}, which never called it (a rank stuck in a loop or a kernel, or one that skipped the call)`,
        ),
      );
    }, this.placement.timeoutMs);
  }

  private complete(seq: number, step: Step): void {
    clearTimeout(step.timer);
    this.steps.delete(seq);
    let results: Uint8Array[];
    try {
      results = computeStep(seq, step.calls as CollectiveCall[], step.payloads);
    } catch (e) {
      if (e instanceof CudaScriptError) return this.abort(e);
      throw e;
    }
    for (let r = 1; r < this.placement.size; r++) writeFrame(this.peers[r]!, { kind: "result", seq }, results[r]);
    step.resolveOwn?.(results[0]!);
  }

  collective(call: CollectiveCall, payload: Uint8Array): Promise<Uint8Array> {
    const seq = this.seq++;
    return this.pending(
      () => `rank 0's collective #${seq + 1} (${describeCall(call)})`,
      (resolve) => this.arrive(0, seq, call, payload, resolve),
      // The step's own timer (above) names the missing ranks; this one is the backstop.
      1000,
    );
  }

  send(to: number, dtype: string, count: number, payload: Uint8Array): void {
    if (this.failure) throw this.failure;
    this.forward({ from: 0, dtype, count, payload }, to);
  }

  private forward(d: Delivery, to: number): void {
    if (this.failure) return;
    if (to === 0) return this.deliver(d);
    const socket = this.peers[to];
    if (!socket) {
      if (this.left.has(to)) this.abort(this.leftError(to, `before rank ${d.from}'s dist.send to it arrived`));
      else this.queued.push([d, to]);
      return;
    }
    writeFrame(socket, { kind: "p2p", from: d.from, to, dtype: d.dtype, count: d.count }, d.payload);
  }

  /** Sends to ranks not yet connected wait here; flushed by flushQueued as they arrive. */
  private readonly queued: [Delivery, number][] = [];

  /** Ends the job with `error` for every rank. */
  abort(error: CudaScriptError): void {
    if (this.failure) return;
    for (const step of this.steps.values()) clearTimeout(step.timer);
    clearTimeout(this.rendezvousTimer);
    const text = error.message.replace(/^CSR\d+: /, "");
    for (const socket of this.peers) if (socket) writeFrame(socket, { kind: "abort", code: error.code, message: text });
    this.server?.close();
    this.reportUnheard(error);
    this.fail(error);
  }

  /** Forwards the sends that waited for their rank to connect. */
  private flushQueued(): void {
    for (const [d, to] of this.queued.splice(0)) this.forward(d, to);
  }
}

/** Every rank but 0: one connection to rank 0, made at the first collective or send. */
export class Peer extends Endpoint {
  private socket: net.Socket | undefined;
  private readonly results = new Map<number, (bytes: Uint8Array) => void>();
  private readonly ready: Promise<net.Socket>;

  constructor(placement: DistPlacement, job: string) {
    super(placement);
    this.ready = this.connect(job);
    this.ready.catch((e: CudaScriptError) => {
      this.reportUnheard(e);
      this.fail(e);
    });
  }

  protected hold(on: boolean): void {
    if (on) this.socket?.ref();
    else this.socket?.unref();
  }

  /** Connects to rank 0, trying again while it is not listening yet (it may start later than this rank). */
  private async connect(job: string): Promise<net.Socket> {
    const { host, port, rank, size, rendezvousMs } = this.placement;
    const deadline = Date.now() + rendezvousMs;
    let lastError = "";
    for (let delay = 50; ; delay = Math.min(delay * 2, 1000)) {
      try {
        const socket = await new Promise<net.Socket>((resolve, reject) => {
          const s = net.connect({ host: host!, port: port! }, () => resolve(s));
          s.once("error", reject);
        });
        socket.setNoDelay(true);
        this.socket = socket;
        if (this.waiting === 0) socket.unref();
        const reader = new FrameReader((frame) => this.onFrame(frame));
        socket.on("data", (chunk) => reader.push(chunk));
        socket.on("error", () => {});
        socket.on("close", () =>
          this.fail(new CudaScriptError("CSR073", `rank ${rank} lost its connection to rank 0 at ${host}:${port}: rank 0 failed or ended (its own output says why), so the job stops`)),
        );
        writeFrame(socket, { kind: "hello", rank, size, job });
        return socket;
      } catch (e) {
        lastError = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
        if (Date.now() + delay > deadline)
          throw new CudaScriptError("CSR077", `rank ${rank} could not reach rank 0 at ${host}:${port} within ${rendezvousMs / 1000} s (last: ${lastError}): rank 0 failed before its first collective, or the address is not reachable from this node`);
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private onFrame({ message, payload }: Frame): void {
    const m: Message = message;
    if (m.kind === "welcome") {
      this.markMet();
    } else if (m.kind === "result") {
      const resolve = this.results.get(m.seq);
      this.results.delete(m.seq);
      resolve?.(payload);
    } else if (m.kind === "p2p") {
      this.deliver({ from: m.from, dtype: m.dtype, count: m.count, payload });
    } else if (m.kind === "abort") {
      const error = new CudaScriptError(m.code, m.message);
      this.reportUnheard(error);
      this.fail(error);
      this.socket?.destroy();
    }
  }

  collective(call: CollectiveCall, payload: Uint8Array): Promise<Uint8Array> {
    const seq = this.seq++;
    return this.pending(
      () => `rank ${this.placement.rank}'s collective #${seq + 1} (${describeCall(call)}): no answer from rank 0`,
      (resolve, reject) => {
        this.results.set(seq, resolve);
        this.ready.then((socket) => writeFrame(socket, { kind: "contribute", seq, call }, payload), reject);
      },
      // Rank 0 names the missing ranks at the time limit; this rank's own timer is for a rank 0 that cannot.
      2000,
    );
  }

  send(to: number, dtype: string, count: number, payload: Uint8Array): void {
    if (this.failure) throw this.failure;
    void this.ready.then((socket) => writeFrame(socket, { kind: "p2p", from: this.placement.rank, to, dtype, count }, payload), () => {});
  }
}
