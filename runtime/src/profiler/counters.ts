/**
 * The counters of one profiled launch: what the profiling variant's hooks (compiler/src/js/emit/
 * profile.ts) call, and the per-site totals they add up to (docs/profiling.md has the definitions).
 *
 * The simulator does not run a warp's lanes in lockstep, and does not need to: a request is
 * (warp, site, k), k counting each lane's executions of the site since the launch. So each thread keeps
 * a counter per site (`kCount`), and the k-th request of a (site, warp) gathers what its lanes touch —
 * distinct 32-byte sectors of global memory, distinct shared words with their bank, a condition's
 * outcomes — until the block is done (a lane's k-th execution may come in a later piece of a kernel
 * with barriers). Then the block's requests are added to the site's totals and dropped
 * (request-stats.ts counts them).
 *
 * A kernel without barriers runs each thread to its end in linear order, so there the lanes' first
 * executions of a site arrive one after another and need neither the per-thread counter nor the pool:
 * each site streams them into one open request per site (see `st`), which a thread's later
 * executions (loops) leave to the pool.
 */

/**
 * A counted site of a profiling module (its `$psites`, written by compiler/src/js/emit/profile.ts, whose
 * ProfileSite this mirrors: declared here so that the runtime's public types do not reach the compiler's).
 */
export interface ProfileSite {
  /** gld/gst/gatom: global load, store, atomic; sld/sst/satom: shared; br: a condition. */
  readonly kind: "gld" | "gst" | "gatom" | "sld" | "sst" | "satom" | "br";
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** Source offsets of the access or condition. */
  readonly start: number;
  readonly end: number;
  /** Bytes per lane of an access. */
  readonly bytes?: number;
  readonly array?: string;
  readonly what?: "if" | "loop" | "?:" | "&&" | "||";
  readonly op?: string;
  /** Of a recorded bulk site: its row in `recorded`. */
  readonly rec?: number;
}

/**
 * The requests being gathered live in typed arrays (a pool reused from block to block; no object per
 * request): request `r` has `lanes[r]` active lanes, `taken[r]` lanes for which a condition was true, and
 * `count[r]` units at `units[start[r] …]`, one per lane (a repeat of the previous lane's left out) —
 * sectors (global loads/stores), byte addresses (atomics), group·2³² + word (shared).
 */
/** Per-site totals of a launch. */
export interface SiteTotals {
  /** Warp-level requests (branches: warp-level executions of the condition). */
  requests: number;
  /** Sectors (global), wavefronts (shared), divergent executions (branches). */
  units: number;
  /** Lanes over all requests. */
  lanes: number;
  /** Global: the fewest sectors the requests' lanes could have touched (ceil(lanes · bytes / 32) each). */
  ideal: number;
  /** Atomics: the sum over requests of the most lanes updating one address, and its maximum. */
  contentionSum: number;
  contentionMax: number;
}

const TWO32 = 2 ** 32;
/** Open requests past which a kernel without barriers adds up its warps as they end (see perWarp). */
const POOL_LIMIT = 1 << 16;
/** Per-site tables of a module's sites for a kind of kernel (LaunchCounters.begin), never written. */
interface SiteTables {
  readonly kinds: readonly string[];
  readonly bytes: Int32Array<ArrayBuffer>;
  /** Units a request may need (32 lanes × words per lane; 0 for branches). */
  readonly capacity: Int32Array<ArrayBuffer>;
  /** 1: logged (a kernel with barriers), see LaunchCounters.logs. */
  readonly logged: Uint8Array<ArrayBuffer>;
  /** The initial stream numbers (copied per launch). */
  readonly st: Int32Array<ArrayBuffer>;
  /** Rows of the recorded bulk sites' buffer. */
  readonly recordedRows: number;
}
const siteTablesOf = new WeakMap<readonly ProfileSite[], { plain?: SiteTables; barriers?: SiteTables }>();

