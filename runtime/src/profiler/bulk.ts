/**
 * Bulk sites (compiler/src/js/emit/profile-bulk.ts; docs/profiling.md#cost): an access every thread
 * of the block with `lo <= threadIdx.x < hi` executes `n` times, the j-th at element
 * `c + x·tx + y·ty + z·tz + kStep·j` — counted here once per block (or piece), warp by warp, without a
 * hook per thread.
 *
 * The counts are those of counters.ts's per-thread definition (a request is the k-th execution of a
 * site by the active lanes of a warp): while every lane of a warp has executed a site equally often,
 * a warp's requests are complete when formed, and a warp whose lanes are consecutive threads of one
 * row has its units in closed form (request-stats.ts arithmeticUnits). A warp some of whose lanes
 * skipped a piece ("mixed": a shrinking range, as in a reduction) has its lanes' executions counted
 * per lane from then on (`laneK`), each run of lanes at the same count one segment of a request,
 * and its requests formed from their segments when the block ends.
 */
import type { SiteTotals } from "./counters";
import { UnitTable, addArithmetic, addRequest, arithmeticUnits, popcount } from "./request-stats";

/**
 * A lane's unit for request-stats.ts addRequest: the 32-byte sector of a global load or store, the byte
 * address of a global atomic, the 4-byte word of a shared access; of element `flat` of the memory at
 * `base` (global; 0 for shared).
 */
function unitOf(kind: string, bytes: number, base: number, flat: number): number {
  if (kind === "gld" || kind === "gst") return Math.floor((base + flat * bytes) / 32);
  return kind === "gatom" ? base + flat * bytes : Math.floor((flat * bytes) / 4);
}

/** The requests j of a counted loop whose units are remembered per alignment (the rest are listed). */
const MEMO_ROWS = 64;

/**
 * Scratch every launch's counters share (profiled launches run one at a time, in the calling thread;
 * each use starts afresh): allocated once, not per launch.
 */
export const SCRATCH = {
  memo: new Int32Array(32 * MEMO_ROWS),
  row: new Float64Array(32),
  table: new UnitTable(),
  nearTable: new Int32Array(4096),
  nearStamp: 0,
};

export class BulkCounter {
  private readonly nW: number;
  /** Per (site, warp) slot: 1 once its lanes have executed the site different numbers of times in this block. */
  private readonly mixed: Uint8Array;
  private readonly mixedSlots: number[] = [];
  /** Per (site, thread): executions since its warp became mixed. */
  private readonly laneK: Int32Array;
  /** Segments of mixed warps' requests: request (row), lanes, base, first element, stride. */
  private segN = 0;
  private segRow = new Int32Array(64);
  private segM = new Int32Array(64);
  private segBase = new Float64Array(64);
  private segF0 = new Float64Array(64);
  private segD = new Float64Array(64);
  /** Each mixed slot's segments as a list: its first and last, and each one's next (−1: none). */
  private segNext = new Int32Array(64);
  private readonly slotHead: Int32Array;
  private readonly slotTail: Int32Array;
  /** Scratch: one slot's segments, by request. */
  private group = new Int32Array(64);
  /** ba: the units of a regular warp's request by (j, alignment), within one call. */
  private readonly memo = SCRATCH.memo;
  private readonly row = SCRATCH.row;
  private readonly table = SCRATCH.table;
  private readonly bankCount = new Int32Array(4 * 32);
  /** atomicNear's table: per element near the first lane's, stamp·256 + lanes on it. */
  private readonly nearTable = SCRATCH.nearTable;

  constructor(
    private readonly totals: readonly SiteTotals[],
    private readonly kinds: readonly string[],
    private readonly bytes: Int32Array,
    private readonly nT: number,
    private readonly bdx: number,
    private readonly bdy: number,
    /** A kernel without barriers: each thread runs once, every request is complete when formed. */
    private readonly plain: boolean,
    /** Recorded sites' element indices, a row of the block's threads each. */
    private readonly recorded: Int32Array,
  ) {
    this.nW = Math.ceil(nT / 32);
    this.mixed = new Uint8Array(totals.length * this.nW);
    this.laneK = new Int32Array(totals.length * nT);
    this.slotHead = new Int32Array(totals.length * this.nW).fill(-1);
    this.slotTail = new Int32Array(totals.length * this.nW).fill(-1);
  }

