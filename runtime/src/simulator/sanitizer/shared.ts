/**
 * The simulator's shared-memory sanitizer: race, uninitialised-read and divergence detection for one
 * kernel run (one worker). The emitted code's inline fast paths compare against its fields and call its
 * methods only otherwise (compiler/src/js/emit/memory.ts).
 */
import type { FaultDetails } from "../../errors";
import { KernelFault, RaceFault, type SimSite } from "../fault";
import { sharedElementText } from "./element-names";
import { originShadow, undefinedUseFault } from "./undefined-values";

/**
 * What the sanitizer does where an undefined value — read from shared memory no thread of the block
 * wrote — is used where it matters (CSR068; the read itself is silent): "error" (the default) stops the
 * run; "warn" reports it once per use site and run to `warn` and lets the thread continue
 * (docs/simulator.md, "Undefined values").
 */
export interface UninitializedPolicy {
  readonly mode: "warn" | "error";
  readonly warn: (finding: KernelFault) => void;
}


/**
 * Shadow state of one shared array. Each element's last write and its readers are each ONE number,
 * `epoch · Q + code · S + site` (S: the module's site count + 1, Q = CODES · S; exact in a float64),
 * so that the emitted fast path decides with one load and a comparison or two against values of the
 * current epoch, and one store records the access with its source site:
 *   WP: code = writer thread + 1                (below `EB`, the block's first epoch: never written in this block)
 *   RP: code = reader thread + 2, 0 = several   (below `EB`, e.g. 0 after a write: no reader since the last write)
 */
export interface Shadow {
  readonly name: string;
  readonly length: number;
  readonly WP: Float64Array;
  readonly RP: Float64Array;
  /**
   * Origin of the undefined value each element holds (site + 1; 0: defined), where WP says it was
   * written in this block — read only while `Sanitizer.UD` says an undefined value was stored into
   * shared memory in this block (until then no element holds one, and UO may be stale; undefined-values.ts).
   */
  readonly UO: Int32Array;
}

/** Codes per epoch: thread ids are < 1024, so `thread + 2` fits below it. */
export const CODES = 2048;

/**
 * Shared-memory race, uninitialised-read and divergence detection for one kernel run (one worker).
 * Every synchronisation advances an epoch, and so does every new block (epochs keep counting across
 * the blocks of a run, so no shadow array is cleared per block: older blocks' entries are below `EB`).
 * An access is ordered after an earlier one by another thread when a barrier (or, within a warp, a
 * warp synchronisation) happened in between.
 *
 * The emitted code checks inline (in the kernel's own loop) whether an access is trivially fine — the
 * element was last written by this thread in this epoch or before the last barrier; this thread (or
 * several) already read it in this epoch; nobody read it since the last barrier — and calls the
 * methods below only otherwise.
 */
export class Sanitizer {
  private readonly shadows: (Shadow | undefined)[] = [];
  private readonly byArray = new Map<unknown, number>();
  /**
   * Global arrays of this launch with a written map, for stores through a device function's parameter
   * (sanitizer/written.ts). Weak: this sanitizer outlives the launch (it is reused), the maps must not.
   */
  private writtenMaps = new WeakMap<object, { map: Uint8Array; item: number }>();
  /** Current epoch (advances at every synchronisation and every block). */
  ep = 0;
  /** Epoch of the last block barrier (the block's first epoch before its first barrier). */
  bsync = 0;
  /** The current block's first epoch. */
  base = 0;
  /** Site slots S and epoch quantum Q (see Shadow). */
  S = 1;
  Q = CODES;
  /** `ep·Q`, `ep·Q + S`, `bsync·Q`, `base·Q`: what the emitted fast paths compare against. */
  E = 0;
  E1 = 1;
  BS = 0;
  EB = 0;
  /**
   * 1 once an undefined value was stored into shared memory in this block: from then on every shared
   * array's `UO` is current (all are cleared when this first happens; each block starts with 0). The
   * emitted code mirrors it in a local (`$ud`, reloaded after every synchronisation, shadow store and
   * device-function call): its reads look at `UO` only then, and its stores maintain it only then.
   */
  UD = 0;
  /** Epoch of each warp's last warp synchronisation. */
  private readonly wsync: Float64Array;
  private maxEpoch = 0;
  private bx = 0;
  private by = 0;
  private bz = 0;
  private sites: SimSite[] = [];
  /** Stop at uninitialised reads unless the runtime says otherwise (the complete checks' default). */
  private policy: UninitializedPolicy = { mode: "error", warn: () => {} };
  /** Use sites whose undefined value this run already reported as a warning (one report per site and run). */
  private readonly warnedSites = new Set<number>();

