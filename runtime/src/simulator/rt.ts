/**
 * The runtime object (`rt`) a simulator module is instantiated with (see compiler/src/js/emit.ts for
 * the contract): fault construction, printf, math helpers, atomics support and the sanitizer.
 * Runs in the main thread and in workers alike, so it depends on nothing but the language.
 */
import type { FaultDetails } from "../errors";
import { INT64_OPS, type Int64Ops } from "./int64";
import { c128Math, c64Math, complexGet, complexSet, type Complex, type ComplexMath } from "./complex-math";
import { f16round, Float16Array } from "../float16";
import { halfTables, type HalfTables } from "./f16-table";
import { RANDOM_DRAWS, type RandomDraws } from "./random";
import { statesLayoutProblem } from "../random/state-layout";

export { displayPath, KernelFault, type SimSite } from "./fault";
import { KernelFault, kernelRaised, type SimSite } from "./fault";
import { sameBits } from "@cudascript/compiler/intrinsics/sync";
import { runGrid } from "./grid-sync";
import type { LibdeviceImplementation } from "./libdevice";

export interface RtOptions {
  /** Other workers share device memory: atomics must be real atomics. */
  readonly concurrent: boolean;
  /** Absolute time (ms since epoch) after which a running kernel is stopped; Infinity for none. */
  readonly deadline: number;
  /** How the deadline was set, for the message ("--timeout 1 s"). */
  readonly deadlineLabel?: string;
  readonly print: (text: string) => void;
  /** What an uninitialised shared read is under the sanitizer (see UninitializedPolicy). */
  readonly uninitializedShared: UninitializedPolicy["mode"];
  /** Receives the sanitizer's warning findings (the launch collects and reports them). */
  readonly warn: (finding: KernelFault) => void;
}

/**
 * What the sanitizer does at a read of shared memory no thread of the block wrote: "error" stops the
 * run (CSR023); "warn" reports it once per site and run to `warn` and lets the thread continue. The
 * default is "warn" (docs/simulator.md, "Uninitialised shared memory"): such a read is harmless when
 * its value never reaches a result (GPU-Puzzles' tiled matmul), and the simulator cannot yet tell.
 */
export interface UninitializedPolicy {
  readonly mode: "warn" | "error";
  readonly warn: (finding: KernelFault) => void;
}