function siteTables(sites: readonly ProfileSite[], plain: boolean): SiteTables {
  let both = siteTablesOf.get(sites);
  if (!both) siteTablesOf.set(sites, (both = {}));
  const known = plain ? both.plain : both.barriers;
  if (known) return known;
  // 8- and 16-byte shared accesses record more than one unit a lane: neither streamed nor logged (the pool).
  const wide = (s: ProfileSite) => (s.kind === "sld" || s.kind === "sst") && (s.bytes ?? 4) > 4;
  const st = new Int32Array(sites.length * 8);
  sites.forEach((s, i) => {
    st[i * 8 + ST_THREAD] = -1;
    st[i * 8 + ST_WARP] = -1;
    st[i * 8 + ST_ON] = plain && !wide(s) ? 1 : 0;
  });
  const t: SiteTables = {
    kinds: sites.map((s) => s.kind),
    bytes: Int32Array.from(sites, (s) => s.bytes ?? 4),
    capacity: Int32Array.from(sites, (s) => (s.kind === "br" ? 0 : s.kind === "sld" || s.kind === "sst" ? 32 * Math.max(1, (s.bytes ?? 4) / 4) : 32)),
    logged: Uint8Array.from(sites, (s) => (!plain && !wide(s) ? 1 : 0)),
    st,
    recordedRows: sites.reduce((m, x) => Math.max(m, x.rec === undefined ? 0 : x.rec + 1), 0),
  };
  if (plain) both.plain = t;
  else both.barriers = t;
  return t;
}

/** A slot's pool requests and log before its first (shared, never written: grown on first use). */
const EMPTY_IDS = new Int32Array(0);
const EMPTY_LOG = new Float64Array(0);
/** A site's stream numbers (LaunchCounters.st). */
const ST_THREAD = 0, ST_LATER = 1, ST_WARP = 2, ST_LANES = 3, ST_TAKEN = 4, ST_COUNT = 5, ST_RISING = 6, ST_ON = 7;

import { addRequest, addRows } from "./request-stats";
import { BulkCounter, SCRATCH } from "./bulk";

/**
 * Base addresses of memory the launch's arguments do not name (a device function's view of another
 * buffer): modelled, each buffer on a 256-byte boundary, as cudaMalloc's allocations are. A kernel's
 * arguments use their device addresses (simulator/address-space.ts, also 256-byte aligned); a view
 * adds its byte offset. Only distinctness and alignment matter for the counts.
 */
const bases = new WeakMap<ArrayBufferLike, number>();
let nextBase = 1 << 20;
function bufferBase(buffer: ArrayBufferLike): number {
  let b = bases.get(buffer);
  if (b === undefined) {
    b = nextBase;
    nextBase += Math.ceil(Math.max(buffer.byteLength, 1) / 256) * 256 + 256;
    bases.set(buffer, b);
  }
  return b;
}

export class LaunchCounters {
  sites: readonly ProfileSite[] = [];
  totals: SiteTotals[] = [];
  flopsSingle = 0;
  flopsDouble = 0;
  private nT = 0;
  /** Read by the kernels' inline counting (emit/profile.ts), as are kCount, st, sUnits, logs, rows, streamWarp and openRow. */
  nW = 0;
  /** Per (site, thread of the block): how many times the thread executed the site in this block. */
  kCount = new Int32Array(0);
  /** Per (site, warp) slot: how many requests are open, and the pool index of each (by k). */
  private used = new Int32Array(0);
  private slotReq: Int32Array[] = [];
  private touched: number[] = [];
  /** Counted loops' slots used in this block (bl: per-thread evaluation counts in kCount). */
  private loopSlots: number[] = [];
  private loopSeen = new Uint8Array(0);
  /** The request pool: see above. */
  private poolUsed = 0;
  private unitsUsed = 0;
  private lanes = new Int32Array(256);
  private taken = new Int32Array(256);
  private count = new Int32Array(256);
  private start = new Int32Array(256);
  /** 1 while a request's units are strictly increasing (what flush can count without a table). */
  private rising = new Uint8Array(256);
  private units = new Float64Array(0);
  private kinds: readonly string[] = [];
  /** Per site: units a request may need (32 lanes × words per lane; 0 for branches). */
  private capacity = new Int32Array(0);
  private bytes = new Int32Array(0);
  /** Per site: the last array seen and its base address (a site nearly always sees one array per launch). */
  private lastArray: unknown[] = [];
  private lastBase = new Float64Array(0);
  private started = false;
  private readonly bankCount = new Int32Array(4 * 32);
  private readonly table = SCRATCH.table;

