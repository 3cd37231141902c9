/**
 * Global-memory race detection under `--sanitize` (CSR066 within a block, CSR067 between blocks): the
 * happens-before relation between the threads of one launch, kept per element of every global array.
 *
 * One instance per thread (`globalRaces()`): a launch runs on one executor when the sanitizer is on
 * (executor.ts), so every block of the launch passes through here in the order it runs, and one clock
 * orders them all. The clock is an *epoch* that advances at every block start, barrier, warp
 * synchronisation and grid barrier, and keeps counting across launches: launches on one stream are
 * ordered, so everything below the launch's first epoch (`LB`) is ordered before everything in it.
 *
 * What orders two accesses of one launch (docs/simulator.md, "Global-memory races"):
 * - the same thread (program order);
 * - the same block: a barrier in between, or within one warp a warp synchronisation (as shared memory);
 * - different blocks: a grid barrier (`g.sync()`, which starts a new phase: `LB` moves up), or release
 *   and acquire: a thread's `cuda.threadfence()` releases what it knows (its own accesses, its block's
 *   before the last barrier, what it acquired) to its atomics on global memory after it; a later atomic
 *   on the same element acquires everything released there, and the acquiring thread's next barrier
 *   passes that to its whole block (CUDA's threadFenceReduction "last block" pattern). Knowledge is a
 *   map from block to the epoch below which all of its accesses are known (`bs`) and, per releasing
 *   thread, the epoch up to which that thread's own ones are.
 * Atomics never race with atomics, nor with plain reads: an aligned load of an element that other threads
 * update atomically sees one of its values (the compare-and-swap loops of the CUDA Programming Guide
 * read the element plainly and let the CAS check it). A plain write races with an atomic as with a write.
 *
 * Shadow state per element, three float64s per array element (shared by every view of one allocation
 * of one element size: two parameters bound to one buffer see the same elements):
 *   W: last write, `epoch · Q + (thread + 1) · S + site`, negated for an atomic (0: none);
 *   R: reader since then, `epoch · Q + (thread + 2) · S + site`, code 0 for several readers of one
 *      epoch of one block (as the shared detector);
 *   X: the first reader of another block that R replaced (a witness kept for a later write), sparse:
 *      a map per allocation, with a count (`XN[0]`) the emitted write check reads instead (0: none
 *      in this launch or grid phase, the common case), so a plain write loads two shadows, not three.
 * The emitted fast paths (compiler/src/js/emit/sanitize-global.ts) decide the common cases with loads
 * and comparisons against `LB`, `EB` (this block's first epoch), `BS` (its last barrier) and this
 * thread's bands; everything else comes here.
 */
import { displayPath, RaceFault, type SimSite } from "../fault";

/** Codes per epoch: thread + 2 < 1026. */
export const GLOBAL_CODES = 2048;
/**
 * Site slots S of a launch's module: a power of two above its site count (at least 64), so that the
 * epochs left (2^53 / (2048 · S)) are as many as the module allows: billions for a module of a few
 * hundred sites.
 */
function siteSlots(sites: number): number {
  let s = 64;
  while (s <= sites) s *= 2;
  return s;
}

const NO_SHADOW = new Float64Array(0);
const NO_WITNESS = new Int32Array(1);

/** What a block knows of another block's accesses: all below `bs`, and a releasing thread's own up to `thr.get(t)`. */
interface BlockKnowledge {
  bs: number;
  thr: Map<number, number> | undefined;
}
type Knowledge = Map<number, BlockKnowledge>;

/** A global array argument's shadow (a view of its allocation's shadow arrays). */
export interface GlobalShadow {
  /** The allocation's shadow id (keys release/acquire locations). */
  readonly bid: number;
  readonly name: string;
  /** First element of this view in the allocation's shadow. */
  readonly base: number;
  readonly W: Float64Array;
  readonly R: Float64Array;
  /** Witnesses kept in this launch or phase on this allocation (0: none; see BufferShadow). */
  readonly XN: Int32Array;
  readonly buf: BufferShadow | undefined;
  /** The allocation's memory. */
  readonly mem: object;
  readonly shape?: readonly number[];
  readonly strides?: readonly number[];
  /** Checked in this launch: a written parameter, or a read-only one sharing memory with a written one. */
  readonly on: boolean;
}