  /**
   * Of a warp's threads t0..t1-1 (rows of bdx, the first at x index t0 mod bdx), those with
   * rlo <= threadIdx.x < hi: how many, and in how many runs (one a row) they lie, as runs · 256 + count.
   */
  private activeLanes(t0: number, t1: number, rlo: number, rhi: number): number {
    const bdx = this.bdx;
    let active = 0, runs = 0;
    for (let t = t0, tx = t0 % bdx; t < t1; t += bdx - tx, tx = 0) {
      const a = Math.max(tx, rlo), b = Math.min(tx + (t1 - t), rhi);
      if (b > a) {
        active += b - a;
        runs++;
      }
    }
    return (runs << 8) | active;
  }

  /**
   * A condition every thread of the block evaluates, true for lo <= threadIdx.x < hi (clamped to the
   * row): one complete request per warp, divergent where the warp has lanes on both sides.
   */
  rangeBranch(s: number, lo: number, hi: number): void {
    const tot = this.totals[s]!, nT = this.nT, rlo = Math.max(lo, 0), rhi = Math.min(hi, this.bdx);
    for (let t0 = 0; t0 < nT; t0 += 32) {
      const t1 = Math.min(nT, t0 + 32), taken = this.activeLanes(t0, t1, rlo, rhi) & 255;
      tot.requests++;
      tot.lanes += t1 - t0;
      if (taken > 0 && taken < t1 - t0) tot.units++;
    }
  }

  /** See the file comment; lo and hi already clamped to the row. */
  ba(s: number, lo: number, hi: number, base: number, c: number, x: number, y: number, z: number, n: number, kStep: number): void {
    if (hi <= lo) return;
    if (this.nT === this.bdx) this.oneRow(s, lo, hi, base, c, x, n, kStep);
    else this.rows(s, lo, hi, base, c, x, y, z, n, kStep);
  }

  /**
   * A 1-D block: only the warps that hold threads lo..hi-1. The full ones (32 lanes, not mixed) have the
   * same units (their first elements are 32 apart, a multiple of 32 bytes: the same alignment), counted
   * once for all of them.
   */
  private oneRow(s: number, lo: number, hi: number, base: number, c: number, x: number, n: number, kStep: number): void {
    const nT = this.nT, end = Math.min(hi, nT);
    const closed = this.kinds[s] === "gld" || this.kinds[s] === "gst" || this.bytes[s] === 4;
    let full = 0, firstFull = 0;
    for (let w = lo >> 5, wEnd = ((end - 1) >> 5) + 1; w < wEnd; w++) {
      const t0 = w * 32, t1 = Math.min(nT, t0 + 32), slot = s * this.nW + w;
      const from = Math.max(lo, t0), to = Math.min(end, t1);
      if (this.mixed[slot] === 0 && (this.plain || (from === t0 && to === t1))) {
        if (to - from === 32 && closed) {
          if (full++ === 0) firstFull = t0;
        } else this.arithmetic(s, to - from, base, c + x * from, x, n, kStep, 1);
        continue;
      }
      this.markMixed(slot);
      this.segments(s, slot, from, to, base, c + x * from, x, n, kStep);
    }
    if (full > 0) this.arithmetic(s, 32, base, c + x * firstFull, x, n, kStep, full);
  }