  /**
   * A kernel without barriers runs each thread to its end, in linear order: a warp's requests are
   * complete when the next warp starts. Requests are normally added up per block; once a block's pool
   * passes POOL_LIMIT (long loops), such a kernel's are added up when the next warp starts, so memory
   * stays bounded. With barriers, a lane's next execution may come after other warps ran: requests
   * wait for the end of the block.
   */
  private perWarp = false;
  /** The pool passed POOL_LIMIT during warp `fullWarp`: add up when another warp starts. */
  private full = false;
  private fullWarp = -1;

  /**
   * Streams: in a plain kernel each thread runs to its end, in linear order, so the lanes' first
   * executions of a site (k = 0: nearly every access of such a kernel) arrive lane after lane, one
   * warp after another. Their request is kept per site, in place (no pool, no per-thread counter), and
   * added up when the site's next warp starts or the block ends. Branches, global loads and stores, and
   * shared accesses of up to 4 bytes stream; a thread's later executions (a loop) go to the pool.
   */
  /**
   * Per site, 8 numbers (one cache line, read together): ST_THREAD the thread of the block that executed
   * it last (-1: none yet), ST_LATER how many times it has since, ST_WARP the warp of its open request
   * (-1: none), ST_LANES, ST_TAKEN, ST_COUNT (units in sUnits, 32 a site), ST_RISING, ST_ON (1: streamed).
   */
  st = new Int32Array(0);
  sUnits = new Float64Array(0);
  /** The sites with an open stream request. */
  private sOpen: number[] = [];

  /**
   * Logs: in a kernel with barriers, a (site, warp) slot's requests are rows of 32 units, one per lane
   * (NaN: the lane took no part), request k in row k — so an access is one store at the thread's k, and
   * the rows are counted when the block ends (flush). Every site but 8- and 16-byte shared accesses
   * (more than one unit a lane: the pool) is logged in such a kernel. A branch logs 1 or 0.
   */
  private logged = new Uint8Array(0);
  logs: Float64Array[] = [];
  /** Per slot: rows in use (the most executions of the site by one of the warp's threads, this block). */
  rows = new Int32Array(0);
  private logTouched: number[] = [];
  private readonly row = SCRATCH.row;

  /** The bulk sites' counts (bulk.ts). */
  private bulkSites: BulkCounter | undefined;
  /** Recorded bulk sites: per (row, thread of the block) the element index the thread accessed (bulk.ts bt). */
  recorded = new Int32Array(0);

  /** The kernel function starts (once per launch in one executor); `plain`: a kernel without barriers. */
  begin(sites: readonly ProfileSite[], threadsPerBlock: number, plain = false, bdx = threadsPerBlock, bdy = 1): void {
    if (this.started) return;
    this.started = true;
    this.perWarp = plain;
    this.sites = sites;
    this.nT = threadsPerBlock;
    this.nW = Math.ceil(threadsPerBlock / 32);
    this.kCount = new Int32Array(sites.length * threadsPerBlock);
    this.used = new Int32Array(sites.length * this.nW);
    this.loopSeen = new Uint8Array(sites.length * this.nW);
    // Made on first use (most slots of a module's sites never see a pooled or logged request).
    this.slotReq = new Array<Int32Array>(sites.length * this.nW).fill(EMPTY_IDS);
    const n = sites.length;
    // What each site is, worked out once per module (its `$psites`) and kind of kernel.
    const tables = siteTables(sites, plain);
    this.kinds = tables.kinds;
    this.logged = tables.logged;
    this.logs = new Array<Float64Array>(sites.length * this.nW).fill(EMPTY_LOG);
    this.rows = new Int32Array(sites.length * this.nW);
    this.st = tables.st.slice();
    this.sUnits = new Float64Array(n * 32);
    this.bytes = tables.bytes;
    this.capacity = tables.capacity;
    this.lastArray = new Array<unknown>(n).fill(null);
    this.lastBase = new Float64Array(sites.length);
    this.totals = sites.map(() => ({ requests: 0, units: 0, lanes: 0, ideal: 0, contentionSum: 0, contentionMax: 0 }));
    const rows = tables.recordedRows;
    // Element indices of arrays (below 2^31: an Int32Array, whose loads need no conversion).
    this.recorded = new Int32Array(rows * threadsPerBlock);
    this.bulkSites = new BulkCounter(this.totals, this.kinds, this.bytes, threadsPerBlock, bdx, bdy, plain, this.recorded);
  }