  constructor(
    private kernel: { name: string; file: string; line: number },
    private readonly bdx: number,
    private readonly bdy: number,
    private readonly bdz: number,
    /** Compaction threshold override (tests); by default the largest epoch whose values stay exact. */
    private readonly epochLimit = Infinity,
  ) {
    this.wsync = new Float64Array(Math.ceil((bdx * bdy * bdz) / 32) + 1);
    this.setSites([]);
  }

  /** Whether this sanitizer can serve another run with these block dimensions. */
  fits(bdx: number, bdy: number, bdz: number): boolean {
    return bdx === this.bdx && bdy === this.bdy && bdz === this.bdz;
  }

  /**
   * Prepares for another run of the kernel (its shared arrays are registered again), with the runtime's
   * uninitialised-read policy. The shadow arrays are kept: the epoch keeps counting, so everything in
   * them is from earlier blocks.
   */
  reuse(policy?: UninitializedPolicy): this {
    this.byArray.clear();
    this.writtenMaps = new WeakMap();
    this.warnedSites.clear();
    if (policy) this.policy = policy;
    return this;
  }

  register(id: number, array: ArrayLike<number>, name: string): void {
    const n = array.length;
    const old = this.shadows[id];
    if (!old || old.length !== n || old.name !== name) this.shadows[id] = { name, length: n, WP: new Float64Array(n), RP: new Float64Array(n), UO: originShadow(n) };
    this.byArray.set(array, id);
  }

  /** The module's site table, for "the other access was at line …"; fixes the encoding. Call before any access. */
  setSites(sites: SimSite[]): void {
    this.sites = sites;
    this.S = sites.length + 1;
    this.Q = CODES * this.S;
    this.maxEpoch = Math.min(this.epochLimit, Math.floor(Number.MAX_SAFE_INTEGER / this.Q) - 4);
    this.refresh();
  }

  private refresh(): void {
    this.E = this.ep * this.Q;
    this.E1 = this.E + this.S;
    this.BS = this.bsync * this.Q;
    this.EB = this.base * this.Q;
  }

  beginBlock(bx: number, by: number, bz: number): void {
    this.bx = bx;
    this.by = by;
    this.bz = bz;
    if (this.ep + 1 > this.maxEpoch / 2) {
      // Every entry belongs to an earlier block: start the numbering again.
      for (const s of this.shadows) {
        if (!s) continue;
        s.WP.fill(0);
        s.RP.fill(0);
      }
      this.wsync.fill(0);
      this.ep = 0;
    }
    this.ep++;
    this.base = this.bsync = this.ep;
    this.UD = 0;
    this.refresh();
  }

  /** The next epoch; when the numbering would run out within a block, compacts it first. */
  private advance(): number {
    if (this.ep + 1 > this.maxEpoch) this.compact();
    return ++this.ep;
  }

  /**
   * Renumbers the epochs of the current block order-preservingly onto small numbers. Epochs are only
   * ever compared (<, >, ===) with the block's base, the last barrier, the warps' last warp
   * synchronisations and the current epoch, so mapping each of those thresholds to an even number and
   * each gap between consecutive ones to the odd number in between keeps every answer.
   */
  compact(): void {
    const th = new Set<number>([this.base, this.bsync, this.ep]);
    for (const w of this.wsync) if (w >= this.base) th.add(w);
    const T = [...th].sort((a, b) => a - b);
    const f = (e: number): number => {
      if (e < this.base) return 0;
      let j = 0;
      while (j + 1 < T.length && T[j + 1]! <= e) j++;
      return e === T[j] ? 2 * j + 2 : 2 * j + 3;
    };
    const Q = this.Q;
    const remap = (a: Float64Array) => {
      for (let i = 0; i < a.length; i++) {
        const p = a[i]!;
        if (p < this.EB) a[i] = 0;
        else {
          const low = p % Q;
          a[i] = f((p - low) / Q) * Q + low;
        }
      }
    };
    for (const s of this.shadows) {
      if (!s) continue;
      remap(s.WP);
      remap(s.RP);
    }
    for (let w = 0; w < this.wsync.length; w++) this.wsync[w] = f(this.wsync[w]!);
    this.base = f(this.base);
    this.bsync = f(this.bsync);
    this.ep = f(this.ep);
    this.refresh();
  }