export interface Rt {
  readonly concurrent: boolean;
  oob(site: SimSite, index: number, length: number, dim: number): KernelFault;
  threadError(e: unknown, kernel: string, bx: number, by: number, bz: number, tx: number, ty: number, tz: number): unknown;
  print(site: SimSite, args: readonly (number | boolean | bigint)[]): void;
  /** `throw new Error(…)` / a failed console.assert in a kernel: the CSR085 fault the thread throws (threadError adds block and thread). */
  raise(site: SimSite, args: readonly (number | boolean | bigint)[]): KernelFault;
  /** A recursive device function nested deeper than the kernel's recursionDepth (CSR086). */
  recursionTooDeep(site: SimSite, limit: number): KernelFault;
  intView(a: Float32Array | Float64Array): Int32Array | BigInt64Array;
  fma64(a: number, b: number, c: number): number;
  /** i64/u64 helpers for what needs a branch (int64.ts); the arithmetic is inline. */
  readonly i64: Int64Ops;
  /** Rounds to f16 (after every f16 operation, as Math.fround after every f32 one). */
  f16round(x: number): number;
  /**
   * f16 arrays are Uint16Arrays of their bits (f16-table.ts): `h2f` the value of each bit pattern,
   * `f2h(x)` the bits a Float16Array store gives `x`. Built on first use: a method, not getters on rt
   * (with accessors on rt, f16 kernels measured slower).
   */
  halfTables(): HalfTables;
  /** The bits of a constant f16 array's values. */
  halfArray(values: readonly number[]): Uint16Array;
  popc(x: number): number;
  brev(x: number): number;
  ffs(x: number): number;
  /** Whether two warp-match values have the same bits (sameBits below). */
  sameBits(a: number | bigint, b: number | bigint): boolean;
  perThread(ctor: new (n: number) => ArrayLike<number>, size: number, n: number): unknown[];
  sanitizer(kernel: { name: string; file: string; line: number }, bdx: number, bdy: number, bdz: number): Sanitizer;
  /** A cooperative kernel's per-block sanitizer (its blocks are alive together; grid-sync.ts). */
  blockSanitizer(kernel: { name: string; file: string; line: number }, bdx: number, bdy: number, bdz: number, block: number): Sanitizer;
  /** Runs a cooperative kernel's blocks to every grid barrier in turn (grid-sync.ts). */
  runGrid(block: (L: unknown, b: number) => Generator<number, void, void>, L: { grid: readonly number[] }, b0: number, b1: number, kernel: string, sites: readonly SimSite[]): void;
  watchdog(site: SimSite): number;
  /** Complex functions of each complex dtype and element access of interleaved storage (complex-math.ts). */
  readonly c64: ComplexMath;
  readonly c128: ComplexMath;
  cget(parts: ArrayLike<number>, i: number): Complex;
  cset(parts: { [i: number]: number }, i: number, z: Complex): void;
  /** Numba's `cuda.libdevice` (libdevice/), loaded on a module's first use (it needs @stdlib's special functions). */
  readonly libdevice: Readonly<Record<string, LibdeviceImplementation>>;
  /** `cuda.random` draws (random.ts). */
  readonly xoroshiro128p: RandomDraws & {
    /** The fault for a state array whose rows are not two u64 words (CSR033). */
    notStates(site: SimSite, cols: number, stride0?: number, stride1?: number): KernelFault;
  };
}

let libdevice: Readonly<Record<string, LibdeviceImplementation>> | undefined;
/** The libdevice functions, loaded when a module first reads them (`const $ld = rt.libdevice`). */
function loadLibdevice(): Readonly<Record<string, LibdeviceImplementation>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (libdevice ??= (require("./libdevice") as typeof import("./libdevice")).LIBDEVICE);
}

