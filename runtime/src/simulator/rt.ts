/**
 * The runtime object (`rt`) a simulator module is instantiated with (see compiler/src/js/emit.ts for
 * the contract): fault construction, printf, math helpers, atomics support and the sanitizer.
 * Runs in the main thread and in workers alike, so it depends on nothing but the language.
 */
import type { FaultDetails } from "../errors";

export interface SimSite {
  readonly kind: string;
  readonly fn: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly array?: string;
  readonly space?: string;
  readonly op?: string;
  readonly format?: string;
}

/** A fault raised inside a kernel; turned into a CudaScriptError by the launch. */
export class KernelFault extends Error {
  block?: [number, number, number];
  thread?: [number, number, number];
  kernel?: string;
  constructor(
    readonly code: string,
    readonly kind: FaultDetails["kind"],
    /** Message body; the kernel, location, block and thread are added when known. */
    readonly what: string,
    readonly site?: SimSite,
    readonly extra: { array?: string; index?: number; threadSet?: boolean } = {},
  ) {
    super(what);
    this.name = "KernelFault";
  }

  /** The complete message (without the code). */
  describe(): string {
    // "<title> at file:line:col in kernel 'k', block (…), thread (…): <detail>"
    const [title, ...rest] = this.what.split(": ");
    const detail = rest.join(": ");
    const where = this.site ? ` at ${displayPath(this.site.file)}:${this.site.line}:${this.site.col}` : "";
    const k = this.kernel ? ` in kernel '${this.kernel}'` : "";
    const inFn = this.site && this.kernel && this.site.fn !== this.kernel ? ` (device function '${this.site.fn}')` : "";
    const bt = this.block ? `, block (${this.block.join(", ")})${this.thread ? `, thread (${this.thread.join(", ")})` : ""}` : "";
    return `${title}${where}${k}${inFn}${bt}${detail ? `: ${detail}` : ""}`;
  }

  details(): FaultDetails {
    return {
      kind: this.kind,
      kernel: this.kernel,
      file: this.site?.file,
      line: this.site?.line,
      col: this.site?.col,
      block: this.block,
      thread: this.thread,
      array: this.extra.array,
      index: this.extra.index,
    };
  }
}

let cwd = "";
try {
  cwd = process.cwd();
} catch {
  /* no cwd */
}
export function displayPath(file: string): string {
  if (cwd && file.startsWith(cwd + "/")) return file.slice(cwd.length + 1);
  return file;
}

export interface RtOptions {
  /** Other workers share device memory: atomics must be real atomics. */
  readonly concurrent: boolean;
  /** Absolute time (ms since epoch) after which a running kernel is stopped; Infinity for none. */
  readonly deadline: number;
  /** How the deadline was set, for the message ("--timeout 1 s"). */
  readonly deadlineLabel?: string;
  readonly print: (text: string) => void;
}

export interface Rt {
  readonly concurrent: boolean;
  oob(site: SimSite, index: number, length: number, dim: number): KernelFault;
  threadError(e: unknown, kernel: string, bx: number, by: number, bz: number, tx: number, ty: number, tz: number): unknown;
  print(site: SimSite, args: readonly (number | boolean)[]): void;
  intView(a: Float32Array | Float64Array): Int32Array | BigInt64Array;
  fma64(a: number, b: number, c: number): number;
  popc(x: number): number;
  brev(x: number): number;
  ffs(x: number): number;
  perThread(ctor: new (n: number) => ArrayLike<number>, size: number, n: number): unknown[];
  sanitizer(kernel: { name: string; file: string; line: number }, bdx: number, bdy: number, bdz: number): Sanitizer;
  watchdog(site: SimSite): number;
}