  /**
   * A block of several rows: warp by warp, each warp's active lanes as runs within rows (a run: the
   * threads of one row with lo <= tx < hi, consecutive elements x apart).
   */
  private rows(s: number, lo: number, hi: number, base: number, c: number, x: number, y: number, z: number, n: number, kStep: number): void {
    const nT = this.nT, bdx = this.bdx, bdy = this.bdy;
    const tot = this.totals[s]!, kind = this.kinds[s]!, bytes = this.bytes[s]!;
    const global = kind === "gld" || kind === "gst";
    // Warps of whole rows of one z-plane, every lane active: each warp's lanes are at the same offsets
    // from its first, so its units depend only on the first's alignment (global: its byte address mod
    // 32; shared: not at all): counted once per alignment (and j) in this call.
    const regular = 32 % bdx === 0 && (bdx * bdy) % 32 === 0 && lo <= 0 && hi >= bdx;
    if (regular) this.memo.fill(-1, 0, global ? 32 * Math.min(n, MEMO_ROWS) : 1);
    const rlo = Math.max(lo, 0), rhi = Math.min(hi, bdx);
    for (let t0 = 0, w = 0; t0 < nT; t0 += 32, w++) {
      const t1 = Math.min(nT, t0 + 32), slot = s * this.nW + w;
      const tx0 = t0 % bdx, r0 = (t0 - tx0) / bdx;
      const ty0 = r0 % bdy, tz0 = (r0 - ty0) / bdy;
      const lanes = this.activeLanes(t0, t1, rlo, rhi), active = lanes & 255;
      if (active === 0) continue;
      const f0 = c + x * tx0 + y * ty0 + z * tz0; // the element of the warp's first thread
      if (this.mixed[slot] === 0 && (this.plain || active === t1 - t0)) {
        if (lanes >> 8 === 1) {
          // One run, in one row: a closed form.
          const a = Math.max(tx0, rlo);
          this.arithmetic(s, active, base, f0 + x * (a - tx0), x, n, kStep, 1);
          continue;
        }
        for (let j = 0; j < n; j++) {
          const fj = f0 + kStep * j;
          const key = !regular || t1 - t0 !== 32 ? -1 : !global ? 0 : j < MEMO_ROWS ? j * 32 + ((((base + fj * bytes) % 32) + 32) % 32) : -1;
          const u = key >= 0 ? this.memo[key]! : -1;
          if (u >= 0) {
            addArithmetic(tot, kind, bytes, 32, u, 1);
            continue;
          }
          const before = tot.units;
          this.warpRequest(s, t0, t1, tx0, ty0, tz0, rlo, rhi, base, c + kStep * j, x, y, z);
          if (key >= 0) this.memo[key] = tot.units - before;
        }
        continue;
      }
      this.markMixed(slot);
      for (let t = t0, tx = tx0, f = f0; t < t1; t += bdx - tx, tx = 0) {
        const a = Math.max(tx, rlo), b = Math.min(tx + (t1 - t), rhi);
        if (b > a) this.segments(s, slot, t + (a - tx), t + (b - tx), base, f + x * (a - tx), x, n, kStep);
        // The next row's first thread: tx 0, one row (y) on, or the next plane's first row.
        const next = t + (bdx - tx);
        const r = next / bdx;
        f = c + y * (r % bdy) + z * Math.floor(r / bdy);
      }
    }
  }