  // The hooks only append a lane's unit (skipping a repeat of the previous lane's, the common case, and
  // noting whether the units still rise); duplicates are removed, and atomics' lanes per address
  // counted, once per request when it is done (flush, request-stats.ts): nothing to do for rising
  // units, else a pass through a small table instead of a search per lane.

  /** `addresses`: the device address of each argument's memory (else a modelled 256-byte-aligned one). */
  constructor(private readonly addresses?: ReadonlyMap<ArrayBufferLike, number>) {}

  /** The device address of element 0 of a kernel's array parameter (its setup asks once per launch). */
  addr(data: ArrayBufferView): number {
    return (this.addresses?.get(data.buffer) ?? bufferBase(data.buffer)) + data.byteOffset;
  }

  /** Thread `t` of the block loads or stores element `flat` of the global array at `base`, at site `s`. */
  g(s: number, t: number, base: number, flat: number): void {
    // Kept small, so that the kernel inlines it: the stream's common case here, the rest in calls. The
    // sector is computed in the callee: device addresses pass 2^31, and a number that is not a small
    // integer would be boxed (allocated) on its way into a call that is not inlined.
    const st = this.st, o = s * 8;
    if (st[o + ST_ON] === 1 && st[o + ST_THREAD] !== t) return this.streamSector(st, o, s, t, base, flat);
    if (this.logged[s] === 1) return this.logSector(s, t, base, flat);
    this.pooledSector(s, t, base, flat);
  }

  /** A logged global access (the sector computed here, see g). */
  private logSector(s: number, t: number, base: number, flat: number): void {
    const ki = s * this.nT + t, k = this.kCount[ki]!;
    this.kCount[ki] = k + 1;
    const slot = s * this.nW + (t >> 5);
    const log = k < this.rows[slot]! ? this.logs[slot]! : this.openRow(slot, k);
    log[k * 32 + (t & 31)] = Math.floor((base + flat * this.bytes[s]!) / 32);
  }

  /** A logged unit that is a small integer (a shared word, a branch's outcome). */
  private logUnit(s: number, t: number, unit: number): void {
    const ki = s * this.nT + t, k = this.kCount[ki]!;
    this.kCount[ki] = k + 1;
    const slot = s * this.nW + (t >> 5);
    const log = k < this.rows[slot]! ? this.logs[slot]! : this.openRow(slot, k);
    log[k * 32 + (t & 31)] = unit;
  }

  /** A logged global atomic (its byte address computed here, see g). */
  private logAtomicAt(s: number, t: number, base: number, flat: number): void {
    const ki = s * this.nT + t, k = this.kCount[ki]!;
    this.kCount[ki] = k + 1;
    const slot = s * this.nW + (t >> 5);
    const log = k < this.rows[slot]! ? this.logs[slot]! : this.openRow(slot, k);
    log[k * 32 + (t & 31)] = base + flat * this.bytes[s]!;
  }

  /** Opens row k of a slot's log (a lane's k-th execution follows its (k-1)-th: k is the rows in use). */
  openRow(slot: number, k: number): Float64Array {
    if (k === 0) this.logTouched.push(slot);
    let log = this.logs[slot]!;
    if ((k + 1) * 32 > log.length) {
      const grown = new Float64Array(Math.max(4 * 32, log.length * 2));
      grown.set(log);
      this.logs[slot] = log = grown;
    }
    log.fill(NaN, k * 32, (k + 1) * 32);
    this.rows[slot] = k + 1;
    return log;
  }

