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
import type { ProfileSite } from "@cudascript/compiler";

/** One warp-level request being gathered. */
interface Request {
  /** Active lanes that took part. */
  lanes: number;
  /** Lanes for which the condition was true (branches). */
  taken: number;
  /** Distinct units: sectors (global loads/stores), byte addresses (global atomics), group·2³² + word (shared). */
  readonly units: number[];
  /** Lanes per unit (atomics only: contention). */
  readonly counts: number[] | undefined;
}

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

/** Memory kinds whose units are 32-byte sectors. */
const SECTOR_KINDS = new Set(["gld", "gst"]);
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
  private kCount = new Int32Array(0);
  private open: (Request[] | undefined)[] = [];
  private touched: number[] = [];
  private kinds: string[] = [];
  private bytes: number[] = [];
  /** Per site: the last array seen and its base address (a site nearly always sees one array per launch). */
  private lastArray: unknown[] = [];
  private lastBase: number[] = [];
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
    this.open = new Array<Request[] | undefined>(sites.length * this.nW).fill(undefined);
    this.kinds = sites.map((s) => s.kind);
    this.bytes = sites.map((s) => s.bytes ?? 4);
    this.lastArray = new Array<unknown>(sites.length).fill(undefined);
    this.lastBase = new Array<number>(sites.length).fill(0);
    this.totals = sites.map(() => ({ requests: 0, units: 0, lanes: 0, ideal: 0, contentionSum: 0, contentionMax: 0 }));
  }

  /** Thread `t` of the block accesses element `flat` of `data` at site `s`. */
  m(s: number, t: number, data: ArrayBufferView, flat: number): void {
    const r = this.request(s, t);
    r.lanes++;
    const kind = this.kinds[s]!;
    const bytes = this.bytes[s]!;
    let unit: number;
    if (kind.charCodeAt(0) === 103 /* g */) {
      let base: number;
      if (this.lastArray[s] === data) base = this.lastBase[s]!;
      else {
        base = bufferBase(data.buffer) + data.byteOffset;
        this.lastArray[s] = data;
        this.lastBase[s] = base;
      }
      const addr = base + flat * bytes;
      if (kind === "gatom") {
        const i = r.units.indexOf(addr);
        if (i < 0) {
          r.units.push(addr);
          r.counts!.push(1);
        } else r.counts![i]!++;
        return;
      }
      unit = Math.floor(addr / 32);
      // The last unit first: consecutive lanes mostly share it.
      const u = r.units;
      if (u.length === 0 || (u[u.length - 1] !== unit && u.indexOf(unit) < 0)) u.push(unit);
      return;
    }
    // Shared memory: words of 4 bytes, bank = word mod 32. 8- and 16-byte accesses are served per
    // half-warp / quarter-warp (the group in the high part of the unit), each lane's words in turn.
    const addr = data.byteOffset + flat * bytes;
    const word = Math.floor(addr / 4);
    if (bytes <= 4) unit = word;
    else {
      const group = bytes === 8 ? (t & 31) >> 4 : (t & 31) >> 3;
      const words = bytes / 4;
      for (let w = 0; w < words; w++) {
        const x = group * TWO32 + word + w;
        if (r.units.indexOf(x) < 0) r.units.push(x);
      }
      return;
    }
    const u = r.units;
    if (r.counts) {
      const i = u.indexOf(unit);
      if (i < 0) {
        u.push(unit);
        r.counts.push(1);
      } else r.counts[i]!++;
      return;
    }
    if (u.length === 0 || (u[u.length - 1] !== unit && u.indexOf(unit) < 0)) u.push(unit);
  }

  /** Thread `t` evaluates the condition of site `s`: `c`. */
  b<T>(s: number, t: number, c: T): T {
    const r = this.request(s, t);
    r.lanes++;
    if (c) r.taken++;
    return c;
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

  private request(s: number, t: number): Request {
    const k = this.kCount[s * this.nT + t]++;
    const slot = s * this.nW + (t >> 5);
    let list = this.open[slot];
    if (list === undefined) {
      list = this.open[slot] = [];
      this.touched.push(slot);
    }
    let r = list[k];
    if (r === undefined) r = list[k] = { lanes: 0, taken: 0, units: [], counts: this.kinds[s] === "gatom" || this.kinds[s] === "satom" ? [] : undefined };
    return r;
  }

  private flush(): void {
    for (const slot of this.touched) {
      const s = Math.floor(slot / this.nW);
      const list = this.open[slot]!;
      this.open[slot] = undefined;
      const tot = this.totals[s]!;
      const kind = this.kinds[s]!;
      const bytes = this.bytes[s]!;
      for (const r of list) {
        tot.requests++;
        tot.lanes += r.lanes;
        if (kind === "br") {
          if (r.taken > 0 && r.taken < r.lanes) tot.units++;
        } else if (SECTOR_KINDS.has(kind)) {
          tot.units += r.units.length;
          tot.ideal += Math.ceil((r.lanes * bytes) / 32);
        } else if (kind === "gatom") {
          const sectors = new Set(r.units.map((a) => Math.floor(a / 32)));
          tot.units += sectors.size;
          tot.ideal += Math.ceil((r.lanes * bytes) / 32);
          const c = Math.max(...r.counts!);
          tot.contentionSum += c;
          if (c > tot.contentionMax) tot.contentionMax = c;
        } else {
          tot.units += this.wavefronts(r.units);
          if (kind === "satom") {
            const c = Math.max(...r.counts!);
            tot.contentionSum += c;
            if (c > tot.contentionMax) tot.contentionMax = c;
          }
        }
      }
    }
    this.touched.length = 0;
    this.kCount.fill(0);
  }

  /** Shared-memory wavefronts of a request: per lane group, the most distinct words one bank serves (at least 1). */
  private wavefronts(units: readonly number[]): number {
    let total = 0;
    for (let g = 0; g < 4; g++) {
      const bc = this.bankCount;
      bc.fill(0);
      let any = false, most = 0;
      for (const x of units) {
        if (Math.floor(x / TWO32) !== g) continue;
        any = true;
        const bank = (x % TWO32) & 31;
        if (++bc[bank]! > most) most = bc[bank]!;
      }
      if (any) total += Math.max(1, most);
    }
    return total;
  }
}