  /**
   * A recorded site: each thread of the block with lo <= threadIdx.x < hi stored the element it
   * accessed in row `rec` of `recorded` (once: the site is in straight-line code, outside loops).
   */
  bt(s: number, lo: number, hi: number, base: number, rec: number): void {
    if (hi <= lo) return;
    const nT = this.nT, bdx = this.bdx, off = rec * nT;
    const rlo = Math.max(lo, 0), rhi = Math.min(hi, bdx);
    const gatom = this.kinds[s] === "gatom", bytes = this.bytes[s]!, b32 = (base % 32) | 0;
    let requests = 0, lanes = 0, units = 0, ideal = 0, contention = 0, mostOne = 0;
    // 1-D blocks: only the warps that hold threads lo..hi-1.
    const oneRow = nT === bdx;
    for (let w = oneRow ? rlo >> 5 : 0, wEnd = oneRow ? ((rhi - 1) >> 5) + 1 : this.nW; w < wEnd; w++) {
      const t0 = w * 32, t1 = Math.min(nT, t0 + 32), slot = s * this.nW + w;
      const active = this.activeLanes(t0, t1, rlo, rhi) & 255;
      if (active === 0) continue;
      if (this.mixed[slot] === 0 && (this.plain || active === t1 - t0)) {
        const near = gatom && active === t1 - t0 ? this.atomicNear(t0, t1, b32, bytes, off) : -1;
        if (near < 0) this.recordedRequest(s, t0, t1, rlo, rhi, base, off, active);
        else {
          // Added up here, written to the site's totals once (below).
          const most = near >> 8;
          requests++;
          lanes += active;
          units += near & 255;
          ideal += Math.ceil((active * bytes) / 32);
          contention += most;
          if (most > mostOne) mostOne = most;
        }
        continue;
      }
      this.markMixed(slot);
      for (let t = t0, tx = t0 % bdx; t < t1; t++) {
        if (tx >= rlo && tx < rhi) this.segments(s, slot, t, t + 1, base, this.recorded[off + t]!, 0, 1, 0);
        if (++tx === bdx) tx = 0;
      }
    }
    if (requests > 0) {
      const tot = this.totals[s]!;
      tot.requests += requests;
      tot.lanes += lanes;
      tot.units += units;
      tot.ideal += ideal;
      tot.contentionSum += contention;
      if (mostOne > tot.contentionMax) tot.contentionMax = mostOne;
    }
  }

  /**
   * A global atomic's complete request of every lane of a warp (t0..t1-1), in one pass when its elements
   * lie within 2048 of the first lane's and its sectors within 32 of the first lane's (a histogram's
   * bins): the lanes on each element counted in a stamped table (stamp·256 + count: one load and one
   * store a lane, nothing to clear), the sectors (from the base's offset in its sector) in two 32-bit
   * masks kept in registers: the most lanes on one element · 256 + the sectors. −1 otherwise: the caller
   * lists the units.
   */
  private atomicNear(t0: number, t1: number, b32: number, bytes: number, off: number): number {
    const rec = this.recorded, tab = this.nearTable;
    const f0 = rec[off + t0]!, s0 = ((b32 + f0 * bytes) >> 5) - 32;
    if (++SCRATCH.nearStamp === 0x7fffff) {
      tab.fill(0);
      SCRATCH.nearStamp = 1;
    }
    const stamp = SCRATCH.nearStamp << 8;
    // The largest entry of this stamp holds the most lanes on one element.
    let most = 0, m0 = 0, m1 = 0;
    for (let t = off + t0, e = off + t1; t < e; t++) {
      const f = rec[t]!, i = f - f0 + 2048, r = ((b32 + f * bytes) >> 5) - s0;
      if (i >>> 0 >= 4096 || r >>> 0 >= 64) return -1;
      const x = tab[i]!, y = (x & ~255) === stamp ? x + 1 : stamp | 1;
      tab[i] = y;
      most = y > most ? y : most;
      // Sector r's bit in m0 (r < 32) or m1, without a branch.
      const bit = 1 << (r & 31), h = r >> 5;
      m0 |= bit & (h - 1);
      m1 |= bit & -h;
    }
    return ((most & 255) << 8) | (popcount(m0) + popcount(m1));
  }