  private coords(t: number): [number, number, number] {
    const x = t % this.bdx;
    const q = (t / this.bdx) | 0;
    return [x, q % this.bdy, (q / this.bdy) | 0];
  }

  private ordered(u: number, e: number, t: number): boolean {
    if (u >> 5 === t >> 5) return Math.max(this.bsync, this.wsync[t >> 5]!) > e;
    return this.bsync > e;
  }

  /** Decodes a shadow value: [code, epoch, site], or undefined below `EB` (nothing in this block). */
  private decode(p: number): [number, number, number] | undefined {
    if (p < this.EB) return undefined;
    const site = p % this.S;
    const q = (p - site) / this.S;
    const code = q % CODES;
    return [code, (q - code) / CODES, site];
  }

  /** Last writer of element i in this block (-1 none), its epoch and site. */
  private writer(s: Shadow, i: number): [number, number, number] {
    const d = this.decode(s.WP[i]!);
    return d ? [d[0] - 1, d[1], d[2]] : [-1, 0, -1];
  }

  /** Reader of element i since its last write (-1 none, -2 several, else the thread), its epoch and site. */
  private reader(s: Shadow, i: number): [number, number, number] {
    const d = this.decode(s.RP[i]!);
    return d ? [d[0] - 2, d[1], d[2]] : [-1, 0, -1];
  }

  private fault(code: string, kind: FaultDetails["kind"], what: string, site: SimSite, t: number, array?: string, index?: number): KernelFault {
    const f = new KernelFault(code, kind, what, site, { array, index, threadSet: true });
    f.kernel = this.kernel.name;
    f.block = [this.bx, this.by, this.bz];
    f.thread = this.coords(t);
    return f;
  }

  /** A CSR021 finding; `other`: the single other thread of the race and its site, when there is one. */
  private raceFault(what: string, site: SimSite, t: number, s: Shadow, i: number, other?: { thread: number; site: number; access: string }): KernelFault {
    if (!other) return this.fault("CSR021", "race", what, site, t, s.name, i);
    const at = this.sites[other.site];
    const f = new RaceFault("CSR021", what, site, s.name, i, { block: [this.bx, this.by, this.bz], thread: this.coords(other.thread), access: other.access, file: at?.file, line: at?.line, col: at?.col });
    f.kernel = this.kernel.name;
    f.block = [this.bx, this.by, this.bz];
    f.thread = this.coords(t);
    return f;
  }

  private otherSite(s: number): string {
    const site = this.sites[s];
    return site ? ` (line ${site.line})` : "";
  }

  private t3(t: number): string {
    return `(${this.coords(t).join(", ")})`;
  }

  /** Shadow arrays of a shared array, for the emitted inline fast path. */
  shadow(id: number): Shadow {
    return this.shadows[id]!;
  }

  private siteId(site: SimSite | number): number {
    return typeof site === "number" ? site : 0;
  }

  /** Slow path of a read's writer check: this thread's own write, ordered by a (warp) synchronisation, or a fault. */
  rs(id: number, i: number, t: number, site: number): boolean {
    const s = this.shadows[id]!;
    const [w, we, ws] = this.writer(s, i);
    if (w === t || (w !== -1 && this.ordered(w, we, t))) return true;
    return this.readFault(s, i, t, site, w, ws);
  }

  /** Slow path of a read: record the reader. */
  rr(id: number, i: number, t: number, site: number): boolean {
    this.recordRead(this.shadows[id]!, i, t, site);
    return true;
  }

  r(id: number, i: number, t: number, site: SimSite | number): void {
    const s = this.shadows[id];
    if (!s) return;
    const [w, we, ws] = this.writer(s, i);
    if (w !== t && (w === -1 || !this.ordered(w, we, t))) this.readFault(s, i, t, site, w, ws);
    this.recordRead(s, i, t, site);
  }

  private recordRead(s: Shadow, i: number, t: number, site: SimSite | number): void {
    const [r, re] = this.reader(s, i);
    if (r === -2 && re === this.ep) return; // several already
    // Several readers before the last barrier are all ordered before this read: it is the only one now.
    const alone = r === -1 || r === t || (r >= 0 ? this.ordered(r, re, t) : this.bsync > re);
    s.RP[i] = this.E + (alone ? t + 2 : 0) * this.S + this.siteId(site);
  }