  /** Adds up a slot's logged requests (flush) and empties its log. */
  private countLog(slot: number): void {
    const s = Math.floor(slot / this.nW);
    addRows(this.totals[s]!, this.kinds[s]!, this.bytes[s]!, this.logs[slot]!, this.rows[slot]!, this.row, this.table, this.bankCount);
    this.rows[slot] = 0;
    const first = s * this.nT + (slot - s * this.nW) * 32;
    this.kCount.fill(0, first, Math.min(first + 32, (s + 1) * this.nT));
  }

  /** streamUnit for a global access (its body repeated: the sector must not cross a call, see g). */
  private streamSector(st: Int32Array, o: number, s: number, t: number, base: number, flat: number): void {
    st[o + ST_THREAD] = t;
    st[o + ST_LATER] = 0;
    if (st[o + ST_WARP] !== t >> 5) this.streamWarp(s, t >> 5);
    st[o + ST_LANES]++;
    const unit = Math.floor((base + flat * this.bytes[s]!) / 32);
    const n = st[o + ST_COUNT]!, at = s * 32 + n;
    if (n > 0) {
      const last = this.sUnits[at - 1]!;
      if (last === unit) return;
      if (unit < last) st[o + ST_RISING] = 0;
    }
    this.sUnits[at] = unit;
    st[o + ST_COUNT] = n + 1;
  }

  private pooledSector(s: number, t: number, base: number, flat: number): void {
    const r = this.request(s, t);
    this.lanes[r]++;
    this.append(r, Math.floor((base + flat * this.bytes[s]!) / 32));
  }

  /** The same from a device function, whose arrays vary: `data` itself. */
  gv(s: number, t: number, data: ArrayBufferView, flat: number): void {
    this.g(s, t, this.base(s, data), flat);
  }

  /** A global atomic: its lanes' byte addresses (every lane: flush counts the lanes per address). */
  ga(s: number, t: number, base: number, flat: number): void {
    const st = this.st, o = s * 8;
    if (st[o + ST_ON] === 1 && st[o + ST_THREAD] !== t) return this.streamAtomicAt(st, o, s, t, base, flat);
    if (this.logged[s] === 1) return this.logAtomicAt(s, t, base, flat);
    this.pooledAtomic(s, t, base + flat * this.bytes[s]!);
  }

  /** streamAtomic for a global atomic (the address must not cross a call, see g). */
  private streamAtomicAt(st: Int32Array, o: number, s: number, t: number, base: number, flat: number): void {
    st[o + ST_THREAD] = t;
    st[o + ST_LATER] = 0;
    if (st[o + ST_WARP] !== t >> 5) this.streamWarp(s, t >> 5);
    st[o + ST_LANES]++;
    this.sUnits[s * 32 + st[o + ST_COUNT]!++] = base + flat * this.bytes[s]!;
  }

  private pooledAtomic(s: number, t: number, unit: number): void {
    const r = this.request(s, t);
    this.lanes[r]++;
    this.units[this.start[r]! + this.count[r]!++] = unit;
  }

  gav(s: number, t: number, data: ArrayBufferView, flat: number): void {
    this.ga(s, t, this.base(s, data), flat);
  }

  /**
   * A shared access: words of 4 bytes, bank = word mod 32. 8- and 16-byte accesses are served per
   * half-warp / quarter-warp (the group in the high part of the unit), each lane's words in turn.
   */
  s(s: number, t: number, flat: number): void {
    const st = this.st, o = s * 8;
    if (st[o + ST_ON] === 1 && st[o + ST_THREAD] !== t) return this.streamUnit(st, o, s, t, Math.floor((flat * this.bytes[s]!) / 4));
    if (this.logged[s] === 1) return this.logUnit(s, t, Math.floor((flat * this.bytes[s]!) / 4));
    const r = this.request(s, t);
    this.lanes[r]++;
    const bytes = this.bytes[s]!;
    // Every shared array starts at byte 0 of its storage (emit/profile.ts), at bank 0.
    const word = Math.floor((flat * bytes) / 4);
    if (bytes <= 4) return this.append(r, word);
    const group = bytes === 8 ? (t & 31) >> 4 : (t & 31) >> 3;
    this.rising[r] = 0;
    for (let w = 0; w < bytes / 4; w++) this.units[this.start[r]! + this.count[r]!++] = group * TWO32 + word + w;
  }

