/**
 * The counters of one profiled launch: what the profiling variant's hooks (compiler/src/js/emit/
 * profile.ts) call, and the per-site totals they add up to (docs/profiling.md has the definitions).
 *
 * The simulator does not run a warp's lanes in lockstep, and does not need to: a request is
 * (warp, site, k), k counting each lane's executions of the site since the launch. So each thread keeps
 * a counter per site (`kCount`), and the k-th request of a (site, warp) gathers what its lanes touch —
 * distinct 32-byte sectors of global memory, distinct shared words with their bank, a condition's
 * outcomes — until the block is done (a lane's k-th execution may come in a later piece of a kernel
 * with barriers). Then the block's requests are added to the site's totals and dropped.
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

/**
 * Modelled base addresses of device memory: each buffer (one allocation: the simulator gives every
 * device array, and every host array copied for a launch, its own buffer) starts on a 256-byte boundary,
 * as cudaMalloc's allocations do; a view adds its byte offset. Only distinctness and alignment matter.
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
  private nW = 0;
  /** Per (site, thread of the block): how many times the thread executed the site in this block. */
  private kCount = new Int32Array(0);
  /** Per (site, warp) slot: how many requests are open, and the pool index of each (by k). */
  private used = new Int32Array(0);
  private slotReq: Int32Array[] = [];
  private touched: number[] = [];
  /** The request pool: see above. */
  private poolUsed = 0;
  private unitsUsed = 0;
  private lanes = new Int32Array(256);
  private taken = new Int32Array(256);
  private count = new Int32Array(256);
  private start = new Int32Array(256);
  private units = new Float64Array(256 * 32);
  private kinds: string[] = [];
  /** Per site: units a request may need (32 lanes × words per lane; 0 for branches). */
  private capacity = new Int32Array(0);
  private bytes = new Int32Array(0);
  /** Per site: the last array seen and its base address (a site nearly always sees one array per launch). */
  private lastArray: unknown[] = [];
  private lastBase = new Float64Array(0);
  private started = false;
  private readonly bankCount = new Int32Array(32);

  /** The kernel function starts (once per launch in one executor). */
  begin(sites: readonly ProfileSite[], threadsPerBlock: number): void {
    if (this.started) return;
    this.started = true;
    this.sites = sites;
    this.nT = threadsPerBlock;
    this.nW = Math.ceil(threadsPerBlock / 32);
    this.kCount = new Int32Array(sites.length * threadsPerBlock);
    this.used = new Int32Array(sites.length * this.nW);
    this.slotReq = Array.from({ length: sites.length * this.nW }, () => new Int32Array(4));
    this.kinds = sites.map((s) => s.kind);
    this.bytes = Int32Array.from(sites, (s) => s.bytes ?? 4);
    this.capacity = Int32Array.from(sites, (s) => (s.kind === "br" ? 0 : s.kind === "sld" || s.kind === "sst" ? 32 * Math.max(1, (s.bytes ?? 4) / 4) : 32));
    this.lastArray = Array.from(sites, () => null);
    this.lastBase = new Float64Array(sites.length);
    this.totals = sites.map(() => ({ requests: 0, units: 0, lanes: 0, ideal: 0, contentionSum: 0, contentionMax: 0 }));
  }

  // The hooks only append a lane's unit (skipping a repeat of the previous lane's, the common case);
  // duplicates are removed, and atomics' lanes per address counted, once per request when it is done
  // (flush): a sort of at most 32 numbers instead of a search per lane.

  /** The modelled address of element 0 of a kernel's array parameter (its setup asks once per launch). */
  addr(data: ArrayBufferView): number {
    return bufferBase(data.buffer) + data.byteOffset;
  }

  /** Thread `t` of the block loads or stores element `flat` of the global array at `base`, at site `s`. */
  g(s: number, t: number, base: number, flat: number): void {
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
    const r = this.request(s, t);
    this.lanes[r]++;
    this.units[this.start[r]! + this.count[r]!++] = base + flat * this.bytes[s]!;
  }

  gav(s: number, t: number, data: ArrayBufferView, flat: number): void {
    this.ga(s, t, this.base(s, data), flat);
  }

  /**
   * A shared access: words of 4 bytes, bank = word mod 32. 8- and 16-byte accesses are served per
   * half-warp / quarter-warp (the group in the high part of the unit), each lane's words in turn.
   */
  s(s: number, t: number, data: ArrayBufferView, flat: number): void {
    const r = this.request(s, t);
    this.lanes[r]++;
    const bytes = this.bytes[s]!;
    const word = Math.floor((data.byteOffset + flat * bytes) / 4);
    if (bytes <= 4) return this.append(r, word);
    const group = bytes === 8 ? (t & 31) >> 4 : (t & 31) >> 3;
    for (let w = 0; w < bytes / 4; w++) this.units[this.start[r]! + this.count[r]!++] = group * TWO32 + word + w;
  }

  /** A shared atomic (4-byte words; every lane: flush counts the lanes per word). */
  sa(s: number, t: number, data: ArrayBufferView, flat: number): void {
    const r = this.request(s, t);
    this.lanes[r]++;
    this.units[this.start[r]! + this.count[r]!++] = Math.floor((data.byteOffset + flat * this.bytes[s]!) / 4);
  }

  private append(r: number, unit: number): void {
    const n = this.count[r]!, at = this.start[r]! + n;
    if (n > 0 && this.units[at - 1] === unit) return;
    this.units[at] = unit;
    this.count[r] = n + 1;
  }

  /** The modelled address of element 0 of `data` (cached per site: a site nearly always sees one array per launch). */
  private base(s: number, data: ArrayBufferView): number {
    if (this.lastArray[s] === data) return this.lastBase[s]!;
    const b = bufferBase(data.buffer) + data.byteOffset;
    this.lastArray[s] = data;
    this.lastBase[s] = b;
    return b;
  }

  /** Thread `t` evaluates the condition of site `s`: `c`. */
  b<T>(s: number, t: number, c: T): T {
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
  bulk(s: number, lo: number, hi: number, bdx: number): void {
    const tot = this.totals[s]!;
    const nT = this.nT;
    for (let w = 0; w < nT; w += 32) {
      const end = Math.min(nT, w + 32);
      let taken = 0;
      for (let t = w; t < end; t++) {
        const tx = t % bdx;
        if (tx >= lo && tx < hi) taken++;
      }
      tot.requests++;
      tot.lanes += end - w;
      if (taken > 0 && taken < end - w) tot.units++;
    }
  }

  /** A block-level (block-uniform) condition: one branch per warp of the block, none divergent. */
  u(s: number): void {
    const tot = this.totals[s]!;
    tot.requests += this.nW;
    tot.lanes += this.nT;
  }

  /** A block starts: the previous block's requests are complete. */
  block(): void {
    if (this.touched.length) this.flush();
  }

  /** The kernel function's blocks are done (or it faulted): the last block's requests, and the FLOPs. */
  end(flopsSingle: number, flopsDouble: number): void {
    if (this.touched.length) this.flush();
    this.flopsSingle += flopsSingle;
    this.flopsDouble += flopsDouble;
  }

  /** The pool index of thread `t`'s next request at site `s`. */
  private request(s: number, t: number): number {
    const ki = s * this.nT + t;
    const k = this.kCount[ki]!;
    this.kCount[ki] = k + 1;
    const slot = s * this.nW + (t >> 5);
    // A lane's k-th execution follows its (k-1)-th: k is at most the number of requests open.
    if (k < this.used[slot]!) return this.slotReq[slot]![k]!;
    return this.open(s, slot, k);
  }

  /** Opens request k of a slot. */
  private open(s: number, slot: number, k: number): number {
    if (k === 0) this.touched.push(slot);
    this.used[slot] = k + 1;
    let ids = this.slotReq[slot]!;
    if (k >= ids.length) {
      const grown = new Int32Array(ids.length * 2);
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
    this.unitsUsed += cap;
    ids[k] = r;
    return r;
  }

  private flush(): void {
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
        const lanes = this.lanes[r]!;
        tot.requests++;
        tot.lanes += lanes;
        if (kind === "br") {
          const taken = this.taken[r]!;
          if (taken > 0 && taken < lanes) tot.units++;
          continue;
        }
        const o = this.start[r]!, end = o + this.count[r]!;
        sortUnits(this.units, o, end);
        if (kind === "gld" || kind === "gst") {
          tot.units += distinct(this.units, o, end, 1);
          tot.ideal += Math.ceil((lanes * bytes) / 32);
        } else if (kind === "gatom") {
          tot.units += distinct(this.units, o, end, 32);
          tot.ideal += Math.ceil((lanes * bytes) / 32);
          const c = longestRun(this.units, o, end);
          tot.contentionSum += c;
          if (c > tot.contentionMax) tot.contentionMax = c;
        } else {
          tot.units += this.wavefronts(o, end);
          if (kind === "satom") {
            const c = longestRun(this.units, o, end);
            tot.contentionSum += c;
            if (c > tot.contentionMax) tot.contentionMax = c;
          }
        }
      }
    }
    this.touched.length = 0;
    this.poolUsed = 0;
    this.unitsUsed = 0;
  }

  /** Shared-memory wavefronts of a request (its units sorted): per lane group, the most distinct words one bank serves. */
  private wavefronts(o: number, end: number): number {
    const u = this.units, bc = this.bankCount;
    let total = 0;
    for (let j = o; j < end; ) {
      // One group (the high part) at a time: sorted, so its units are contiguous.
      const g = Math.floor(u[j]! / TWO32);
      let most = 0, k = j;
      for (; k < end && Math.floor(u[k]! / TWO32) === g; k++) {
        if (k > j && u[k] === u[k - 1]) continue; // lanes on one word share it
        const c = ++bc[u[k]! & 31]!;
        if (c > most) most = c;
      }
      for (let m = j; m < k; m++) bc[u[m]! & 31] = 0;
      total += most;
      j = k;
    }
    return total;
  }
}

/** Sorts units[o, end) in place (insertion sort: at most 128 numbers, and often already in order). */
function sortUnits(u: Float64Array, o: number, end: number): void {
  for (let i = o + 1; i < end; i++) {
    const x = u[i]!;
    if (x >= u[i - 1]!) continue;
    let j = i - 1;
    while (j >= o && u[j]! > x) {
      u[j + 1] = u[j]!;
      j--;
    }
    u[j + 1] = x;
  }
}

/** Distinct values of floor(unit / per) in sorted units[o, end). */
function distinct(u: Float64Array, o: number, end: number, per: number): number {
  let n = 0, last = NaN;
  for (let j = o; j < end; j++) {
    const x = per === 1 ? u[j]! : Math.floor(u[j]! / per);
    if (x !== last) {
      n++;
      last = x;
    }
  }
  return n;
}

/** The longest run of equal values in sorted units[o, end): the most lanes on one address. */
function longestRun(u: Float64Array, o: number, end: number): number {
  let best = 0;
  for (let j = o; j < end; ) {
    let k = j + 1;
    while (k < end && u[k] === u[j]) k++;
    if (k - j > best) best = k - j;
    j = k;
  }
  return best;
}