  /** A read that is not ordered after a write: a race (fault), or of an unwritten element (fault or warning; true: go on). */
  private readFault(s: Shadow, i: number, t: number, site: SimSite | number, w: number, ws: number): true {
    // A read of an element no thread of this block wrote is no finding by itself: its value is
    // undefined, which the emitted code tracks to where it matters (undefinedUse, CSR068).
    if (w === -1) return true;
    throw this.raceFault(
      `shared-memory race on '${sharedElementText(s.name, i)}': thread ${this.t3(t)} reads it after thread ${this.t3(w)} wrote it${this.otherSite(ws)} with no cuda.syncthreads() in between`,
      this.site(site),
      t,
      s,
      i,
      { thread: w, site: ws, access: "wrote it" },
    );
  }

  w(id: number, i: number, t: number, site: SimSite | number, differs: boolean): void {
    const s = this.shadows[id];
    if (!s) return;
    const [w, we, ws] = this.writer(s, i);
    if (w !== -1 && w !== t && differs && !this.ordered(w, we, t)) this.writeFault(s, i, t, site, w, ws, -1, -1);
    const [r, re, rsite] = this.reader(s, i);
    if (r !== -1 && r !== t && (r === -2 ? !(this.bsync > re) : !this.ordered(r, re, t))) this.writeFault(s, i, t, site, -1, -1, r, rsite);
    s.WP[i] = this.E + (t + 1) * this.S + this.siteId(site);
    s.RP[i] = 0;
    s.UO[i] = 0;
  }

  private writeFault(s: Shadow, i: number, t: number, site: SimSite | number, w: number, ws: number, r: number, rsite: number): never {
    const what =
      w !== -1
        ? `shared-memory race on '${sharedElementText(s.name, i)}': threads ${this.t3(w)}${this.otherSite(ws)} and ${this.t3(t)} write different values to it with no cuda.syncthreads() in between`
        : `shared-memory race on '${sharedElementText(s.name, i)}': thread ${this.t3(t)} writes it while ${r === -2 ? "other threads" : `thread ${this.t3(r)}`} read it${this.otherSite(rsite)} with no cuda.syncthreads() in between`;
    const other = w !== -1 ? { thread: w, site: ws, access: "wrote it" } : r >= 0 ? { thread: r, site: rsite, access: "read it" } : undefined;
    throw this.raceFault(what, this.site(site), t, s, i, other);
  }

  a(id: number, i: number, t: number, site: SimSite | number): void {
    const s = this.shadows[id];
    if (!s) return;
    if (s.WP[i]! < this.EB)
      throw this.fault("CSR023", "uninitialized-shared", `uninitialised shared memory update of '${sharedElementText(s.name, i)}': an atomic updates it, but no thread of this block wrote it before (initialise it and cuda.syncthreads() first)`, this.site(site), t, s.name, i);
    s.WP[i] = this.E + (t + 1) * this.S + this.siteId(site);
    s.RP[i] = 0;
    s.UO[i] = 0;
  }