  /** A shared atomic (4-byte words; every lane: flush counts the lanes per word). */
  sa(s: number, t: number, flat: number): void {
    const word = Math.floor((flat * this.bytes[s]!) / 4);
    const st = this.st, o = s * 8;
    if (st[o + ST_ON] === 1 && st[o + ST_THREAD] !== t) return this.streamAtomic(st, o, s, t, word);
    if (this.logged[s] === 1) return this.logUnit(s, t, word);
    this.pooledAtomic(s, t, word);
  }

  private append(r: number, unit: number): void {
    const n = this.count[r]!, at = this.start[r]! + n;
    if (n > 0) {
      const last = this.units[at - 1]!;
      if (last === unit) return;
      if (unit < last) this.rising[r] = 0;
    }
    this.units[at] = unit;
    this.count[r] = n + 1;
  }

  /** The modelled address of element 0 of `data` (cached per site: a site nearly always sees one array per launch). */
  private base(s: number, data: ArrayBufferView): number {
    if (this.lastArray[s] === data) return this.lastBase[s]!;
    const b = this.addr(data);
    this.lastArray[s] = data;
    this.lastBase[s] = b;
    return b;
  }

  /** Thread `t` evaluates the condition of site `s`: `c`. */
  b<T>(s: number, t: number, c: T): T {
    const st = this.st, o = s * 8;
    if (st[o + ST_ON] === 1 && st[o + ST_THREAD] !== t) {
      st[o + ST_THREAD] = t;
      st[o + ST_LATER] = 0;
      if (st[o + ST_WARP] !== t >> 5) this.streamWarp(s, t >> 5);
      st[o + ST_LANES]++;
      if (c) st[o + ST_TAKEN]++;
      return c;
    }
    if (this.logged[s] === 1) {
      this.logUnit(s, t, c ? 1 : 0);
      return c;
    }
    const r = this.request(s, t);
    this.lanes[r]++;
    if (c) this.taken[r]++;
    return c;
  }

  /**
   * `if (lo <= threadIdx.x < hi)` evaluated by every thread of the block at once (a fission piece that
   * loops only over the passing threads: emit/profile.ts profileRangeCount): one complete request per
   * warp, divergent where the warp has lanes on both sides.
   */
  bulk(s: number, lo: number, hi: number, _bdx: number): void {
    // (`_bdx`: the launch's, which the counters already have.)
    this.bulkSites!.rangeBranch(s, lo, hi);
  }


  /**
   * Thread `t` enters a counted loop whose test it evaluates `n` times (emit/profile.ts
   * profileCountedLoop): its lanes' k-th evaluations agree, so a warp's branches are the most
   * evaluations of one of its lanes, none divergent (added up at flush).
   */
  bl(s: number, t: number, n: number): void {
    this.kCount[s * this.nT + t] += n;
    const slot = s * this.nW + (t >> 5);
    if (this.loopSeen[slot] === 0) {
      this.loopSeen[slot] = 1;
      this.loopSlots.push(slot);
    }
  }

  /** A block-level (block-uniform) condition: one branch per warp of the block, none divergent. */
  u(s: number): void {
    const tot = this.totals[s]!;
    tot.requests += this.nW;
    tot.lanes += this.nT;
  }

  /** A bulk site (compiler/src/js/emit/profile-bulk.ts): bulk.ts counts it. */
  ba(s: number, lo: number, hi: number, base: number, c: number, x: number, y: number, z: number, n: number, kStep: number): void {
    this.bulkSites!.ba(s, lo, hi, base, c, x, y, z, n, kStep);
  }

