/**
 * The runtime object (`rt`) a simulator module is instantiated with (see compiler/src/js/emit.ts for
 * the contract): fault construction, printf, math helpers, atomics support and the sanitizer.
 * Runs in the main thread and in workers alike, so it depends on nothing but the language.
 */
import { INT64_OPS, type Int64Ops } from "./int64";
import { c128Math, c64Math, complexGet, complexSet, type Complex, type ComplexMath } from "./complex-math";
import { f16round, Float16Array } from "../float16";
import { halfTables, type HalfTables } from "./f16-table";
import { RANDOM_DRAWS, type RandomDraws } from "./random";
import { statesLayoutProblem } from "../random/state-layout";

export { displayPath, KernelFault, type SimSite } from "./fault";
export { CODES, Sanitizer, type Shadow, type UninitializedPolicy } from "./sanitizer/shared";
import { Sanitizer, type UninitializedPolicy } from "./sanitizer/shared";
import { globalRaces, type GlobalRaces } from "./sanitizer/global-races";
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
  /** The global-memory race detector of this thread (sanitizer/global-races.ts), shared by every module instance. */
  readonly races: GlobalRaces;
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
    races: globalRaces(),
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