interface BufferShadow {
  readonly id: number;
  readonly W: Float64Array;
  readonly R: Float64Array;
  /** Witness readers by element of the allocation, valid from epoch `xFrom` (the launch or phase start). */
  readonly X: Map<number, number>;
  readonly XN: Int32Array;
  xFrom: number;
}

class BlockState {
  b = 0;
  /** First epoch of this block's current segment (a cooperative block has one per grid phase). */
  seg = 0;
  bsync = 0;
  phase = 0;
  readonly wsync: Float64Array;
  readonly K: Knowledge = new Map();
  /** Knowledge a thread acquired since the block's last barrier. */
  readonly pending = new Map<number, Knowledge>();
  /** What a thread's last threadfence released (carried by its atomics after it). */
  readonly rel = new Map<number, Knowledge>();
  constructor(threads: number) {
    this.wsync = new Float64Array((threads >> 5) + 1);
  }
  reset(): void {
    this.wsync.fill(0);
    if (this.K.size) this.K.clear();
    if (this.pending.size) this.pending.clear();
    if (this.rel.size) this.rel.clear();
  }
}

export class GlobalRaces {
  /** Current epoch, and the first epoch of this launch or grid phase. */
  private ep = 0;
  private lbe = 1;
  /** `ep·Q`, `ep·Q + S`, last barrier·Q, block segment start·Q, launch/phase start·Q: the fast paths' bounds. */
  E = 0;
  E1 = 0;
  BS = 0;
  EB = 0;
  LB = 0;
  /** Site slots and epoch quantum of the current launch's module (see siteSlots). */
  S = 64;
  private Q = GLOBAL_CODES * 64;
  private maxEpoch = Math.floor(Number.MAX_SAFE_INTEGER / (GLOBAL_CODES * 64)) - 4;
  /** The epochs ran out inside one launch (tens of millions of barriers): the rest of it is not checked. */
  private saturated = false;
  /** Threadfences seen in this launch (atomics then release and acquire). */
  F = 0;
  private launchData: unknown = undefined;
  private sites: readonly SimSite[] = [];
  private kernel = "";
  private grid: readonly number[] = [1, 1, 1];
  private blockDim: readonly number[] = [1, 1, 1];
  private cur = new BlockState(1);
  /** Cooperative launches: every block's state (they interleave at grid barriers). */
  private readonly coop = new Map<number, BlockState>();
  private cooperative = false;
  private phase = 0;
  /** Segment starts (epochs, ascending) and their blocks, to name the block of an epoch. */
  private segStart: number[] = [];
  private segBlock: number[] = [];
  /** Release/acquire knowledge per atomic location (allocation id · 2^32 + element). */
  private readonly loc = new Map<number, Knowledge>();
  private buffers = new WeakMap<object, Map<number, BufferShadow>>();
  private nextBid = 1;
  private readonly byData = new Map<object, GlobalShadow>();
  /** Allocations a written parameter of this launch is bound to, and those a read one is. */
  private readonly writtenBuffers = new Set<object>();
  private readonly readBuffers = new Set<object>();
  /** The shadows of this launch's allocations (their witnesses are dropped when a grid phase starts). */
  private readonly launchBuffers = new Set<BufferShadow>();

  /** Called by every kernel run's setup: a new launch when `L` is not the last one seen. */
  launch(L: unknown, sites: readonly SimSite[], kernel: string, grid: readonly number[], block: readonly number[], cooperative: boolean): this {
    if (L === this.launchData) return this;
    this.launchData = L;
    this.sites = sites;
    this.kernel = kernel;
    this.grid = grid;
    this.blockDim = block;
    this.cooperative = cooperative;
    this.coop.clear();
    this.phase = 0;
    this.loc.clear();
    this.byData.clear();
    this.writtenBuffers.clear();
    this.readBuffers.clear();
    this.launchBuffers.clear();
    this.segStart = [];
    this.segBlock = [];
    this.F = 0;
    this.saturated = false;
    const threads = block[0]! * block[1]! * block[2]!;
    if (this.cur.wsync.length !== (threads >> 5) + 1) this.cur = new BlockState(threads);
    const S = siteSlots(sites.length);
    if (S !== this.S) {
      // Another quantum: the next epoch is chosen so that every value recorded so far stays below it.
      const v = (this.ep + 1) * this.Q;
      this.S = S;
      this.Q = GLOBAL_CODES * S;
      this.maxEpoch = Math.floor(Number.MAX_SAFE_INTEGER / this.Q) - 4;
      this.ep = Math.ceil(v / this.Q);
    }
    // Past half the exact range, start again: drop every shadow (nothing of an earlier launch matters).
    if (this.ep > this.maxEpoch / 2) {
      this.buffers = new WeakMap();
      this.ep = 0;
    }
    this.lbe = ++this.ep;
    this.refresh();
    return this;
  }