  /** A recorded bulk site (compiler/src/js/emit/profile-bulk.ts): bulk.ts counts it from `recorded` row `rec`. */
  bt(s: number, lo: number, hi: number, base: number, rec: number): void {
    this.bulkSites!.bt(s, lo, hi, base, rec);
  }

  /** A block starts: the previous block's requests are complete. */
  block(): void {
    if (this.sOpen.length) this.closeStreams();
    if (this.touched.length || this.loopSlots.length || this.logTouched.length) this.flush();
    if (this.bulkSites?.pending) this.bulkSites.blockDone();
  }

  /** The kernel function's blocks are done (or it faulted): the last block's requests, and the FLOPs. */
  end(flopsSingle: number, flopsDouble: number): void {
    if (this.sOpen.length) this.closeStreams();
    if (this.touched.length || this.loopSlots.length || this.logTouched.length) this.flush();
    if (this.bulkSites?.pending) this.bulkSites.blockDone();
    this.flopsSingle += flopsSingle;
    this.flopsDouble += flopsDouble;
  }

  /**
   * Thread `t`'s first execution of streamed site `s` (a plain kernel; `o` = s · 8, where its numbers
   * start in `st`): one more lane of the site's open request, and its unit (a repeat of the previous
   * lane's left out, as append does).
   */
  private streamUnit(st: Int32Array, o: number, s: number, t: number, unit: number): void {
    st[o + ST_THREAD] = t;
    st[o + ST_LATER] = 0;
    if (st[o + ST_WARP] !== t >> 5) this.streamWarp(s, t >> 5);
    st[o + ST_LANES]++;
    const n = st[o + ST_COUNT]!, at = s * 32 + n;
    if (n > 0) {
      const last = this.sUnits[at - 1]!;
      if (last === unit) return;
      if (unit < last) st[o + ST_RISING] = 0;
    }
    this.sUnits[at] = unit;
    st[o + ST_COUNT] = n + 1;
  }

  /** The same for an atomic: every lane's unit (flush counts the lanes per address). */
  private streamAtomic(st: Int32Array, o: number, s: number, t: number, unit: number): void {
    st[o + ST_THREAD] = t;
    st[o + ST_LATER] = 0;
    if (st[o + ST_WARP] !== t >> 5) this.streamWarp(s, t >> 5);
    st[o + ST_LANES]++;
    this.sUnits[s * 32 + st[o + ST_COUNT]!++] = unit;
  }

  /** Warp `w` reaches streamed site `s`: the previous warp's request there is complete; a new one opens. */
  streamWarp(s: number, w: number): void {
    const st = this.st, o = s * 8;
    if (st[o + ST_WARP]! >= 0) this.closeStream(s);
    else this.sOpen.push(s);
    st[o + ST_WARP] = w;
    st[o + ST_LANES] = 0;
    st[o + ST_TAKEN] = 0;
    st[o + ST_COUNT] = 0;
    st[o + ST_RISING] = 1;
  }

  /** Adds site `s`'s open stream request to its totals (as flush does a pooled one). */
  private closeStream(s: number): void {
    const st = this.st, o = s * 8;
    addRequest(this.totals[s]!, this.kinds[s]!, this.bytes[s]!, st[o + ST_LANES]!, st[o + ST_TAKEN]!, this.sUnits, s * 32, st[o + ST_COUNT]!, st[o + ST_RISING] === 1, this.table, this.bankCount);
  }

  /** The block ends: every open stream request is complete, and the next block's threads start anew. */
  private closeStreams(): void {
    const st = this.st;
    for (const s of this.sOpen) {
      this.closeStream(s);
      st[s * 8 + ST_WARP] = -1;
    }
    this.sOpen.length = 0;
    for (let o = 0; o < st.length; o += 8) st[o + ST_THREAD] = -1;
  }