export function createRt(opts: RtOptions): Rt {
  let lastA: unknown = null;
  let lastView: Int32Array | BigInt64Array | null = null;
  return {
    concurrent: opts.concurrent,
    oob(site, index, length, dim) {
      const access = site.kind === "write" ? "write" : site.kind === "atomic" ? `atomic ${site.op ?? ""}`.trim() : "read";
      const arr = site.array ?? "array";
      const space = site.space && site.space !== "global" ? `${site.space} ` : "";
      const dimText = dim > 0 ? ` (dimension ${dim})` : "";
      const range = length > 0 ? `0..${length - 1}` : "nothing (the array is empty)";
      const hint = site.space === "shared" && length === 0 ? " — dynamic shared memory needs launch(grid, block, { sharedMem: bytes })" : "";
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
    intView(a) {
      if (a === lastA && lastView) return lastView;
      lastA = a;
      lastView = a instanceof Float32Array ? new Int32Array(a.buffer, a.byteOffset, a.length) : new BigInt64Array(a.buffer, a.byteOffset, a.length);
      return lastView;
    },
    fma64,
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
      return new Sanitizer(kernel, bdx, bdy, bdz);
    },
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

export function formatPrintf(fmt: string, args: readonly (number | boolean)[]): string {
  let ai = 0;
  return fmt.replace(/%([-+ 0#]*)(\d+)?(?:\.(\d+))?([diufFeEgGxXc%])/g, (_m, flags: string, width: string | undefined, prec: string | undefined, conv: string) => {
    if (conv === "%") return "%";
    const raw = args[ai++];
    const v = typeof raw === "boolean" ? (raw ? 1 : 0) : (raw ?? 0);
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

export interface Shadow {
  readonly name: string;
  readonly length: number;
  /** Last writer (linear thread id), -1 none. */
  readonly W: Int32Array;
  readonly WE: Int32Array;
  readonly WS: Int32Array;
  /** Last reader, -1 none, -2 several. */
  readonly R: Int32Array;
  readonly RE: Int32Array;
  readonly RS: Int32Array;
}

/**
 * Shared-memory race, uninitialised-read and divergence detection for one kernel run (one worker).
 * Every synchronisation advances an epoch; an access is ordered after an earlier one by another thread
 * when a barrier (or, within a warp, a warp synchronisation) happened in between.
 */
export class Sanitizer {
  private readonly shadows: (Shadow | undefined)[] = [];
  private readonly byArray = new Map<unknown, number>();
  /** Current epoch (advances at every synchronisation); read by the emitted fast path. */
  ep = 1;
  /** Epoch of the last block barrier. */
  bsync = 0;
  private readonly wsync: Int32Array;
  private block: [number, number, number] = [0, 0, 0];
  private sites: SimSite[] = [];

  constructor(
    private readonly kernel: { name: string; file: string; line: number },
    private readonly bdx: number,
    private readonly bdy: number,
    bdz: number,
  ) {
    this.wsync = new Int32Array(Math.ceil((bdx * bdy * bdz) / 32) + 1);
  }

  register(id: number, array: ArrayLike<number>, name: string): void {
    const n = array.length;
    this.shadows[id] = { name, length: n, W: new Int32Array(n), WE: new Int32Array(n), WS: new Int32Array(n), R: new Int32Array(n), RE: new Int32Array(n), RS: new Int32Array(n) };
    this.byArray.set(array, id);
  }

  /** The module's site table, for "the other access was at line …". */
  setSites(sites: SimSite[]): void {
    this.sites = sites;
  }

  beginBlock(bx: number, by: number, bz: number): void {
    this.block = [bx, by, bz];
    for (const s of this.shadows) {
      if (!s) continue;
      s.W.fill(-1);
      s.R.fill(-1);
    }
    this.ep = 1;
    this.bsync = 0;
    this.wsync.fill(0);
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

  private fault(code: string, kind: FaultDetails["kind"], what: string, site: SimSite, t: number, array?: string, index?: number): KernelFault {
    const f = new KernelFault(code, kind, what, site, { array, index, threadSet: true });
    f.kernel = this.kernel.name;
    f.block = this.block;
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

  /** Slow path of a read's writer check: ordered by a warp synchronisation, or a fault. */
  rs(id: number, i: number, t: number, site: number): boolean {
    const s = this.shadows[id]!;
    const w = s.W[i]!;
    if (w === t || (w !== -1 && this.ordered(w, s.WE[i]!, t))) return true;
    return this.readFault(s, i, t, site, w);
  }

  /** Slow path of a read: record the reader. */
  rr(id: number, i: number, t: number, site: number): boolean {
    this.recordRead(this.shadows[id]!, i, t, site);
    return true;
  }

  // The per-access entry points are kept tiny so that V8 inlines them into the kernel; the rare
  // paths (recording a new reader, reporting) are separate methods.

  r(id: number, i: number, t: number, site: SimSite | number): void {
    const s = this.shadows[id];
    if (!s) return;
    const w = s.W[i]!;
    if (w !== t && (w === -1 || !this.ordered(w, s.WE[i]!, t))) this.readFault(s, i, t, site, w);
    if (s.RE[i] === this.ep) {
      const r = s.R[i];
      if (r === t || r === -2) return;
    }
    this.recordRead(s, i, t, site);
  }

  private recordRead(s: Shadow, i: number, t: number, site: SimSite | number): void {
    const r = s.R[i]!;
    if (r === -1 || r === t || (r >= 0 && this.ordered(r, s.RE[i]!, t))) s.R[i] = t;
    else s.R[i] = -2;
    s.RE[i] = this.ep;
    s.RS[i] = typeof site === "number" ? site : 0;
  }

  private readFault(s: Shadow, i: number, t: number, site: SimSite | number, w: number): never {
    if (w === -1)
      throw this.fault("CSR023", "uninitialized-shared", `uninitialised shared memory read of '${s.name}[${i}]': no thread of this block wrote it before`, this.site(site), t, s.name, i);
    throw this.fault(
      "CSR021",
      "race",
      `shared-memory race on '${s.name}[${i}]': thread ${this.t3(t)} reads it after thread ${this.t3(w)} wrote it${this.otherSite(s.WS[i]!)} with no cuda.syncthreads() in between`,
      this.site(site),
      t,
      s.name,
      i,
    );
  }

  w(id: number, i: number, t: number, site: SimSite | number, differs: boolean): void {
    const s = this.shadows[id];
    if (!s) return;
    const w = s.W[i]!;
    if (w !== -1 && w !== t && differs && !this.ordered(w, s.WE[i]!, t)) this.writeFault(s, i, t, site, w, -1);
    const r = s.R[i]!;
    if (r !== -1 && r !== t && (r === -2 ? !(this.bsync > s.RE[i]!) : !this.ordered(r, s.RE[i]!, t))) this.writeFault(s, i, t, site, -1, r);
    s.W[i] = t;
    s.WE[i] = this.ep;
    s.WS[i] = typeof site === "number" ? site : 0;
    s.R[i] = -1;
  }

  private writeFault(s: Shadow, i: number, t: number, site: SimSite | number, w: number, r: number): never {
    const what =
      w !== -1
        ? `shared-memory race on '${s.name}[${i}]': threads ${this.t3(w)}${this.otherSite(s.WS[i]!)} and ${this.t3(t)} write different values to it with no cuda.syncthreads() in between`
        : `shared-memory race on '${s.name}[${i}]': thread ${this.t3(t)} writes it while ${r === -2 ? "other threads" : `thread ${this.t3(r)}`} read it${this.otherSite(s.RS[i]!)} with no cuda.syncthreads() in between`;
    throw this.fault("CSR021", "race", what, this.site(site), t, s.name, i);
  }

  a(id: number, i: number, t: number, site: SimSite | number): void {
    const s = this.shadows[id];
    if (!s) return;
    if (s.W[i] === -1)
      throw this.fault("CSR023", "uninitialized-shared", `uninitialised shared memory update of '${s.name}[${i}]': an atomic updates it, but no thread of this block wrote it before (initialise it and cuda.syncthreads() first)`, this.site(site), t, s.name, i);
    s.W[i] = t;
    s.WE[i] = this.ep;
    s.R[i] = -1;
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
    this.ep++;
    this.bsync = this.ep;
  }

  /** A barrier every running thread reached (outside divergent code, by construction). */
  sync(): void {
    this.ep++;
    this.bsync = this.ep;
  }

  warpSync(w: number): void {
    this.ep++;
    this.wsync[w >> 5] = this.ep;
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