export function createRt(opts: RtOptions): Rt {
  /** One sanitizer per kernel (and block shape), reused by every run of it in this thread. */
  const sanitizers = new Map<string, Sanitizer>();
  let lastA: unknown = null;
  let lastView: Int32Array | BigInt64Array | null = null;
  return {
    get libdevice() {
      return loadLibdevice();
    },
    c64: c64Math,
    c128: c128Math,
    cget: complexGet,
    cset: complexSet,
    xoroshiro128p: {
      ...RANDOM_DRAWS,
      notStates: (site, cols, stride0, stride1) =>
        new KernelFault(
          "CSR033",
          "out-of-bounds",
          statesLayoutProblem(site.op, site.array ?? "states", cols, stride0 === undefined ? undefined : [stride0, stride1!]) ?? "internal: the state array's layout passed the check",
          site,
          { array: site.array },
        ),
    },
    concurrent: opts.concurrent,
    oob(site, index, length, dim) {
      const access = site.kind === "write" ? "write" : site.kind === "atomic" ? `atomic ${site.op ?? ""}`.trim() : site.kind === "random" ? `cuda.random.${site.op ?? "draw"}` : "read";
      const arr = site.array ?? "array";
      const space = site.space && site.space !== "global" ? `${site.space} ` : "";
      const dimText = dim > 0 ? ` (dimension ${dim})` : "";
      const range = length > 0 ? `0..${length - 1}` : "nothing (the array is empty)";
      const hint =
        site.space === "shared" && length === 0
          ? " — dynamic shared memory needs launch(grid, block, { sharedMem: bytes })"
          : site.kind === "random"
            ? ` — one state per row: create at least as many states as the indices drawn from (cuda.random.createXoroshiro128pStates(n, seed))`
            : "";
      return new KernelFault("CSR020", "out-of-bounds", `out-of-bounds ${access} of ${space}array '${arr}': index ${index}${dimText} is outside ${range}${hint}`, site, { array: arr, index });
    },
    threadError(e, kernel, bx, by, bz, tx, ty, tz) {
      if (e instanceof KernelFault) {
        e.kernel ??= kernel;
        e.block ??= [bx, by, bz];
        if (!e.extra.threadSet && !e.thread && tx >= 0) e.thread = [tx, ty, tz];
        return e;
      }
      if (e instanceof RangeError && /call stack/i.test(e.message)) {
        const f = new KernelFault("CSR030", "internal", `the simulator ran out of stack (${e.message})`);
        f.kernel = kernel;
        f.block = [bx, by, bz];
        return f;
      }
      return e;
    },
    print(site, args) {
      opts.print(formatPrintf(site.format ?? "", args));
    },
    raise(site, args) {
      return kernelRaised(formatPrintf(site.format ?? "", args), site);
    },
    recursionTooDeep(site, limit) {
      return new KernelFault(
        "CSR086",
        "recursion-depth",
        `recursion too deep: device function '${site.fn}' was called ${limit + 1} deep, past the kernel's recursionDepth of ${limit} (a GPU's stack is sized for that depth; past it a GPU faults with an illegal address): raise it with cuda.jit(fn, { recursionDepth: ${Math.min(limit * 4, 100000)} }), or bound the recursion`,
        site,
      );
    },
    intView(a) {
      if (a === lastA && lastView) return lastView;
      lastA = a;
      lastView = a instanceof Float32Array ? new Int32Array(a.buffer, a.byteOffset, a.length) : new BigInt64Array(a.buffer, a.byteOffset, a.length);
      return lastView;
    },
    fma64,
    i64: INT64_OPS,
    f16round,
    halfTables,
    halfArray(values) {
      return new Uint16Array(new Float16Array(values).buffer);
    },
    popc(x) {
      x = x >>> 0;
      x = x - ((x >>> 1) & 0x55555555);
      x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
      return (Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) | 0;
    },
    brev(x) {
      x = ((x >>> 1) & 0x55555555) | ((x & 0x55555555) << 1);
      x = ((x >>> 2) & 0x33333333) | ((x & 0x33333333) << 2);
      x = ((x >>> 4) & 0x0f0f0f0f) | ((x & 0x0f0f0f0f) << 4);
      x = ((x >>> 8) & 0x00ff00ff) | ((x & 0x00ff00ff) << 8);
      return ((x >>> 16) | (x << 16)) >>> 0;
    },
    sameBits,
    ffs(x) {
      x = x | 0;
      return x === 0 ? 0 : 32 - Math.clz32(x & -x);
    },
    perThread(ctor, size, n) {
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n; i++) out[i] = new ctor(size);
      return out;
    },
    sanitizer(kernel, bdx, bdy, bdz) {
      // Reused rather than constructed per run: its shadow arrays need no clearing (epochs keep
      // counting), and a constructor call in every kernel prologue upsets V8's optimised kernels.
      const policy: UninitializedPolicy = { mode: opts.uninitializedShared, warn: opts.warn };
      const s = sanitizers.get(kernel.name);
      if (s && s.fits(bdx, bdy, bdz)) return s.reuse(policy);
      const fresh = new Sanitizer(kernel, bdx, bdy, bdz);
      fresh.reuse(policy);
      sanitizers.set(kernel.name, fresh);
      return fresh;
    },
    blockSanitizer(kernel, bdx, bdy, bdz, block) {
      return this.sanitizer({ ...kernel, name: `${kernel.name}#block${block}` }, bdx, bdy, bdz).named(kernel.name);
    },
    runGrid,
    watchdog(site) {
      if (Date.now() > opts.deadline) {
        throw new KernelFault(
          "CSR024",
          "timeout",
          `runaway loop: the kernel was still running in this loop when the time limit${opts.deadlineLabel ? ` (${opts.deadlineLabel})` : ""} ran out; check that its condition can become false`,
          site,
        );
      }
      return 1 << 20;
    },
  };
}