  /**
   * One complete request of a recorded site from its active lanes' element indices. Global units are
   * counted from the base's offset in its 32-byte sector (small integers: the same sectors and addresses
   * apart); atomics keep every lane's unit, the others leave out a repeat of the previous lane's.
   */
  private recordedRequest(s: number, t0: number, t1: number, rlo: number, rhi: number, base: number, off: number, lanes: number): void {
    const row = this.row, rec = this.recorded, bytes = this.bytes[s]!, kind = this.kinds[s]!, bdx = this.bdx;
    const atomic = kind === "gatom" || kind === "satom";
    const b32 = (base % 32) | 0;
    let n = 0, rising = true;
    for (let t = t0, tx = t0 % bdx; t < t1; t++) {
      if (tx >= rlo && tx < rhi) {
        const f = rec[off + t]!;
        const unit = unitOf(kind, bytes, b32, f);
        if (atomic) row[n++] = unit;
        else if (n === 0 || row[n - 1] !== unit) {
          if (n > 0 && unit < row[n - 1]!) rising = false;
          row[n++] = unit;
        }
      }
      if (++tx === bdx) tx = 0;
    }
    addRequest(this.totals[s]!, kind, bytes, lanes, 0, row, 0, n, rising, this.table, this.bankCount);
  }

  /** One complete request of a warp's active lanes (constant part `cj`), unit by unit in lane order. */
  private warpRequest(s: number, t0: number, t1: number, tx: number, ty: number, tz: number, rlo: number, rhi: number, base: number, cj: number, x: number, y: number, z: number): void {
    const row = this.row, bytes = this.bytes[s]!, kind = this.kinds[s]!;
    const bdx = this.bdx, bdy = this.bdy;
    let n = 0, lanes = 0, rising = true;
    for (let t = t0; t < t1; t++) {
      if (tx >= rlo && tx < rhi) {
        lanes++;
        const flat = cj + x * tx + y * ty + z * tz;
        const unit = unitOf(kind, bytes, base, flat);
        if (n === 0 || row[n - 1] !== unit) {
          if (n > 0 && unit < row[n - 1]!) rising = false;
          row[n++] = unit;
        }
      }
      if (++tx === bdx) {
        tx = 0;
        if (++ty === bdy) {
          ty = 0;
          tz++;
        }
      }
    }
    if (lanes > 0) addRequest(this.totals[s]!, kind, bytes, lanes, 0, row, 0, n, rising, this.table, this.bankCount);
  }

  /** `count` warps' requests j < n of `m` consecutive lanes from element f0 + kStep·j, stride d (the same units each). */
  private arithmetic(s: number, m: number, base: number, f0: number, d: number, n: number, kStep: number, count: number): void {
    const tot = this.totals[s]!, kind = this.kinds[s]!, bytes = this.bytes[s]!;
    for (let j = 0; j < n; j++) {
      const u = arithmeticUnits(kind, bytes, m, base, f0 + kStep * j, d);
      if (u >= 0) addArithmetic(tot, kind, bytes, m, u, count);
      // No closed form (shared elements under 4 bytes; then count is 1): the units lane by lane.
      else this.listRun(s, m, base, f0 + kStep * j, d, 0, true);
    }
  }

  /**
   * Appends the units of m consecutive lanes at elements f0 + d·i to the scratch row from `at`; with
   * `add`, adds them as one request. Returns the new length.
   */
  private listRun(s: number, m: number, base: number, f0: number, d: number, at: number, add: boolean): number {
    const row = this.row, bytes = this.bytes[s]!, kind = this.kinds[s]!;
    let n = at;
    for (let i = 0; i < m; i++) {
      const flat = f0 + d * i;
      row[n++] = unitOf(kind, bytes, base, flat);
    }
    if (add) addRequest(this.totals[s]!, kind, bytes, m, 0, row, 0, n, false, this.table, this.bankCount);
    return n;
  }

  private markMixed(slot: number): void {
    if (this.mixed[slot] === 0) {
      this.mixed[slot] = 1;
      this.mixedSlots.push(slot);
    }
  }

  /**
   * Threads a..b-1 (consecutive, one row) of a mixed warp execute site s n times, the first's element
   * f0 + kStep·j, stride d: each run of them at the same execution count k is a segment of request k + j.
   */
  private segments(s: number, slot: number, a: number, b: number, base: number, f0: number, d: number, n: number, kStep: number): void {
    const kc = this.laneK, off = s * this.nT;
    for (let ra = a; ra < b; ) {
      const k = kc[off + ra]!;
      let rb = ra + 1;
      while (rb < b && kc[off + rb] === k) rb++;
      for (let j = 0; j < n; j++) this.pushSegment(slot, k + j, rb - ra, base, f0 + d * (ra - a) + kStep * j, d);
      for (let t = ra; t < rb; t++) kc[off + t] = k + n;
      ra = rb;
    }
  }