  /** The pool index of thread `t`'s next request at site `s`. */
  private request(s: number, t: number): number {
    if (this.full && t >> 5 !== this.fullWarp) this.flush();
    let k: number;
    if (this.st[s * 8 + ST_ON] === 1) {
      // A streamed site's later execution by the thread that ran it last (plain kernel: the same thread):
      // its k-th execution (k ≥ 1) is the pool's request k − 1 of the slot (the first is the stream's).
      k = this.st[s * 8 + ST_LATER]!;
      this.st[s * 8 + ST_LATER] = k + 1;
    } else {
      const ki = s * this.nT + t;
      k = this.kCount[ki]!;
      this.kCount[ki] = k + 1;
    }
    const slot = s * this.nW + (t >> 5);
    // A lane's k-th execution follows its (k-1)-th: k is at most the number of requests open.
    if (k < this.used[slot]!) return this.slotReq[slot]![k]!;
    const r = this.open(s, slot, k);
    if (this.perWarp && !this.full && this.poolUsed > POOL_LIMIT) {
      this.full = true;
      this.fullWarp = t >> 5;
    }
    return r;
  }

  /** Opens request k of a slot. */
  private open(s: number, slot: number, k: number): number {
    if (k === 0) this.touched.push(slot);
    this.used[slot] = k + 1;
    let ids = this.slotReq[slot]!;
    if (k >= ids.length) {
      const grown = new Int32Array(Math.max(4, ids.length * 2));
      grown.set(ids);
      this.slotReq[slot] = ids = grown;
    }
    const r = this.poolUsed++;
    const cap = this.capacity[s]!;
    if (r >= this.lanes.length) {
      const grow = <T extends Int32Array | Float64Array>(a: T, n: number): T => {
        const b = new (a.constructor as new (n: number) => T)(n);
        b.set(a);
        return b;
      };
      const n = this.lanes.length * 2;
      this.lanes = grow(this.lanes, n);
      this.taken = grow(this.taken, n);
      this.count = grow(this.count, n);
      this.start = grow(this.start, n);
      const rising = new Uint8Array(n);
      rising.set(this.rising);
      this.rising = rising;
    }
    if (this.unitsUsed + cap > this.units.length) {
      const n = Math.max(this.units.length * 2, this.unitsUsed + cap);
      const u = new Float64Array(n);
      u.set(this.units);
      this.units = u;
    }
    this.lanes[r] = 0;
    this.taken[r] = 0;
    this.count[r] = 0;
    this.start[r] = this.unitsUsed;
    this.rising[r] = 1;
    this.unitsUsed += cap;
    ids[k] = r;
    return r;
  }

  private flush(): void {
    for (const slot of this.loopSlots) {
      const s = Math.floor(slot / this.nW);
      const first = s * this.nT + (slot - s * this.nW) * 32, end = Math.min(first + 32, (s + 1) * this.nT);
      let most = 0, sum = 0;
      for (let i = first; i < end; i++) {
        const k = this.kCount[i]!;
        sum += k;
        if (k > most) most = k;
        this.kCount[i] = 0;
      }
      const tot = this.totals[s]!;
      tot.requests += most;
      tot.lanes += sum;
      this.loopSeen[slot] = 0;
    }
    this.loopSlots.length = 0;
    for (const slot of this.touched) {
      const s = Math.floor(slot / this.nW);
      const ids = this.slotReq[slot]!;
      const n = this.used[slot]!;
      this.used[slot] = 0;
      // The warp's per-thread counters of this site (only the sites the block used are cleared).
      const first = s * this.nT + (slot - s * this.nW) * 32;
      this.kCount.fill(0, first, Math.min(first + 32, (s + 1) * this.nT));
      const tot = this.totals[s]!;
      const kind = this.kinds[s]!;
      const bytes = this.bytes[s]!;
      for (let i = 0; i < n; i++) {
        const r = ids[i]!;
        addRequest(tot, kind, bytes, this.lanes[r]!, this.taken[r]!, this.units, this.start[r]!, this.count[r]!, this.rising[r] === 1, this.table, this.bankCount);
      }
    }
    this.touched.length = 0;
    for (const slot of this.logTouched) this.countLog(slot);
    this.logTouched.length = 0;
    this.poolUsed = 0;
    this.unitsUsed = 0;
    this.full = false;
  }
}