/** a*b+c with one rounding (Dekker's exact product and Knuth's two-sum; exact except near overflow). */
export function fma64(a: number, b: number, c: number): number {
  const p = a * b;
  if (!Number.isFinite(p) || p === 0 || !Number.isFinite(c)) return p + c;
  const SPLIT = 134217729; // 2^27 + 1
  let t = SPLIT * a;
  const ah = t - (t - a), al = a - ah;
  t = SPLIT * b;
  const bh = t - (t - b), bl = b - bh;
  const e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  const s = p + c;
  const bb = s - p;
  const err = (p - (s - bb)) + (c - bb);
  return s + (err + e);
}

// ───────────────────────── printf ─────────────────────────

export function formatPrintf(fmt: string, args: readonly (number | boolean | bigint)[]): string {
  let ai = 0;
  return fmt.replace(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?(ll)?([diufFeEgGxXcs%])/g, (_m, flags: string, width: string | undefined, prec: string | undefined, ll: string | undefined, conv: string) => {
    if (conv === "%") return "%";
    const raw = args[ai++];
    // %lld / %llu: an i64/u64 (a bigint), printed exactly.
    if (ll) return String(typeof raw === "bigint" ? (conv === "u" ? BigInt.asUintN(64, raw) : BigInt.asIntN(64, raw)) : raw ?? 0).padStart(width ? Number(width) : 0, " ");
    // %s is only used for booleans (console.log(true)), printed as JavaScript does; the C++ passes "true"/"false".
    if (conv === "s") return String(raw === true || (typeof raw === "number" && raw !== 0));
    const v = typeof raw === "boolean" ? (raw ? 1 : 0) : Number(raw ?? 0);
    let s: string;
    switch (conv) {
      case "d":
      case "i":
        s = String(Math.trunc(v) | 0);
        break;
      case "u":
        s = String(Math.trunc(v) >>> 0);
        break;
      case "x":
      case "X":
        s = (Math.trunc(v) >>> 0).toString(16);
        if (conv === "X") s = s.toUpperCase();
        break;
      case "c":
        s = String.fromCharCode(v);
        break;
      case "f":
      case "F":
        s = Number.isFinite(v) ? v.toFixed(prec === undefined ? 6 : Number(prec)) : nonFinite(v);
        break;
      case "e":
      case "E":
        s = Number.isFinite(v) ? cExp(v.toExponential(prec === undefined ? 6 : Number(prec))) : nonFinite(v);
        if (conv === "E") s = s.toUpperCase();
        break;
      default:
        s = formatG(v, prec === undefined ? 6 : Math.max(1, Number(prec)), flags.includes("#"));
        if (conv === "G") s = s.toUpperCase();
    }
    if (flags.includes("+") && v >= 0 && /[dieEfFgG]/.test(conv)) s = "+" + s;
    else if (flags.includes(" ") && v >= 0 && /[dieEfFgG]/.test(conv)) s = " " + s;
    const w = width ? Number(width) : 0;
    if (s.length < w) s = flags.includes("-") ? s.padEnd(w) : flags.includes("0") && Number.isFinite(v) ? padZero(s, w) : s.padStart(w);
    return s;
  });
}

function padZero(s: string, w: number): string {
  const sign = /^[+\- ]/.test(s) ? s[0]! : "";
  return sign + s.slice(sign.length).padStart(w - sign.length, "0");
}

function nonFinite(v: number): string {
  return Number.isNaN(v) ? "nan" : v > 0 ? "inf" : "-inf";
}

/** JavaScript's exponent "e+5" → C's "e+05". */
function cExp(s: string): string {
  return s.replace(/e([+-])(\d)$/, "e$10$2");
}

