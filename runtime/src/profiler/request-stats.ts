/**
 * What one completed request adds to its site's totals, from the units its lanes recorded
 * (counters.ts): distinct sectors, shared wavefronts, the most lanes on one address. Without a sort:
 * a request has at most 128 units, counted through a small open-addressing table that a stamp clears
 * for the next request; and the common cases — units strictly increasing, as a coalesced or strided
 * access makes them — need no table at all (the caller knows from the recording).
 */

import type { SiteTotals } from "./counters";

/** Slots of the table: a power of two, at least twice the most units of a request (32 lanes × 4 words). */
const SIZE = 256;
const MASK = SIZE - 1;
const TWO32 = 2 ** 32;

/** Bytes of address a global atomic request may span to be counted through UnitTable.window. */
const WINDOW = 4096;

/** A set of numbers with a count each, emptied in O(1) per request by a new stamp. */
export class UnitTable {
  /** Per byte of a small window of addresses: lanes on it (globalAtomicInWindow); left zero. */
  readonly window = new Uint8Array(WINDOW);
  private readonly keys = new Float64Array(SIZE);
  private readonly stamps = new Int32Array(SIZE);
  private readonly counts = new Int32Array(SIZE);
  private stamp = 0;

  /** Empties the table. */
  clear(): void {
    if (++this.stamp === 0x7fffffff) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  /** Adds `key` (an integer below 2^53); returns how many times it has now been added. */
  add(key: number): number {
    // The low bits of the key (ToInt32 keeps an integer's low 32 bits exactly) mixed with the next ones:
    // sectors and words of a warp are mostly consecutive, atomics' byte addresses multiples of 4.
    let h = (key ^ (key >>> 8) ^ (key >>> 2)) & MASK;
    const stamp = this.stamp;
    for (;;) {
      if (this.stamps[h] !== stamp) {
        this.stamps[h] = stamp;
        this.keys[h] = key;
        this.counts[h] = 1;
        return 1;
      }
      if (this.keys[h] === key) return ++this.counts[h]!;
      h = (h + 1) & MASK;
    }
  }
}

/**
 * Adds one completed request of a site of `kind` to its totals: `lanes` active, `taken` of them true (a
 * branch), its units at u[o, o + n), `rising` when they are strictly increasing (global loads and stores,
 * shared accesses: a repeat of the previous lane's unit is not recorded; atomics record every lane).
 */
export function addRequest(tot: SiteTotals, kind: string, bytes: number, lanes: number, taken: number, u: Float64Array, o: number, n: number, rising: boolean, table: UnitTable, bankCount: Int32Array): void {
  tot.requests++;
  tot.lanes += lanes;
  if (kind === "br") {
    if (taken > 0 && taken < lanes) tot.units++;
    return;
  }
  const end = o + n;
  if (kind === "gld" || kind === "gst") {
    // Strictly increasing sectors are distinct.
    tot.units += rising ? n : distinctUnits(table, u, o, end, 1);
    tot.ideal += Math.ceil((lanes * bytes) / 32);
    return;
  }
  if (kind === "gatom") {
    tot.ideal += Math.ceil((lanes * bytes) / 32);
    if (globalAtomicInWindow(tot, table.window, u, o, end)) return;
    tot.units += distinctUnits(table, u, o, end, 32);
  } else {
    // Distinct words (strictly increasing) within 32 consecutive ones sit in distinct banks: one wavefront.
    tot.units += kind !== "satom" && rising && u[end - 1]! - u[o]! < 32 ? 1 : wavefrontsOf(table, bankCount, u, o, end);
    if (kind !== "satom") return;
  }
  const c = mostOnOneUnit(table, u, o, end);
  tot.contentionSum += c;
  if (c > tot.contentionMax) tot.contentionMax = c;
}

/**
 * Adds a (site, warp) slot's logged requests (counters.ts): `rows` rows of 32 units in `log`, one per
 * lane, NaN where the lane took no part; `row` is 32 numbers of scratch.
 */
export function addRows(tot: SiteTotals, kind: string, bytes: number, log: Float64Array, rows: number, row: Float64Array, table: UnitTable, bankCount: Int32Array): void {
  // Atomics keep every lane's unit; the others leave out a repeat of the previous lane's, as the pool does.
  const atomic = kind === "gatom" || kind === "satom";
  const branch = kind === "br", global = kind === "gld" || kind === "gst", shared = kind === "sld" || kind === "sst";
  for (let k = 0; k < rows; k++) {
    const first = k * 32, end = first + 32;
    // One pass for the common cases, without copying the row: a branch's lanes and outcomes; for the
    // others the units left after repeats (n), whether they rise, and their range (lo, hi).
    let lanes = 0, taken = 0, n = 0, rising = true, last = NaN, lo = Infinity, hi = -Infinity;
    for (let j = first; j < end; j++) {
      const x = log[j]!;
      if (x !== x) continue; // NaN: the lane took no part
      lanes++;
      if (branch) {
        if (x === 1) taken++;
        continue;
      }
      if (x !== last) {
        n++;
        if (x < last) rising = false;
        last = x;
      }
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    if (branch) {
      tot.requests++;
      tot.lanes += lanes;
      if (taken > 0 && taken < lanes) tot.units++;
      continue;
    }
    if ((global && rising) || (shared && hi - lo < 32)) {
      // Strictly increasing sectors are distinct; distinct words within 32 consecutive ones sit in
      // distinct banks: one wavefront (addRequest, the same figures).
      tot.requests++;
      tot.lanes += lanes;
      if (global) {
        tot.units += n;
        tot.ideal += Math.ceil((lanes * bytes) / 32);
      } else if (n > 0) tot.units++;
      continue;
    }
    n = 0;
    rising = true;
    for (let j = first; j < end; j++) {
      const x = log[j]!;
      if (x !== x) continue;
      if (n > 0 && !atomic) {
        const last = row[n - 1]!;
        if (x === last) continue;
        if (x < last) rising = false;
      }
      row[n++] = x;
    }
    addRequest(tot, kind, bytes, lanes, taken, row, 0, n, rising, table, bankCount);
  }
}

/** Distinct values of floor(units[j] / per) for j in [o, end); `per` is 1 or 32. */
export function distinctUnits(t: UnitTable, u: Float64Array, o: number, end: number, per: number): number {
  let lo = Infinity, hi = -Infinity;
  for (let j = o; j < end; j++) {
    const x = u[j]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  // Units that are small integers (sectors, atomics' addresses from their sector's start: counters.ts)
  // divide by a shift.
  const small = lo >= 0 && hi < 2 ** 31, shift = per === 32 ? 5 : 0;
  const first = small ? lo >> shift : Math.floor(lo / per), last = small ? hi >> shift : Math.floor(hi / per);
  if (last - first < 32) {
    // Within 32 of the least (a warp's sectors nearly always are): a bit each in one 32-bit mask.
    let mask = 0;
    if (small) for (let j = o; j < end; j++) mask |= 1 << ((u[j]! >> shift) - first);
    else for (let j = o; j < end; j++) mask |= 1 << (Math.floor(u[j]! / per) - first);
    return popcount(mask);
  }
  t.clear();
  let n = 0;
  for (let j = o; j < end; j++) if (t.add(small ? u[j]! >> shift : Math.floor(u[j]! / per)) === 1) n++;
  return n;
}

/**
 * A global atomic request whose byte addresses are small integers within WINDOW bytes of each other
 * (a histogram's bins; counters.ts and bulk.ts count them from the base's sector): its distinct sectors
 * and the most lanes on one address in two passes over a direct table, instead of two hash passes.
 * False (nothing added) for any other.
 */
function globalAtomicInWindow(tot: SiteTotals, window: Uint8Array, u: Float64Array, o: number, end: number): boolean {
  let lo = Infinity, hi = -Infinity;
  for (let j = o; j < end; j++) {
    const x = u[j]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (!(lo >= 0 && hi < 2 ** 31 && hi - lo < WINDOW)) return false;
  // Sectors relative to the least: below WINDOW / 32 = 128, a bit each in four masks.
  // Integers (| 0): a typed array indexed by a double takes V8's slow path.
  const first = lo >> 5, base = lo | 0;
  let most = 0, m0 = 0, m1 = 0, m2 = 0, m3 = 0;
  for (let j = o; j < end; j++) {
    const x = u[j]! | 0, c = ++window[x - base]!;
    if (c > most) most = c;
    const r = (x >> 5) - first;
    if (r < 32) m0 |= 1 << r;
    else if (r < 64) m1 |= 1 << (r - 32);
    else if (r < 96) m2 |= 1 << (r - 64);
    else m3 |= 1 << (r - 96);
  }
  for (let j = o; j < end; j++) window[(u[j]! | 0) - base] = 0;
  tot.units += popcount(m0) + popcount(m1) + popcount(m2) + popcount(m3);
  tot.contentionSum += most;
  if (most > tot.contentionMax) tot.contentionMax = most;
  return true;
}

/** The most lanes on one unit (atomics: one address) among units[o, end). */
export function mostOnOneUnit(t: UnitTable, u: Float64Array, o: number, end: number): number {
  t.clear();
  let most = 0;
  for (let j = o; j < end; j++) {
    const c = t.add(u[j]!);
    if (c > most) most = c;
  }
  return most;
}

/**
 * Shared-memory wavefronts of a request: per lane group (the unit's high part: half- or quarter-warp
 * for 8- and 16-byte accesses, 0 otherwise), the most distinct words one bank (word mod 32) serves;
 * summed over the groups that have units. `bankCount` is 4 × 32 zeros, left zero.
 */
export function wavefrontsOf(t: UnitTable, bankCount: Int32Array, u: Float64Array, o: number, end: number): number {
  // Words within 32 of each other (so of one group): distinct ones sit in distinct banks, one wavefront.
  let lo = Infinity, hi = -Infinity;
  for (let j = o; j < end; j++) {
    const x = u[j]!;
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (hi - lo < 32) return end > o ? 1 : 0;
  t.clear();
  const most = [0, 0, 0, 0];
  for (let j = o; j < end; j++) {
    const x = u[j]!;
    if (t.add(x) !== 1) continue; // lanes on one word share it
    const g = x >= TWO32 ? Math.floor(x / TWO32) : 0;
    const c = ++bankCount[g * 32 + (x & 31)]!;
    if (c > most[g]!) most[g] = c;
  }
  for (let j = o; j < end; j++) {
    const x = u[j]!;
    bankCount[(x >= TWO32 ? Math.floor(x / TWO32) : 0) * 32 + (x & 31)] = 0;
  }
  return most[0]! + most[1]! + most[2]! + most[3]!;
}

/** The number of 1 bits of a 32-bit integer. */
export function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/**
 * The units (sectors, wavefronts) of one request whose `m` lanes access elements `f0 + d·i` (i < m;
 * lane order) of memory of `kind` at `base` (global; 0 for shared), without listing them (counters.ts
 * ba): what addRequest counts from the units. −1 when there is no closed form (shared accesses narrower
 * than a word).
 */
export function arithmeticUnits(kind: string, bytes: number, m: number, base: number, f0: number, d: number): number {
  if (kind === "gld" || kind === "gst") {
    // Sectors of base + (f0 + d·i)·bytes: a step of 32 bytes or more gives each lane its own; a smaller
    // one moves at most one sector a lane, so every sector between the first and the last is touched.
    const a0 = base + f0 * bytes, step = d * bytes;
    return step === 0 || m === 1 ? 1 : Math.abs(step) >= 32 ? m : Math.abs(Math.floor((a0 + step * (m - 1)) / 32) - Math.floor(a0 / 32)) + 1;
  }
  // Atomics: their contention needs the addresses (bulk.ts lists them).
  if (bytes !== 4 || kind === "satom" || kind === "gatom") return -1;
  // Words f0 + d·i (d ≠ 0: all distinct): the banks repeat every 32 / gcd(d, 32) lanes, so the most
  // words on one bank is ceil(m / that period). d = 0: one word, a broadcast.
  if (d === 0) return 1;
  let g = Math.abs(d) % 32 || 32;
  for (let b = 32; b !== 0; ) [g, b] = [b, g % b];
  return Math.ceil(m / (32 / g));
}

/** Adds `count` requests of `m` lanes and `units` units each (arithmeticUnits) to a site's totals. */
export function addArithmetic(tot: SiteTotals, kind: string, bytes: number, m: number, units: number, count = 1): void {
  tot.requests += count;
  tot.lanes += m * count;
  tot.units += units * count;
  if (kind === "gld" || kind === "gst") tot.ideal += Math.ceil((m * bytes) / 32) * count;
}