  /**
   * The shadow of a global array argument (a typed array, or `{ data, shape, strides }`), `bytes` per
   * element; `written`: the kernel may write it (the emitted setup registers those first, so a read-only
   * parameter knows whether it shares memory with one).
   */
  shadow(arg: unknown, bytes: number, name: string, written = true, read = true): GlobalShadow {
    const nd = arg as { data?: ArrayBufferView; shape?: number[]; strides?: number[] };
    const data = (nd.data ?? arg) as ArrayBufferView;
    if (written) this.writtenBuffers.add(data.buffer);
    if (read) this.readBuffers.add(data.buffer);
    const on = written || this.writtenBuffers.has(data.buffer);
    // A read-only parameter alone in its memory is not checked (the emitted code tests `on`): no shadow.
    if (!on) return { bid: 0, name, base: 0, W: NO_SHADOW, R: NO_SHADOW, XN: NO_WITNESS, buf: undefined, mem: data.buffer, on };
    let byBytes = this.buffers.get(data.buffer);
    if (!byBytes) this.buffers.set(data.buffer, (byBytes = new Map()));
    let bs = byBytes.get(bytes);
    if (!bs) {
      const n = Math.floor(data.buffer.byteLength / bytes);
      bs = { id: this.nextBid++, W: new Float64Array(n), R: new Float64Array(n), X: new Map(), XN: new Int32Array(1), xFrom: 0 };
      byBytes.set(bytes, bs);
    }
    const base = Math.floor(data.byteOffset / bytes);
    this.freshWitnesses(bs);
    this.launchBuffers.add(bs);
    const h: GlobalShadow = { bid: bs.id, name, base, W: bs.W.subarray(base), R: bs.R.subarray(base), XN: bs.XN, buf: bs, mem: data.buffer, shape: nd.data ? nd.shape : undefined, strides: nd.data ? nd.strides : undefined, on };
    if (on) this.byData.set(data, h);
    return h;
  }

  /**
   * Whether no parameter the kernel reads is bound to this (write-only) parameter's memory in this
   * launch: its elements then have no reader, and its writes skip the reader check. Call after every
   * parameter is registered.
   */
  unread(h: GlobalShadow): boolean {
    return !this.readBuffers.has(h.mem);
  }

  /** Drops an allocation's witnesses from before this launch or phase. */
  private freshWitnesses(bs: BufferShadow): void {
    if (bs.xFrom === this.lbe) return;
    bs.xFrom = this.lbe;
    if (bs.X.size) bs.X.clear();
    bs.XN[0] = 0;
  }

  private witness(h: GlobalShadow, x: number): number {
    return h.XN[0] === 0 ? 0 : (h.buf!.X.get(h.base + x) ?? 0);
  }

  private refresh(): void {
    const Q = this.Q;
    this.E = this.ep * Q;
    this.E1 = this.E + this.S;
    this.BS = this.cur.bsync * Q;
    this.EB = this.cur.seg * Q;
    this.LB = this.lbe * Q;
  }

  private next(): number {
    // Out of exact epochs inside one launch: stop checking it (the next launch starts afresh).
    if (this.ep + 1 > this.maxEpoch) {
      this.saturated = true;
      return this.ep;
    }
    return ++this.ep;
  }

  private startSegment(b: number): void {
    const s = this.cur;
    s.b = b;
    s.seg = s.bsync = this.next();
    this.segStart.push(s.seg);
    this.segBlock.push(b);
  }