/** C's %g. */
export function formatG(v: number, p = 6, alt = false): string {
  if (!Number.isFinite(v)) return nonFinite(v);
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  const exp = Number(v.toExponential(p - 1).split("e")[1]);
  let s: string;
  if (exp < -4 || exp >= p) {
    s = v.toExponential(p - 1);
    if (!alt) s = s.replace(/\.?0+e/, "e");
    s = cExp(s);
  } else {
    s = v.toFixed(Math.max(0, p - 1 - exp));
    if (!alt && s.includes(".")) s = s.replace(/\.?0+$/, "");
  }
  return s;
}

// ───────────────────────── sanitizer ─────────────────────────

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
  /** Epoch of each warp's last warp synchronisation. */
  private readonly wsync: Float64Array;
  private maxEpoch = 0;
  private bx = 0;
  private by = 0;
  private bz = 0;
  private sites: SimSite[] = [];
  /** Stop at uninitialised reads unless the runtime says otherwise (the complete checks' default). */
  private policy: UninitializedPolicy = { mode: "error", warn: () => {} };
  /** Sites whose uninitialised read this run already reported as a warning (one report per site and run). */
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
    this.warnedSites.clear();
    if (policy) this.policy = policy;
    return this;
  }

  register(id: number, array: ArrayLike<number>, name: string): void {
    const n = array.length;
    const old = this.shadows[id];
    if (!old || old.length !== n || old.name !== name) this.shadows[id] = { name, length: n, WP: new Float64Array(n), RP: new Float64Array(n) };
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
    if (w === -1) {
      const what = `uninitialised shared memory read of '${s.name}[${i}]': no thread of this block wrote it before`;
      if (this.policy.mode === "error") throw this.fault("CSR023", "uninitialized-shared", what, this.site(site), t, s.name, i);
      const id = this.siteId(site);
      if (!this.warnedSites.has(id)) {
        this.warnedSites.add(id);
        this.policy.warn(this.fault("CSR023", "uninitialized-shared", `${what}; the run goes on (the simulator reads 0 there, a GPU whatever the memory held), which is harmless only if the value never reaches a result`, this.site(site), t, s.name, i));
      }
      return true;
    }
    throw this.fault(
      "CSR021",
      "race",
      `shared-memory race on '${s.name}[${i}]': thread ${this.t3(t)} reads it after thread ${this.t3(w)} wrote it${this.otherSite(ws)} with no cuda.syncthreads() in between`,
      this.site(site),
      t,
      s.name,
      i,
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
  }

  private writeFault(s: Shadow, i: number, t: number, site: SimSite | number, w: number, ws: number, r: number, rsite: number): never {
    const what =
      w !== -1
        ? `shared-memory race on '${s.name}[${i}]': threads ${this.t3(w)}${this.otherSite(ws)} and ${this.t3(t)} write different values to it with no cuda.syncthreads() in between`
        : `shared-memory race on '${s.name}[${i}]': thread ${this.t3(t)} writes it while ${r === -2 ? "other threads" : `thread ${this.t3(r)}`} read it${this.otherSite(rsite)} with no cuda.syncthreads() in between`;
    throw this.fault("CSR021", "race", what, this.site(site), t, s.name, i);
  }

  a(id: number, i: number, t: number, site: SimSite | number): void {
    const s = this.shadows[id];
    if (!s) return;
    if (s.WP[i]! < this.EB)
      throw this.fault("CSR023", "uninitialized-shared", `uninitialised shared memory update of '${s.name}[${i}]': an atomic updates it, but no thread of this block wrote it before (initialise it and cuda.syncthreads() first)`, this.site(site), t, s.name, i);
    s.WP[i] = this.E + (t + 1) * this.S + this.siteId(site);
    s.RP[i] = 0;
  }

  rp(a: unknown, i: number, t: number, site: SimSite | number): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.r(id, i, t, site);
  }
  wp(a: unknown, i: number, t: number, site: SimSite | number, differs: boolean): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.w(id, i, t, site, differs);
  }
  ap(a: unknown, i: number, t: number, site: SimSite | number): void {
    const id = this.byArray.get(a);
    if (id !== undefined) this.a(id, i, t, site);
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