  /** Origin (site + 1) of the undefined value element i of shared array `id` holds, 0 when defined; `site` is this read's. */
  uo(id: number, i: number, site: number): number {
    const s = this.shadows[id];
    if (!s) return 0;
    return s.WP[i]! < this.EB ? site + 1 : this.UD !== 0 ? s.UO[i]! : 0;
  }
  /** `uo` for a device function's array parameter: 0 unless it is a shared array of this kernel. */
  uop(a: unknown, i: number, site: number): number {
    const id = this.byArray.get(a);
    return id === undefined ? 0 : this.uo(id, i, site);
  }
  /** Element i of shared array `id` now holds a value of shadow `u` (0: defined). */
  uw(id: number, i: number, u: number): number {
    const s = this.shadows[id];
    if (!s) return this.UD;
    if (u !== 0 && this.UD === 0) {
      // The first undefined value stored into shared memory in this block: the origins become current.
      for (const o of this.shadows) o?.UO.fill(0);
      this.UD = 1;
    }
    s.UO[i] = u;
    return this.UD;
  }
  /** `uw` through a device function's array parameter; a global array there is where an undefined value matters. */
  uwp(a: unknown, i: number, u: number, use: number, t: number): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.uw(id, i, u);
    else if (u !== 0) this.undefinedUse(u - 1, use, t);
  }

  /** An undefined value (read at site `origin`) used where it matters, at site `use` by thread t: CSR068, an error or a warning. */
  undefinedUse(origin: number, use: number, t: number): void {
    const f = undefinedUseFault(this.sites[origin], this.site(use));
    f.kernel = this.kernel.name;
    f.block = [this.bx, this.by, this.bz];
    f.thread = this.coords(Math.min(t, this.bdx * this.bdy * this.bdz - 1));
    if (this.policy.mode === "error") throw f;
    if (this.warnedSites.has(use)) return;
    this.warnedSites.add(use);
    this.policy.warn(f);
  }

  /** A kernel's global array `a` whose stores mark `map` (element i: byte i; `item` is kept for the emitted call's sake). */
  registerWritten(a: unknown, map: Uint8Array | null, item: number): void {
    if (map) this.writtenMaps.set(a as object, { map, item });
  }
  private markWritten(a: unknown, i: number): void {
    const w = this.writtenMaps.get(a as object);
    if (w) w.map[i] = 1;
  }

  rp(a: unknown, i: number, t: number, site: SimSite | number): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.r(id, i, t, site);
  }
  wp(a: unknown, i: number, t: number, site: SimSite | number, differs: boolean): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.w(id, i, t, site, differs);
    else this.markWritten(a, i);
  }
  ap(a: unknown, i: number, t: number, site: SimSite | number): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.a(id, i, t, site);
    else this.markWritten(a, i);
  }

  private site(s: SimSite | number): SimSite {
    return typeof s === "number" ? (this.sites[s] ?? { kind: "read", fn: this.kernel.name, file: this.kernel.file, line: this.kernel.line, col: 1 }) : s;
  }

  barrier(site: SimSite, st: Int32Array, nT: number): void {
    let arrived = -1, missing = -1;
    for (let u = 0; u < nT; u++) {
      const s = st[u]!;
      if (s === 0) {
        if (arrived < 0) arrived = u;
      } else if (s !== 1 && missing < 0) missing = u;
    }
    if (missing >= 0 && arrived >= 0) {
      const op = site.op ?? "syncthreads";
      throw this.fault(
        "CSR022",
        "divergent-barrier",
        `divergent barrier: thread ${this.t3(arrived)} reached cuda.${op}() but thread ${this.t3(missing)} of the same block did not (it took another branch, left a loop early, or returned from a device function); every thread that has not exited must reach the same barrier`,
        site,
        arrived,
      );
    }
    // A barrier inside divergent code that no thread reached (every one took the other branch) is no
    // barrier: it orders nothing.
    if (arrived >= 0) this.sync();
  }

  /**
   * `g.sync()` that some thread of the block reached (grid-sync.ts): every thread of the grid must reach
   * it — unlike a block barrier, a thread that returned earlier counts as missing, since cooperative
   * groups' grid sync is only defined when all threads call it.
   */
  gridBarrier(site: SimSite, st: Int32Array, nT: number): void {
    let arrived = -1, missing = -1;
    for (let u = 0; u < nT; u++) {
      if (st[u] === 0) {
        if (arrived < 0) arrived = u;
      } else if (missing < 0) missing = u;
    }
    if (missing >= 0 && arrived >= 0)
      throw this.fault(
        "CSR035",
        "divergent-grid-barrier",
        `divergent grid barrier: thread ${this.t3(arrived)} reached g.sync() but thread ${this.t3(missing)} of the same block did not (it returned, took another branch or left a loop early); every thread of the grid must reach the same g.sync(): put the condition around the work, not around g.sync()`,
        site,
        arrived,
      );
  }

  /** The kernel name faults report (a cooperative block's sanitizer is cached under another key). */
  named(name: string): this {
    this.kernel = { ...this.kernel, name };
    return this;
  }

  /** A barrier every running thread reached (outside divergent code, by construction). */
  sync(): void {
    this.bsync = this.advance();
    this.refresh();
  }

  warpSync(w: number): void {
    this.wsync[w >> 5] = this.advance();
    this.refresh();
  }

  warpMask(site: SimSite, w: number, e: number, active: number, mask: number, u: number): void {
    const n = e - w;
    const exist = n >= 32 ? -1 : (1 << n) - 1;
    const missing = mask & exist & ~active;
    if (missing !== 0) {
      const lane = 31 - Math.clz32(missing & -missing);
      throw this.fault(
        "CSR025",
        "divergent-warp",
        `divergent warp operation: lane ${u - w} called cuda.${site.op ?? "warp op"}() with mask 0x${(mask >>> 0).toString(16)}, but lane ${lane} (thread ${this.t3(w + lane)}) named in the mask did not reach it`,
        site,
        u,
      );
    }
  }
}