  block(b: number): void {
    if (this.cooperative) {
      let s = this.coop.get(b);
      if (!s) this.coop.set(b, (s = new BlockState(this.blockDim[0]! * this.blockDim[1]! * this.blockDim[2]!)));
      this.cur = s;
    }
    this.cur.reset();
    this.startSegment(b);
    this.refresh();
  }

  /** A block resumes after a grid barrier: the first block of a new phase moves `LB` (everything before it is ordered). */
  gridResume(b: number): void {
    const s = this.coop.get(b);
    if (!s) return;
    this.cur = s;
    s.phase++;
    if (s.phase > this.phase) {
      this.phase = s.phase;
      this.lbe = this.ep + 1;
      this.loc.clear();
      for (const bs of this.launchBuffers) this.freshWitnesses(bs);
    }
    s.reset();
    this.startSegment(b);
    this.refresh();
  }

  /** A barrier every running thread of the block reached. */
  sync(): void {
    const s = this.cur;
    s.bsync = this.next();
    if (s.pending.size) {
      for (const k of s.pending.values()) join(s.K, k);
      s.pending.clear();
    }
    this.refresh();
  }

  /** A barrier in code some threads may not reach: a barrier if any did (the shared sanitizer reports divergence). */
  barrier(st: Int32Array, nT: number): void {
    for (let u = 0; u < nT; u++)
      if (st[u] === 0) {
        this.sync();
        return;
      }
  }

  warpSync(w: number): void {
    this.cur.wsync[w >> 5] = this.next();
    this.refresh();
  }

  /**
   * `cuda.threadfence()`: thread t's release, carried by its atomics on global memory from now on. It
   * covers t's accesses up to this epoch, and the epoch advances, so that its accesses after the fence are
   * not covered (the emitted code reloads the bounds after the call).
   */
  fence(t: number): void {
    this.F = 1;
    const s = this.cur;
    const rel: Knowledge = new Map();
    join(rel, s.K);
    const p = s.pending.get(t);
    if (p) join(rel, p);
    join(rel, new Map([[s.b, { bs: s.bsync, thr: new Map([[t, this.ep]]) }]]));
    s.rel.set(t, rel);
    this.next();
    this.refresh();
  }

  /** An atomic on global element x after a threadfence somewhere in the launch: acquire, then release. */
  sa(h: GlobalShadow, x: number, t: number): boolean {
    const key = h.bid * 4294967296 + h.base + x;
    const s = this.cur;
    const lk = this.loc.get(key);
    if (lk) {
      let p = s.pending.get(t);
      if (!p) s.pending.set(t, (p = new Map()));
      join(p, lk);
    }
    const r = s.rel.get(t);
    if (r) {
      if (lk) join(lk, r);
      else {
        const k: Knowledge = new Map();
        join(k, r);
        this.loc.set(key, k);
      }
    }
    return true;
  }

  // ───────────────────────── ordering ─────────────────────────

  /** A shadow value's [epoch, code, site]. */
  private decode(v: number): [number, number, number] {
    const e = Math.floor(v / this.Q);
    const rem = v - e * this.Q;
    const code = Math.floor(rem / this.S);
    return [e, code, rem - code * this.S];
  }