  private pushSegment(slot: number, row: number, m: number, base: number, f0: number, d: number): void {
    if (this.segN === this.segRow.length) {
      const grow = <T extends Int32Array | Float64Array>(x: T): T => {
        const y = new (x.constructor as new (n: number) => T)(x.length * 2);
        y.set(x);
        return y;
      };
      this.segRow = grow(this.segRow);
      this.segM = grow(this.segM);
      this.segBase = grow(this.segBase);
      this.segF0 = grow(this.segF0);
      this.segD = grow(this.segD);
      this.segNext = grow(this.segNext);
    }
    const i = this.segN++;
    this.segNext[i] = -1;
    if (this.slotHead[slot] < 0) this.slotHead[slot] = i;
    else this.segNext[this.slotTail[slot]!] = i;
    this.slotTail[slot] = i;
    this.segRow[i] = row;
    this.segM[i] = m;
    this.segBase[i] = base;
    this.segF0[i] = f0;
    this.segD[i] = d;
  }

  /** Whether a block's state needs blockDone. */
  get pending(): boolean {
    return this.mixedSlots.length > 0;
  }

  /** The block is done: mixed warps' requests from their segments; every warp starts even again. */
  blockDone(): void {
    for (const slot of this.mixedSlots) {
      if (this.slotHead[slot]! >= 0) this.countSlot(slot);
      this.mixed[slot] = 0;
      const s = Math.floor(slot / this.nW), first = s * this.nT + (slot - s * this.nW) * 32;
      this.laneK.fill(0, first, Math.min(first + 32, (s + 1) * this.nT));
    }
    this.mixedSlots.length = 0;
    this.segN = 0;
  }

  /** A mixed slot's requests: its segments grouped by request (a few: sorted in place by insertion). */
  private countSlot(slot: number): void {
    let k = 0;
    for (let i = this.slotHead[slot]!; i >= 0; i = this.segNext[i]!) {
      if (k === this.group.length) {
        const g = new Int32Array(k * 2);
        g.set(this.group);
        this.group = g;
      }
      this.group[k++] = i;
    }
    this.slotHead[slot] = -1;
    this.slotTail[slot] = -1;
    const g = this.group, rowOf = this.segRow;
    for (let i = 1; i < k; i++) {
      const x = g[i]!, r = rowOf[x]!;
      let j = i - 1;
      while (j >= 0 && rowOf[g[j]!]! > r) {
        g[j + 1] = g[j]!;
        j--;
      }
      g[j + 1] = x;
    }
    const s = Math.floor(slot / this.nW);
    const tot = this.totals[s]!, kind = this.kinds[s]!, bytes = this.bytes[s]!;
    for (let a = 0; a < k; ) {
      const first = g[a]!;
      let e = a + 1;
      while (e < k && rowOf[g[e]!] === rowOf[first]) e++;
      const u = e - a === 1 ? arithmeticUnits(kind, bytes, this.segM[first]!, this.segBase[first]!, this.segF0[first]!, this.segD[first]!) : -1;
      if (u >= 0) addArithmetic(tot, kind, bytes, this.segM[first]!, u, 1);
      else {
        // Several runs (or no closed form): the request's units.
        let len = 0, lanes = 0;
        for (let i = a; i < e; i++) {
          const q = g[i]!;
          len = this.listRun(s, this.segM[q]!, this.segBase[q]!, this.segF0[q]!, this.segD[q]!, len, false);
          lanes += this.segM[q]!;
        }
        addRequest(tot, kind, bytes, lanes, 0, this.row, 0, len, false, this.table, this.bankCount);
      }
      a = e;
    }
  }
}