  private blockOf(e: number): number {
    const a = this.segStart;
    let lo = 0, hi = a.length - 1;
    if (hi < 0) return 0;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (a[mid]! <= e) lo = mid;
      else hi = mid - 1;
    }
    return this.segBlock[lo]!;
  }

  /** Whether an access in epoch e by thread u (-1: several threads) happens before thread t's access now. */
  private ordered(e: number, u: number, t: number): boolean {
    if (e < this.lbe) return true;
    const s = this.cur;
    if (e >= s.seg) {
      if (u === t || s.bsync > e) return true;
      return u >= 0 && u >> 5 === t >> 5 && s.wsync[t >> 5]! > e;
    }
    const A = this.blockOf(e);
    if (A === s.b) return true; // an earlier segment of this block: below LB already
    return known(s.K, A, u, e) || known(s.pending.get(t), A, u, e);
  }

  // ───────────────────────── slow paths ─────────────────────────

  /** Slow path of a read's writer check. */
  rs(h: GlobalShadow, x: number, t: number, site: number): boolean {
    if (this.saturated) return true;
    const w = h.W[x]!;
    if (w <= 0) return true; // none, or an atomic (reads do not race with atomics)
    const [e, code, ws] = this.decode(w);
    if (e >= this.lbe && !this.ordered(e, code - 1, t)) this.race(h, x, t, site, "reads it", e, code - 1, ws, "wrote it");
    return true;
  }

  /** Slow path of a read's reader record. */
  rr(h: GlobalShadow, x: number, t: number, site: number): boolean {
    const r = h.R[x]!;
    const me = this.E + (t + 2) * this.S + Math.min(site, this.S - 1);
    if (r < this.LB) {
      h.R[x] = me;
      return true;
    }
    const [e, code] = this.decode(r);
    if (e < this.cur.seg) {
      // A reader of another block: keep the first one as a witness for a later write.
      if (this.witness(h, x) === 0) {
        h.buf!.X.set(h.base + x, r);
        h.XN[0]++;
      }
      h.R[x] = me;
      return true;
    }
    const u = code === 0 ? -1 : code - 2;
    if (e === this.ep && code === 0) return true;
    const alone = u === t || (u >= 0 ? this.ordered(e, u, t) : this.cur.bsync > e);
    h.R[x] = alone ? me : this.E + Math.min(site, this.S - 1);
    return true;
  }

  /** Slow path of a write: every earlier access must be ordered before it (a same-value write after a plain write is not a race). */
  ws(h: GlobalShadow, x: number, t: number, site: number, differs: boolean): boolean {
    if (this.saturated) return true;
    this.checkWriter(h, x, t, site, differs, "writes it");
    this.checkReaders(h, x, t, site, "writes it");
    h.W[x] = this.E + (t + 1) * this.S + Math.min(site, this.S - 1);
    h.R[x] = 0;
    if (h.XN[0] !== 0) h.buf!.X.delete(h.base + x);
    return true;
  }

  /** Slow path of an atomic: a plain write before it must be ordered; atomics and reads never race with it. */
  as(h: GlobalShadow, x: number, t: number, site: number): boolean {
    if (this.saturated) return true;
    const w = h.W[x]!;
    if (w > 0) this.checkWriter(h, x, t, site, true, "updates it atomically");
    h.W[x] = -(this.E + (t + 1) * this.S + Math.min(site, this.S - 1));
    return true;
  }

  private checkWriter(h: GlobalShadow, x: number, t: number, site: number, differs: boolean, what: string): void {
    let w = h.W[x]!;
    if (w === 0) return;
    const atomic = w < 0;
    if (atomic) w = -w;
    const [e, code, ws] = this.decode(w);
    if (e < this.lbe) return;
    if ((atomic || differs) && !this.ordered(e, code - 1, t)) this.race(h, x, t, site, what === "writes it" && !atomic ? "writes a different value to it" : what, e, code - 1, ws, atomic ? "updated it atomically" : "wrote it");
  }

  private checkReaders(h: GlobalShadow, x: number, t: number, site: number, what: string): void {
    for (const r of [h.R[x]!, this.witness(h, x)]) {
      if (r < this.LB) continue;
      const [e, code, rs] = this.decode(r);
      const u = code === 0 ? -1 : code - 2;
      if (!this.ordered(e, u, t)) this.race(h, x, t, site, what, e, u, rs, "read it");
    }
  }

  /** Direct checks for device functions, whose arrays are looked up by their storage (non-global ones are not tracked). */
  r(data: object, x: number, t: number, site: number): void {
    const h = this.byData.get(data);
    if (!h) return;
    this.rs(h, x, t, site);
    const r = h.R[x]!;
    const mine = this.E + (t + 2) * this.S;
    if (r >= this.E && (r < this.E1 || (r >= mine && r < mine + this.S))) return;
    if (r < this.LB || (r >= this.EB && r < this.BS)) h.R[x] = mine + Math.min(site, this.S - 1);
    else this.rr(h, x, t, site);
  }
  w(data: object, x: number, t: number, site: number, differs: boolean): void {
    const h = this.byData.get(data);
    if (h) this.ws(h, x, t, site, differs);
  }
  a(data: object, x: number, t: number, site: number): void {
    const h = this.byData.get(data);
    if (!h) return;
    this.as(h, x, t, site);
    if (this.F !== 0) this.sa(h, x, t);
  }

  // ───────────────────────── the finding ─────────────────────────

  private coords(lin: number, dims: readonly number[]): [number, number, number] {
    const x = lin % dims[0]!;
    const q = Math.floor(lin / dims[0]!);
    return [x, q % dims[1]!, Math.floor(q / dims[1]!)];
  }

  private element(h: GlobalShadow, x: number): string {
    if (!h.shape || !h.strides || h.shape.length < 2) return `${h.name}[${x}]`;
    const dims = h.shape.map((_, d) => d).sort((a, b) => h.strides![b]! - h.strides![a]!);
    const idx = new Array<number>(h.shape.length).fill(0);
    let rem = x;
    for (const d of dims) {
      const s = h.strides[d]!;
      idx[d] = s > 0 ? Math.floor(rem / s) : 0;
      rem -= idx[d]! * s;
    }
    return `${h.name}[${idx.join("][")}]`;
  }

  private race(h: GlobalShadow, x: number, t: number, siteId: number, what: string, e: number, u: number, otherSite: number, otherWhat: string): never {
    const s = this.cur;
    const sameBlock = e >= s.seg;
    const other = sameBlock ? s.b : this.blockOf(e);
    const t3 = (v: readonly number[]) => `(${v.join(", ")})`;
    const me = this.coords(t, this.blockDim), them = u >= 0 ? this.coords(u, this.blockDim) : undefined;
    const myBlock = this.coords(s.b, this.grid), theirBlock = this.coords(other, this.grid);
    const site = this.sites[siteId] ?? { kind: "read", fn: this.kernel, file: "", line: 0, col: 0 };
    const os = this.sites[otherSite];
    const where = os ? ` at ${displayPath(os.file)}:${os.line}:${os.col}` : "";
    const el = this.element(h, x);
    const who = them ? `thread ${t3(them)}` : "other threads";
    let text: string, code: string;
    if (sameBlock) {
      code = "CSR066";
      text = `global-memory race on '${el}' within block ${t3(myBlock)}: thread ${t3(me)} ${what} after ${who} ${otherWhat}${where}, with no cuda.syncthreads() in between (threads of one block need a barrier between them in global memory as in shared memory)`;
    } else {
      code = "CSR067";
      text = `global-memory race on '${el}' between blocks: thread ${t3(me)} of block ${t3(myBlock)} ${what} after ${who} of block ${t3(theirBlock)} ${otherWhat}${where}, and nothing orders the two blocks: only a grid barrier (g.sync() in a cooperative kernel), a second launch, or cuda.threadfence() before an atomic that this block's atomic on the same element then sees (followed by cuda.syncthreads() to pass it to the block) do`;
    }
    const f = new RaceFault(code, text, site, h.name, x, { block: theirBlock, thread: them ?? [-1, -1, -1], access: otherWhat, file: os?.file, line: os?.line, col: os?.col });
    f.kernel = this.kernel;
    f.block = myBlock;
    f.thread = me;
    throw f;
  }
}


function known(K: Knowledge | undefined, A: number, u: number, e: number): boolean {
  const k = K?.get(A);
  if (!k) return false;
  if (e < k.bs) return true;
  return u >= 0 && k.thr !== undefined && (k.thr.get(u) ?? -1) >= e;
}

/** into ∪= from (per block: the larger barrier bound, per thread the larger epoch). */
function join(into: Knowledge, from: Knowledge): void {
  for (const [b, k] of from) {
    const o = into.get(b);
    if (!o) {
      into.set(b, { bs: k.bs, thr: k.thr && new Map(k.thr) });
      continue;
    }
    if (k.bs > o.bs) o.bs = k.bs;
    if (k.thr) {
      o.thr ??= new Map();
      for (const [t, e] of k.thr) if ((o.thr.get(t) ?? -1) < e) o.thr.set(t, e);
    }
  }
}

let instance: GlobalRaces | undefined;
/** This thread's detector (every module instance of the thread shares it: one clock, one set of shadows). */
export function globalRaces(): GlobalRaces {
  return (instance ??= new GlobalRaces());
}
