/**
 * IR → JavaScript for the CPU simulator. One emitted module per source file (its kernels and the
 * device functions they reach); the simulator instantiates it with `new Function("rt", source)`.
 *
 * Execution strategy per kernel:
 * - No synchronisation (no barrier, no warp operation, directly or through device functions): the
 *   kernel becomes a plain loop nest over the block's threads (`for tz, ty, tx { body }`).
 * - Otherwise loop fission: the kernel is normalised (device functions that synchronise are inlined,
 *   synchronisations lifted into statements), then split into per-thread *pieces* between
 *   synchronisation points; each piece is a loop over the block's threads, and block-level control flow
 *   (uniform loops/ifs as plain JS, divergent ones masked by a per-thread state code) connects them.
 *   Locals that live across pieces are kept in per-thread typed arrays. Warp operations are pieces of
 *   their own that work warp by warp (32 consecutive linear thread ids) on the values every lane
 *   supplied: lockstep semantics.
 *
 * Every array access is bounds-checked. The sanitize variant adds shared-memory race, uninitialised
 * shared read and divergent-barrier detection, plus a watchdog on every loop.
 *
 * The runtime object `rt` the module receives provides (see runtime/src/simulator/rt.ts):
 *   rt.oob(site, index, length, dim)      throws the out-of-bounds error
 *   rt.threadError(err, kernel, bx, by, bz, tx, ty, tz)  adds the block/thread to an error
 *   rt.print(site, args)                  device printf
 *   rt.concurrent                         true when other workers share device memory
 *   rt.intView(array)                     Int32Array (f32) / BigInt64Array (f64) view for CAS loops
 *   rt.f16round(x)                        rounds to f16 (after every f16 operation)
 *   rt.halfTables()                       { h2f, f2h }: f16 bits → value table, value → f16 bits
 *                                         (f16 arrays are Uint16Arrays of their bits: see f16.ts)
 *   rt.halfArray(values)                  a constant f16 array's bits
 *   rt.i64                                i64/u64 helpers that need a branch (see int64.ts)
 *   rt.fma64, rt.popc, rt.brev, rt.ffs    math helpers
 *   rt.sameBits(a, b)                     warp match's comparison of bit patterns
 *   rt.perThread(Ctor, size, n)           n typed arrays of `size` elements
 *   rt.sanitizer(kernelInfo)              the sanitizer state (sanitize variant only)
 *   rt.watchdog(site)                     checks the deadline; returns the next loop budget
 * and the module returns { abi, sites, kernels: { [name]: { run(L, firstBlock, endBlock), info } } }
 * where L = { args, grid: [x, y, z], block: [x, y, z], dynShared: bytes }.
 */
import { recordDeviceParamSetup, recordFieldRead, recordFieldTarget, recordFieldWrite, recordParamSetup } from "./records";
import type * as IR from "../ir/nodes";
import { f16round } from "../ir/f16";
import { DTYPES, wrapNumber, wrapNumberJs } from "../dtypes/table";
import { isComplex, isFloat, isInt64, isNarrowInt, type ArrayType, type DType, type MemorySpace, type RecordType, type ScalarType } from "../ir/types";
import { Normalizer, syncFunctions, type FnScopeStmt, type NIf, type NLoop, type NStmt, type SyncStmt, BARRIER_OPS } from "./normalize";
import { analyzeUniformity, uniformExpr, type Uniformity } from "./uniform";
import { atomicParams } from "./privatize";
import { randomDrawCall, stateRowCheck } from "./random";
import { binary64, convert64, index64, INT64_HELPERS, literal64, modular64, truthy64, unary64, usesInt64Helpers, wraps64, ZERO64 } from "./int64";
import type { PrivatizableParam, SimKernelInfo } from "./artifact-types";
import { HALF_TABLES, HALF_TABLES_NAME, halfAtomic, halfChanged, halfConstArray, halfRead, halfWrite } from "./f16";
import { assignsVar, callsGridSync, sameExpr, visitExpr } from "../ir/visit";
import { cooperativeKernel, gridSyncCode, resumeCode } from "./cooperative";
import { extentThrough, viewOfArgument } from "../ir/views";
import { inRangeCondition, planInRange } from "./in-range";
import { planFlatGrid } from "./flat-grid";

/**
 * Version of the contract between emitted modules and the runtime's `rt` (runtime/src/simulator):
 * 2 = packed sanitizer shadows (`Sanitizer.E/E1/BS/EB/S`, `shadow(id) → { WP, RP }`) and `L.priv`.
 * 3 = `rt.i64` (i64/u64 as bigints); f16 arrays as Uint16Arrays of their bits with `rt.halfTables()`
 *     and `rt.halfArray` (replacing `rt.Float16Array` and `rt.halfBits`).
 * The simulator refuses artifacts of another version (rebuild the program).
 */
export const SIM_ABI = 4;

/** Reloads the sanitizer's epoch values the inline fast paths compare against (after every synchronisation). */
const SAN_REFRESH = "$E = $S.E; $E1 = $S.E1; $BS = $S.BS; $EB = $S.EB;";
/** Where this thread's writer ([M1, M2)) and reader ([M2, M3)) values of the current epoch start (see Shadow in the runtime). */
const SAN_THREAD = "$M1 = $E + ($t + 1) * $SS; $M2 = $M1 + $SS; $M3 = $M2 + $SS;";

export interface SimEmitOptions {
  /** Race / uninitialised-read / divergent-barrier detection and loop watchdog. */
  readonly sanitize?: boolean;
  /** The loop watchdog alone (`rt.watchdog` every 2^20 passes of a loop): the debugger's expressions, which have a time budget. */
  readonly watchdog?: boolean;
}

export interface SimSite {
  readonly kind: "read" | "write" | "atomic" | "loop" | "barrier" | "warp" | "print" | "kernel" | "random";
  readonly fn: string;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly array?: string;
  readonly space?: string;
  readonly op?: string;
  readonly format?: string;
}

export type { SimKernelInfo };

export interface SimModule {
  readonly source: string;
  readonly kernels: readonly SimKernelInfo[];
}


/**
 * Per-thread storage for a scalar of this dtype: narrow integers are held widened, as computed; complex
 * values as objects in a plain Array; i64/u64 values (bigints in range) in a BigInt64Array /
 * BigUint64Array, whose loads and stores V8 compiles without allocating; an f16 scalar is always already
 * rounded, so a Float32Array holds it exactly and faster than a Float16Array.
 */
function storeArrayName(d: DType): string {
  if (isComplex(d)) return "Array";
  if (d === "f16") return "Float32Array";
  return isNarrowInt(d) ? "Int32Array" : DTYPES[d].simArray;
}

/** The typed array holding an array's elements: complex arrays hold interleaved parts (two per element). */
export function storageArrayName(d: DType): string {
  return DTYPES[d].simArray;
}
/** Typed-array slots per element. */
export function slotsPerElement(d: DType): number {
  return isComplex(d) ? 2 : 1;
}

/** The zero an array of this dtype is filled with (BigInt64Array elements are bigints). */
export function zeroOf(d: DType): string {
  return isInt64(d) ? ZERO64 : "0";
}

const EXIT = 1;

export function safeName(s: string): string {
  const t = s.replace(/[^A-Za-z0-9_$]/g, "_");
  return /^[0-9]/.test(t) ? `_${t}` : t;
}

/**
 * A constant array's storage, its values written exactly: bigint literals for i64/u64, NaN/±Infinity/-0
 * by name (JSON has none of them), f16 values as their bits (rt.halfArray encodes the f16-rounded
 * values, as the simulator's other f16 arrays hold them), complex ones as their interleaved parts.
 */
export function constArrayJs(c: IR.ConstArray): string {
  const text = (v: number | bigint | string): string => {
    if (isInt64(c.dtype)) return `${BigInt(v)}n`; // a string in serialized IR (artifact.ts)
    const n = Number(v);
    return Object.is(n, -0) ? "-0" : String(n);
  };
  const values = (c.values as readonly (number | bigint | string)[]).map(text);
  return c.dtype === "f16" ? halfConstArray(values) : `new ${storageArrayName(c.dtype)}([${values.join(", ")}])`;
}

export function literal(value: number | boolean | bigint, dtype: DType): string {
  if (dtype === "bool" || typeof value === "boolean") return value ? "true" : "false";
  if (isInt64(dtype)) return literal64(value, dtype);
  const v = dtype === "f32" ? Math.fround(Number(value)) : dtype === "f16" ? f16round(Number(value)) : wrapNumber(dtype, Number(value));
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "(-Infinity)";
  if (Object.is(v, -0)) return "(-0)";
  return v < 0 ? `(${String(v)})` : String(v);
}

/** JavaScript for converting a value of dtype `from` (already emitted as `x`) to dtype `to`. */
export function convertJs(x: string, from: DType, to: DType): string {
  if (from === to) return x;
  if (isInt64(from) || isInt64(to)) return convert64(x, from, to);
  if (to === "bool") return `(!!${x})`;
  if (from === "bool") {
    const one = to === "f32" || to === "f64" ? "1" : "1";
    return `(${x} ? ${one} : 0)`;
  }
  switch (to) {
    case "f64":
      return x;
    case "f32":
      return from === "f64" || from === "i32" || from === "u32" ? `Math.fround(${x})` : x;
    case "f16":
      // i8/u8 are exact in f16; every wider type can round.
      return from === "i8" || from === "u8" ? x : `rt.f16round(${x})`;
    case "i32":
      return isNarrowInt(from) ? x : wrapNumberJs(to, x);
    case "u32":
      return isNarrowInt(from) && !DTYPES[from].signed ? x : wrapNumberJs(to, x);
    case "i8":
    case "u8":
    case "i16":
    case "u16":
      return wrapNumberJs(to, x);
    case "c64":
    case "c128":
      // Complex values never convert through a convert node (the front end makes complexConvert intrinsics).
      throw new Error(`CudaScript simulator: internal error (a ${from} value converted to ${to})`);
  }
}

/** A complex intrinsic as a call of the simulator's complex functions (runtime/src/simulator/complex-math.ts). */
function complexJs(e: IR.IntrinsicExpr, args: readonly string[]): string {
  const name = e.name as IR.ComplexFunction;
  const result = e.type.kind === "scalar" ? e.type.dtype : "c64";
  const operand = e.args[0]?.type.kind === "scalar" ? e.args[0].type.dtype : result;
  switch (name) {
    case "complex":
      return `rt.${result}.make(${args[0]}, ${args[1]})`;
    case "complexRect":
      return `rt.${result}.rect(${args[0]}, ${args[1]})`;
    case "complexConvert":
      return `rt.${result}.from(${args[0]})`;
    case "complexRe":
      return `${args[0]}.re`;
    case "complexIm":
      return `${args[0]}.im`;
    default: {
      const fn = name.slice("complex".length).toLowerCase();
      return `rt.${operand}.${fn}(${args.join(", ")})`;
    }
  }
}

const MATH_JS: Record<string, string> = {
  sqrt: "Math.sqrt", cbrt: "Math.cbrt", exp: "Math.exp", expm1: "Math.expm1", log: "Math.log", log2: "Math.log2", log10: "Math.log10", log1p: "Math.log1p",
  sin: "Math.sin", cos: "Math.cos", tan: "Math.tan", asin: "Math.asin", acos: "Math.acos", atan: "Math.atan", atan2: "Math.atan2", sinh: "Math.sinh",
  cosh: "Math.cosh", tanh: "Math.tanh", asinh: "Math.asinh", acosh: "Math.acosh", atanh: "Math.atanh", pow: "Math.pow", hypot: "Math.hypot",
  floor: "Math.floor", ceil: "Math.ceil", round: "Math.round", trunc: "Math.trunc", abs: "Math.abs", min: "Math.min", max: "Math.max", sign: "Math.sign",
};
/** Math functions whose result of an f32 argument is exactly representable in f32. */
const EXACT_F32 = new Set(["floor", "ceil", "round", "trunc", "abs", "min", "max", "sign"]);

/** JavaScript reading element `flat` of an array (a complex element is an object of its two parts). */
function elementRead(a: ArrayInfo, flat: string): string {
  if (a.dtype === "f16") return halfRead(a.data, flat);
  return isComplex(a.dtype) ? `rt.cget(${a.data}, ${flat})` : `${a.data}[${flat}]`;
}
function elementWrite(a: ArrayInfo, flat: string, value: string): string {
  if (a.dtype === "f16") return halfWrite(a.data, flat, value);
  // A Float32Array store rounds to f32 exactly as Math.fround does: the outer call only costs time.
  if (a.dtype === "f32") value = withoutOuterFround(value);
  return isComplex(a.dtype) ? `rt.cset(${a.data}, ${flat}, ${value})` : `${a.data}[${flat}] = ${value}`;
}
/** `x` for `Math.fround(x)` when that call is the whole expression; the expression unchanged otherwise. */
export function withoutOuterFround(value: string): string {
  const head = "Math.fround(";
  if (!value.startsWith(head) || !value.endsWith(")")) return value;
  let depth = 0;
  for (let i = head.length - 1; i < value.length; i++) {
    const c = value[i];
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i === value.length - 1 ? value.slice(head.length, -1) : value;
    else if (c === '"' || c === "'" || c === "`") return value; // no string literals in arithmetic: stay safe
  }
  return value;
}
/** Whether storing `$sv` changes element `flat` (for the sanitizer's benign-race rule). */
function elementChanged(a: ArrayInfo, flat: string): string {
  if (a.dtype === "f16") return halfChanged(a.data, flat);
  return isComplex(a.dtype) ? `!rt.${a.dtype}.eq(rt.cget(${a.data}, ${flat}), $sv)` : `${a.data}[${flat}] !== $sv`;
}

export interface ArrayInfo {
  readonly name: string;
  readonly dtype: DType;
  readonly space: MemorySpace;
  /** JS expression of the element storage (a typed array). */
  data: string;
  /** JS expression of each dimension's extent. */
  readonly dims: readonly string[];
  /** Sanitizer id of a shared array, or "param" for device-function array parameters (looked up). */
  readonly shId?: number | "param";
  /** Per-thread local array in a fission kernel: storage of all threads' copies. */
  perThread?: string;
  /** Device-function array parameter: JS expression of its first element's index in `data` (a view's offset). */
  readonly offset?: string;
  /**
   * JS expressions of the element stride of each dimension, where the layout is not C order by
   * construction: N-D kernel parameters (C, F or any strides) and device-function parameters. Absent:
   * row-major from `dims` (shared, local and constant arrays, 1-D kernel parameters).
   */
  readonly strides?: readonly string[];
  /** An array of records (js/records.ts): `dims` count records, `data` is the bytes. */
  readonly record?: RecordType;
}

/**
 * Whether the N-D arguments `ps` of a launch are all C-contiguous (a dimension of extent 1 may have any
 * stride: its only index is 0), so the kernel's C-order emission indexes them correctly.
 */
const C_ORDER_CHECK = `function $cOrder(A, ps) {
  for (const p of ps) {
    const s = A[p].shape, t = A[p].strides;
    for (let d = s.length - 1, n = 1; d >= 0; n *= s[d], d--) if (s[d] > 1 && t[d] !== n) return false;
  }
  return true;
}`;

/** The element strides of an array (row-major from its extents where it has none of its own). */
export function stridesOf(a: ArrayInfo): string[] {
  if (a.strides) return [...a.strides];
  return a.dims.map((_, d) => a.dims.slice(d + 1).join(" * ") || "1");
}

type Exit =
  | { readonly kind: "js"; readonly label: string; readonly contLabel?: string }
  | { readonly kind: "masked"; readonly B: number; readonly C: number; usedC: boolean }
  | { readonly kind: "uniform"; readonly label: string; readonly contLabel: string; usedC: boolean };

interface Seg {
  readonly k: "seg";
  readonly label: string;
  pre: string[];
  body: string[];
  prologue: string[];
  readonly reads: Set<IR.Var>;
  readonly writes: Set<IR.Var>;
  readonly arrays: Set<IR.Var>;
  unit?: number;
  /** The piece is `if (<tx> < U)` (or <=, ===) alone: only threads in [lo, hi) can do anything. */
  range?: { lo: string; hi: string };
  /** With `range`: the if's branch without its test, for when the thread loop visits [lo, hi) only. */
  rangeBody?: string[];
  /** Uses the sanitizer's inline fast path (needs this thread's epoch values). */
  sanFast?: boolean;
}
interface SyncItem {
  readonly k: "sync";
  readonly s: SyncStmt;
  readonly site: number;
  /** Inside a masked construct: threads may be parked, so a barrier checks for divergence. */
  readonly masked: boolean;
  unit?: number;
}
interface RawItem {
  readonly k: "raw";
  readonly code: string;
}
interface NestItem {
  readonly k: "nest";
  readonly parts: (string | Item[])[];
}
type Item = Seg | SyncItem | RawItem | NestItem;

export class ModuleEmitter {
  readonly sites: SimSite[] = [];
  readonly helpers = new Map<string, string>();
  readonly sharedNames = new Map<string, { js: string; type: ArrayType; name: string; id: number }>();
  readonly constNames = new Map<string, string>();
  readonly deviceNames = new Map<string, string>();
  readonly fns = new Map<string, IR.IrFunction>();
  readonly syncFns: Set<string>;
  /** Privatizable and atomically updated parameters per kernel id. */
  readonly atomicParams: Map<string, { privatize: PrivatizableParam[]; atomics: number[] }>;
  readonly out: string[] = [];
  private sharedCounter = 0;

  constructor(
    readonly module: IR.IrModule,
    readonly opts: SimEmitOptions,
  ) {
    for (const f of module.deviceFunctions) this.fns.set(f.id, f);
    this.syncFns = syncFunctions(module.deviceFunctions);
    this.atomicParams = atomicParams(module);
    module.constArrays.forEach((c, i) => this.constNames.set(c.name, `$C${i}`));
    module.deviceFunctions.forEach((f, i) => this.deviceNames.set(f.id, `$d${i}_${safeName(f.name)}`));
  }

  site(kind: SimSite["kind"], span: IR.Span, fn: IR.IrFunction, extra: Partial<SimSite> = {}): number {
    this.sites.push({ kind, fn: fn.name, file: span.file, line: span.line, col: span.col, ...extra });
    return this.sites.length - 1;
  }

  sharedStorage(key: string, type: ArrayType, name: string): { js: string; id: number } {
    let s = this.sharedNames.get(key);
    if (!s) {
      const id = this.sharedCounter++;
      s = { js: `$sh${id}`, type, name, id };
      this.sharedNames.set(key, s);
    }
    return s;
  }

  helper(name: string, code: string): string {
    if (!this.helpers.has(name)) this.helpers.set(name, code);
    return name;
  }

  /** Atomic read-modify-write helper for (op, dtype, space). */
  atomicHelper(op: IR.AtomicOp, dtype: DType, space: MemorySpace): string {
    const concurrent = space === "global";
    const name = `$at_${op}_${dtype}_${concurrent ? "g" : "p"}`;
    if (this.helpers.has(name)) return name;
    if (isInt64(dtype)) return this.atomicHelper64(name, op, dtype, concurrent);
    const args = op === "compareAndSwap" ? "a, i, e, v" : "a, i, v";
    const wrapOld = dtype === "u32" ? "" : "";
    const newValue = (o: string): string => {
      switch (op) {
        case "add":
          return `${o} + v`;
        case "sub":
          return `${o} - v`;
        case "and":
          return `${o} & v`;
        case "or":
          return `${o} | v`;
        case "xor":
          return `${o} ^ v`;
        case "exch":
          return "v";
        // Numba's rule (docs/kernel-language.md, as the CUDA prelude's CAS loops): only a strictly
        // greater (smaller) value replaces the element, so a NaN on either side and +0 vs -0 leave it;
        // nanmax/nanmin also replace a NaN element with a non-NaN value. Integers: max/min.
        case "max":
          return `(v > ${o} ? v : ${o})`;
        case "min":
          return `(v < ${o} ? v : ${o})`;
        case "nanmax":
          return `(v > ${o} || (${o} !== ${o} && v === v) ? v : ${o})`;
        case "nanmin":
          return `(v < ${o} || (${o} !== ${o} && v === v) ? v : ${o})`;
        case "inc":
          return `(${o} >= v ? 0 : ${o} + 1)`;
        case "dec":
          return `((${o} === 0 || ${o} > v) ? v : ${o} - 1)`;
        case "compareAndSwap":
          return `(${o} === e ? v : ${o})`;
      }
    };
    let plain = `function (${args}) { const o = a[i]; a[i] = ${newValue("o")}; return o${wrapOld}; }`;
    let conc: string;
    if (dtype === "f16") {
      this.helper(HALF_TABLES_NAME, HALF_TABLES);
      ({ plain, concurrent: conc } = halfAtomic(args, newValue));
    } else if (dtype === "i32" || dtype === "u32") {
      const direct: Partial<Record<IR.AtomicOp, string>> = { add: "Atomics.add(a, i, v)", sub: "Atomics.sub(a, i, v)", and: "Atomics.and(a, i, v)", or: "Atomics.or(a, i, v)", xor: "Atomics.xor(a, i, v)", exch: "Atomics.exchange(a, i, v)", compareAndSwap: "Atomics.compareExchange(a, i, e, v)" };
      const d = direct[op];
      conc = d
        ? `function (${args}) { return ${d}; }`
        : `function (${args}) { for (;;) { const o = Atomics.load(a, i); const n = ${newValue("o")}; if (Atomics.compareExchange(a, i, o, n) === o) return o; } }`;
    } else if (dtype === "f32") {
      this.helper("$f32s", "const $f32s = new Float32Array(1), $f32b = new Int32Array($f32s.buffer);");
      conc = `function (${args}) { const iv = rt.intView(a); for (;;) { const ob = Atomics.load(iv, i); $f32b[0] = ob; const o = $f32s[0]; $f32s[0] = ${newValue("o")}; if (Atomics.compareExchange(iv, i, ob, $f32b[0]) === ob) return o; } }`;
    } else {
      this.helper("$f64s", "const $f64s = new Float64Array(1), $f64b = new BigInt64Array($f64s.buffer);");
      conc = `function (${args}) { const iv = rt.intView(a); for (;;) { const ob = Atomics.load(iv, i); $f64b[0] = ob; const o = $f64s[0]; $f64s[0] = ${newValue("o")}; if (Atomics.compareExchange(iv, i, ob, $f64b[0]) === ob) return o; } }`;
    }
    const code = concurrent ? `const ${name} = rt.concurrent ? ${conc} : ${plain};` : `const ${name} = ${plain};`;
    this.helpers.set(name, code);
    return name;
  }

  /**
   * i64/u64 atomics on a BigInt64Array / BigUint64Array: values are bigints, as the elements are. Stores
   * into these arrays wrap modulo 2^64 by themselves; Atomics.* work on them directly when the array is
   * shared between workers.
   */
  private atomicHelper64(name: string, op: IR.AtomicOp, dtype: "i64" | "u64", concurrent: boolean): string {
    const args = op === "compareAndSwap" ? "a, i, e, v" : "a, i, v";
    const next: Partial<Record<IR.AtomicOp, string>> = {
      add: "o + v", sub: "o - v", and: "o & v", or: "o | v", xor: "o ^ v", exch: "v",
      max: "(v > o ? v : o)", nanmax: "(v > o ? v : o)", min: "(v < o ? v : o)", nanmin: "(v < o ? v : o)", compareAndSwap: "(o === e ? v : o)",
    };
    const n = next[op];
    if (!n) throw new Error(`CudaScript simulator: cuda.atomic.${op} on ${dtype}`);
    const plain = `function (${args}) { const o = a[i]; a[i] = ${n}; return o; }`;
    const direct: Partial<Record<IR.AtomicOp, string>> = { add: "Atomics.add(a, i, v)", sub: "Atomics.sub(a, i, v)", and: "Atomics.and(a, i, v)", or: "Atomics.or(a, i, v)", xor: "Atomics.xor(a, i, v)", exch: "Atomics.exchange(a, i, v)", compareAndSwap: "Atomics.compareExchange(a, i, e, v)" };
    const d = direct[op];
    const conc = d
      ? `function (${args}) { return ${d}; }`
      : `function (${args}) { for (;;) { const o = Atomics.load(a, i); if (Atomics.compareExchange(a, i, o, ${n}) === o) return o; } }`;
    this.helpers.set(name, concurrent ? `const ${name} = rt.concurrent ? ${conc} : ${plain};` : `const ${name} = ${plain};`);
    return name;
  }

  emit(): SimModule {
    const kernels: SimKernelInfo[] = [];
    const deviceCode: string[] = [];
    for (const f of this.module.deviceFunctions) {
      if (this.syncFns.has(f.id)) continue; // always inlined
      deviceCode.push(new FnEmitter(this, f, "device").emitDevice());
    }
    const kernelCode: string[] = [];
    const entries: string[] = [];
    this.module.kernels.forEach((k, i) => {
      const name = `$k${i}_${safeName(k.name)}`;
      const { code, info } = new FnEmitter(this, k, "kernel").emitKernel(name);
      kernelCode.push(code);
      kernels.push(info);
      // A kernel with N-D array parameters is emitted twice: indexing through the strides, and row-major
      // for launches whose N-D arrays are all C-contiguous (the common case, one multiplication less per
      // access); `run` picks one per launch.
      const nd = k.params.flatMap((p, j) => (p.type.kind === "array" && p.type.rank > 1 ? [j] : []));
      let run = name;
      if (nd.length) {
        kernelCode.push(new FnEmitter(this, k, "kernel", true).emitKernel(`${name}$c`).code);
        this.helper("$cOrder", C_ORDER_CHECK);
        run = `function (L, ...r) { return ($cOrder(L.args, ${JSON.stringify(nd)}) ? ${name}$c : ${name})(L, ...r); }`;
      }
      entries.push(`${JSON.stringify(k.name)}: { run: ${run}, info: ${JSON.stringify(info)} }`);
    });
    const o = this.prelude(`// CudaScript simulator module for ${this.module.file}${this.opts.sanitize ? " (sanitize)" : ""}`);
    o.push(...deviceCode, ...kernelCode);
    o.push(`return { abi: ${SIM_ABI}, sites: $sites, kernels: { ${entries.join(", ")} } };`);
    return { source: o.join("\n"), kernels };
  }

  /** The module's shared part, written after its functions (which register sites, helpers and shared arrays): also the stepping backend's. */
  prelude(header: string): string[] {
    const o: string[] = [];
    o.push('"use strict";');
    o.push(header);
    o.push(`const $sites = ${JSON.stringify(this.sites)};`);
    o.push("function $oob(s, i, n, d) { throw rt.oob($sites[s], i, n, d); }");
    o.push("function $idiv(a, b) { return b === 0 ? 0 : (a / b) | 0; }");
    o.push("function $udiv(a, b) { return b === 0 ? 0 : (a / b) >>> 0; }");
    o.push("let $san = null;");
    o.push("let $cbx = 0, $cby = 0, $cbz = 0, $cbdx = 1, $cbdy = 1, $cbdz = 1, $cgdx = 1, $cgdy = 1, $cgdz = 1;");
    for (const s of this.sharedNames.values()) o.push(`let ${s.js} = null; // shared ${s.name}`);
    this.module.constArrays.forEach((c, i) => o.push(`const $C${i} = ${constArrayJs(c)}; // ${c.name}`));
    for (const h of this.helpers.values()) o.push(h);
    return o;
  }
}

/** One function's code. The stepping backend (compiler/src/step) extends it: the `protected` members are its hooks. */
export class FnEmitter {
  protected readonly arrays = new Map<IR.Var, ArrayInfo>();
  protected readonly scalars = new Set<IR.Var>();
  private tempMax = -1;
  /** Sanitizer flat-index temporaries $f0..: how many depths use one. */
  private flatTemps = 0;
  private depth = 0;
  private labelCounter = 0;
  private codeCounter = 2;
  /** Collector for the piece being emitted (fission kernels). */
  private seg: Seg | undefined;
  private exits: Exit[] = [];
  private fnScopes: { id: number; R: number }[] = [];
  private maskedDepth = 0;
  private mode: "fast" | "fission" | "device";
  private uni: Uniformity | undefined;
  private perThread = new Set<IR.Var>();
  /** Whether any code of this fission kernel sets a thread's status (`$st`): a return, or a branch or loop some threads wait out. */
  private threadsLeave = false;
  private perThreadArrays = new Set<IR.Var>();
  private assignedParams = new Set<IR.Var>();
  private counters: string[] = [];
  /** Immutable locals whose value is a function of the thread index and launch constants: recomputed per piece. */
  private remat = new Map<IR.Var, IR.Expr>();
  private readonly san: boolean;
  /** Kernel array parameters that may be privatized in a launch, and the helpers chosen per launch for them. */
  private readonly privParams = new Map<IR.Var, PrivatizableParam>();
  private readonly privLines: string[] = [];
  private readonly privHelpers = new Map<string, string>();
  /** Sanitized reads of the element the enclosing statement then writes (`a[i] += …`): no read record needed. */
  private readonly rmwReads = new Set<IR.IndexExpr>();
  /** The kernel calls g.sync(): a generator per block (js/cooperative.ts). */
  private cooperative = false;
  /** The access whose indices are being emitted: a `viewIndex` among them reports its out-of-bounds as this access. */
  private viewAccess: { kind: "read" | "write" | "atomic"; space: MemorySpace; op?: string } = { kind: "read", space: "global" };
  /** While emitting the proven copy of a plain loop kernel's body: the accesses whose bounds checks it leaves out (see in-range.ts). */
  private proven: ReadonlySet<readonly IR.Expr[]> | undefined;
  /** While emitting the flat-grid copy of a plain kernel's body: `cuda.grid(1)` is the loop's `$g` (flat-grid.ts). */
  private flatGrid = false;

  constructor(
    protected readonly me: ModuleEmitter,
    protected readonly fn: IR.IrFunction,
    kind: "kernel" | "device",
    /**
     * This emission of a kernel is for launches whose N-D arrays are all C-contiguous: it indexes them
     * row-major from their extents, as before strides existed, sparing a multiplication per access.
     */
    private readonly cOrderArrays = false,
  ) {
    this.mode = kind === "device" ? "device" : "fast";
    this.san = !!me.opts.sanitize;
    if (kind === "kernel") for (const p of me.atomicParams.get(fn.id)?.privatize ?? []) this.privParams.set(fn.params[p.param]!, p);
  }

  // ───────────────────────── names ─────────────────────────

  protected vn(v: IR.Var): string {
    return `${safeName(v.name)}$${v.id}`;
  }
  private storage(v: IR.Var): string {
    return `$V_${this.vn(v)}`;
  }
  private label(prefix: string): string {
    return `$${prefix}${this.labelCounter++}`;
  }
  private temp(dim: number): string {
    this.tempMax = Math.max(this.tempMax, this.depth);
    return `$${"ijk"[dim]}${this.depth}`;
  }

  private noteRead(v: IR.Var): void {
    if (this.seg) this.seg.reads.add(v);
  }
  private noteWrite(v: IR.Var): void {
    if (this.seg) this.seg.writes.add(v);
    if (v.isParam) this.assignedParams.add(v);
  }

  // ───────────────────────── arrays ─────────────────────────

  private declareKernelParamArray(p: IR.Var, i: number, setup: string[]): void {
    const t = p.type as ArrayType;
    const n = this.vn(p);
    if (t.record) {
      // The front end accepts only 1-D record arrays in kernels (lower-records.ts).
      setup.push(recordParamSetup(n, `$A[${i}]`, t.record));
      this.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims: [`${n}$n`], record: t.record });
    } else if (t.rank === 1) {
      setup.push(`const ${n} = $A[${i}], ${n}$n = ${n}.length${isComplex(t.dtype) ? " >> 1" : ""};`);
      this.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims: [`${n}$n`] });
    } else {
      // N-D: extents and element strides (C order, F order or any strides: docs/abi.md), or, in the
      // C-order emission of the kernel, the extents alone.
      const dims = Array.from({ length: t.rank }, (_, d) => `${n}$${d}`);
      if (this.cOrderArrays) {
        setup.push(`const ${n} = $A[${i}].data${dims.map((d, k) => `, ${d} = $A[${i}].shape[${k}]`).join("")};`);
        this.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims });
        return;
      }
      const strides = Array.from({ length: t.rank }, (_, d) => `${n}$s${d}`);
      setup.push(`const ${n} = $A[${i}].data${dims.map((d, k) => `, ${d} = $A[${i}].shape[${k}]`).join("")}${strides.map((d, k) => `, ${d} = $A[${i}].strides[${k}]`).join("")};`);
      this.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims, strides });
    }
  }

  private arrayInfo(v: IR.Var): ArrayInfo {
    const a = this.arrays.get(v);
    if (a) return a;
    throw new Error(`CudaScript simulator: array '${v.name}' used before its declaration`);
  }

  /** Registers an array declared in the body (shared, local, const). Returns setup code. */
  private declareBodyArray(s: IR.ArrayDeclStmt | IR.ConstArrayDeclStmt, arrayKeys: ReadonlyMap<IR.Var, string> | undefined, setup: string[], perBlock: string[]): void {
    if (this.arrays.has(s.v)) return;
    if (s.k === "constArrayDecl") {
      const js = this.me.constNames.get(s.constName) ?? "$missingConst";
      const t = s.v.type as ArrayType;
      // A 2-D/3-D constant (cuda.ndarray) is its row-major values with the constant shape as extents.
      const dims = t.rank === 1 ? [`${js}.length${isComplex(t.dtype) ? " >> 1" : ""}`] : (t.shape ?? []).map(String);
      this.arrays.set(s.v, { name: s.v.name, dtype: t.dtype, space: "const", data: js, dims });
      return;
    }
    const t = s.arrayType;
    const shape = t.shape ?? [1];
    if (t.space === "shared") {
      const key = arrayKeys?.get(s.v) ?? `${this.fn.id}#${s.v.id}`;
      const dynamic = shape.length === 1 && shape[0] === 0;
      const st = this.me.sharedStorage(dynamic ? `$dyn:${t.dtype}` : key, t, s.v.name);
      const local = this.mode === "device" ? st.js : this.vn(s.v);
      if (this.mode !== "device") {
        const ctor = storageArrayName(t.dtype), slots = slotsPerElement(t.dtype);
        if (dynamic) setup.push(`const ${local} = ${st.js} = new ${ctor}($dynBuf, 0, Math.floor($dynBuf.byteLength / ${ctor}.BYTES_PER_ELEMENT / ${slots}) * ${slots});`);
        else setup.push(`const ${local} = ${st.js} = new ${ctor}(${shape.reduce((a, b) => a * b, 1) * slots});`);
        perBlock.push(`${local}.fill(${zeroOf(t.dtype)});`);
        if (this.san) setup.push(`$S.register(${st.id}, ${local}, ${JSON.stringify(s.v.name)}); const { WP: $WP${st.id}, RP: $RP${st.id} } = $S.shadow(${st.id});`);
      }
      const dims = dynamic ? [`(${local}.length / ${slotsPerElement(t.dtype)})`] : shape.map(String);
      this.arrays.set(s.v, { name: s.v.name, dtype: t.dtype, space: "shared", data: local, dims, shId: st.id });
      return;
    }
    // local
    const n = this.vn(s.v);
    const size = shape.reduce((a, b) => a * b, 1);
    setup.push(`let ${n} = new ${storageArrayName(t.dtype)}(${size * slotsPerElement(t.dtype)});`);
    // In a fission kernel every local array may need one copy per thread; decided after the pieces are known.
    this.arrays.set(s.v, { name: s.v.name, dtype: t.dtype, space: "local", data: n, dims: shape.map(String), perThread: this.mode === "fission" ? "?" : undefined });
  }

  // ───────────────────────── expressions ─────────────────────────

  private special(e: IR.SpecialExpr): string {
    const ax = e.axis;
    const dev = this.mode === "device";
    switch (e.reg) {
      case "threadIdx":
        return `$t${ax}`;
      case "blockIdx":
        return dev ? `$cb${ax}` : `$b${ax}`;
      case "blockDim":
        return dev ? `$cbd${ax}` : `$bd${ax}`;
      case "gridDim":
        return dev ? `$cgd${ax}` : `$gd${ax}`;
      case "laneid":
        return "($t & 31)";
      case "warpsize":
        return "32";
      case "grid":
        if (this.flatGrid && ax === "x") return "$g";
        return dev ? `(($cb${ax} * $cbd${ax} + $t${ax}) | 0)` : `(($b${ax} * $bd${ax} + $t${ax}) | 0)`;
      case "gridsize":
        return dev ? `(($cgd${ax} * $cbd${ax}) | 0)` : `(($gd${ax} * $bd${ax}) | 0)`;
    }
  }

  ex(e: IR.Expr): string {
    switch (e.k) {
      case "const":
        return literal(e.value, e.type.dtype);
      case "var":
        if (e.type.kind !== "scalar") throw new Error(`CudaScript simulator: array '${e.v.name}' used as a value`);
        this.noteRead(e.v);
        return this.vn(e.v);
      case "special":
        return this.special(e);
      case "unary": {
        const d = e.type.dtype;
        // unary64 wraps all but an i64's ~, so the operand may be modular (int64.ts modular64).
        if (isInt64(d) && e.op !== "!") return this.i64(unary64(e.op, d, e.op === "~" && d === "i64" ? this.ex(e.operand) : this.exMod64(e.operand)));
        const x = this.ex(e.operand);
        if (e.op === "!") return `(!${x})`;
        if (e.op === "-") return d === "i32" ? `((-${x}) | 0)` : d === "u32" ? `((-${x}) >>> 0)` : `(-${x})`;
        return d === "u32" ? `((~${x}) >>> 0)` : `(~${x})`;
      }
      case "binary":
        return this.binary(e);
      case "compare": {
        const op = e.op === "==" ? "===" : e.op === "!=" ? "!==" : e.op;
        return `(${this.ex(e.left)} ${op} ${this.ex(e.right)})`;
      }
      case "logical":
        return `(${this.ex(e.left)} ${e.op} ${this.ex(e.right)})`;
      case "select":
        return `(${this.ex(e.cond)} ? ${this.ex(e.then)} : ${this.ex(e.else)})`;
      case "convert": {
        const from = (e.value.type as ScalarType).dtype;
        // i64 ↔ u64 is a wrap: the value may be modular (int64.ts modular64).
        const js = convertJs(isInt64(from) && isInt64(e.type.dtype) && from !== e.type.dtype ? this.exMod64(e.value) : this.ex(e.value), from, e.type.dtype);
        return isInt64(from) || isInt64(e.type.dtype) ? this.i64(js) : js;
      }
      case "truthy": {
        const from = (e.value.type as ScalarType).dtype;
        const x = this.ex(e.value);
        if (isInt64(from)) return truthy64(x);
        return from === "bool" ? x : `(!!${x})`;
      }
      case "index":
        return this.load(e);
      case "shape": {
        const a = this.arrayInfo(e.array.v);
        this.noteArray(e.array.v);
        return a.dims[e.dim] ?? "1";
      }
      case "call":
        return this.call(e);
      case "intrinsic":
        return this.intrinsic(e);
      case "atomic":
        return this.atomic(e);
      case "random":
        return this.random(e);
    }
  }

  /** i64/u64 code (int64.ts): marks the module as using the helpers (`$L`) when the code calls them. */
  private i64(code: string): string {
    if (usesInt64Helpers(code)) this.me.helper(INT64_HELPERS.name, INT64_HELPERS.code);
    return code;
  }

  /**
   * An i64/u64 expression whose value only matters modulo 2^64 (its parent wraps): chains of + - * & | ^
   * and << by a constant without wraps of their own (int64.ts modular64); anything else as `ex` emits it.
   */
  private exMod64(e: IR.Expr): string {
    if (e.k === "binary" && isInt64(e.type.dtype)) {
      const b = e.op === "<<" ? this.ex(e.right) : this.exMod64(e.right);
      const js = modular64(e.op, this.exMod64(e.left), b);
      if (js !== undefined) return js;
    } else if (e.k === "unary" && isInt64(e.type.dtype) && e.op !== "!") {
      return `(${e.op}${this.exMod64(e.operand)})`;
    } else if (e.k === "convert" && isInt64(e.type.dtype) && isInt64((e.value.type as ScalarType).dtype) && e.type.dtype !== (e.value.type as ScalarType).dtype) {
      return this.exMod64(e.value);
    }
    return this.ex(e);
  }

  private binary(e: IR.BinaryExpr): string {
    const d = e.type.dtype;
    const op = e.op;
    if (isInt64(d)) {
      const b = op === "+" || op === "-" || op === "*" ? this.exMod64(e.right) : this.ex(e.right);
      return this.i64(binary64(op, d, wraps64(op, b) ? this.exMod64(e.left) : this.ex(e.left), b));
    }
    const a = this.ex(e.left), b = this.ex(e.right);
    if (d === "f32") return `Math.fround(${a} ${op} ${b})`;
    // + - * / % of two f16 are exact in f64, so one rounding to f16 is the correctly rounded result.
    if (d === "f16") return `rt.f16round(${a} ${op} ${b})`;
    if (d === "f64") return `(${a} ${op} ${b})`;
    if (d === "u32") {
      switch (op) {
        case "*":
          return `(Math.imul(${a}, ${b}) >>> 0)`;
        case "/":
          return `$udiv(${a}, ${b})`;
        case ">>":
        case ">>>":
          return `(${a} >>> ${b})`;
        default:
          return `((${a} ${op} ${b}) >>> 0)`;
      }
    }
    // i32 (and defensively narrower ints: computed as i32, the store/convert wraps)
    switch (op) {
      case "+":
      case "-":
        return `((${a} ${op} ${b}) | 0)`;
      case "*":
        return `Math.imul(${a}, ${b})`;
      case "/":
        return `$idiv(${a}, ${b})`;
      case "%":
        return `((${a} % ${b}) | 0)`;
      case ">>>":
        return `((${a} >>> ${b}) | 0)`;
      default:
        return `(${a} ${op} ${b})`;
    }
  }

  /** Called at every element access of `v`. */
  private noteArray(v: IR.Var): void {
    const a = this.arrays.get(v);
    if (a?.dtype === "f16" || a?.record?.layout.fields.some((f) => f.dtype === "f16")) this.me.helper(HALF_TABLES_NAME, HALF_TABLES);
    if (this.seg && a?.perThread) this.seg.arrays.add(v);
  }

  private isSimple(x: string): boolean {
    return /^[A-Za-z_$][\w$]*$/.test(x);
  }

  /** Bounds checks for an element access; returns the checks (comma-separated) and the flat index. */
  private addr(a: ArrayInfo, indices: readonly IR.Expr[], site: number): { pre: string[]; flat: string } {
    const pre: string[] = [];
    const idx: string[] = [];
    this.depth++;
    const myDepth = this.depth;
    const proven = this.proven?.has(indices) === true;
    indices.forEach((ie, k) => {
      const dim = a.dims[k] ?? "1";
      if (ie.k === "const" && /^\d+$/.test(dim)) {
        const c = Number(ie.value);
        if (c >= 0 && c < Number(dim)) {
          idx.push(String(c));
          return;
        }
      }
      const x = this.ex(ie);
      if (proven) {
        idx.push(x);
        return;
      }
      if (ie.type.kind === "scalar" && isInt64(ie.type.dtype)) {
        // A 64-bit index (a bigint): a number for the typed array, both ends compared.
        this.depth = myDepth;
        const t = this.temp(k);
        pre.push(index64(t, x, dim, `$oob(${site}, ${t}, ${dim}, ${k})`));
        idx.push(t);
        return;
      }
      if (this.isSimple(x) || /^\(?-?\d+\)?$/.test(x)) {
        pre.push(`(${x} >>> 0 < ${dim} || $oob(${site}, ${x}, ${dim}, ${k}))`);
        idx.push(x);
      } else {
        this.depth = myDepth;
        const t = this.temp(k);
        pre.push(`((${t} = ${x}) >>> 0 < ${dim} || $oob(${site}, ${t}, ${dim}, ${k}))`);
        idx.push(t);
      }
    });
    this.depth = myDepth - 1;
    let flat = idx[0]!;
    if (a.strides) {
      // i * s0 + j * s1 + k * s2 (a stride of "1", a device function's contiguous case, costs nothing).
      const terms = idx.map((x, k) => (a.strides![k] === "1" ? x : `${x} * ${a.strides![k]}`));
      flat = terms.join(" + ");
    } else if (idx.length === 2) flat = `${idx[0]} * ${a.dims[1]} + ${idx[1]}`;
    else if (idx.length === 3) flat = `(${idx[0]} * ${a.dims[1]} + ${idx[1]}) * ${a.dims[2]} + ${idx[2]}`;
    if (a.offset) flat = `${a.offset} + ${idx.length > 1 || a.strides ? `(${flat})` : flat}`;
    return { pre, flat };
  }

  /** Whether the sanitizer's inline fast paths may run in this kernel (it has shared arrays of its own). */
  private usesSharedSan(): boolean {
    return this.san && this.mode !== "device" && [...this.arrays.values()].some((a) => typeof a.shId === "number");
  }

  /** A multi-dimensional flat index computed once into a temporary (pushed to `pre`) for the sanitizer's repeated uses. */
  private flatTemp(flat: string, pre: string[]): string {
    if (this.isSimple(flat) || /^\d+$/.test(flat)) return flat;
    this.depth++;
    const t = this.temp(0).replace(/^\$i/, "$f");
    this.depth--;
    this.flatTemps = Math.max(this.flatTemps, this.depth + 1);
    pre.push(`(${t} = ${flat})`);
    return t;
  }

  private sanCall(a: ArrayInfo, kind: "r" | "w" | "a", flat: string, site: number, extra = ""): string | undefined {
    if (!this.san || a.shId === undefined) return undefined;
    const S = this.mode === "device" ? "$san" : "$S";
    if (a.shId === "param") return `${S}.${kind}p(${a.data}, ${flat}, $t, ${site}${extra})`;
    return `${S}.${kind}(${a.shId}, ${flat}, $t, ${site}${extra})`;
  }

  /** A field of a record array's element: bounds-checked against the record count, read through the field's view. */
  private recordAccess(e: IR.IndexExpr, value?: IR.Expr): string {
    const a = this.arrayInfo(e.array.v);
    this.noteArray(e.array.v);
    const site = this.me.site(value ? "write" : "read", e.span, this.fn, { array: a.name, space: a.space });
    const { pre, flat } = this.addr(a, e.indices, site);
    if (!value) {
      const v = recordFieldRead(a.data, a.record!, e.field!, flat);
      return pre.length ? `(${pre.join(", ")}, ${v})` : v;
    }
    this.depth += 2;
    const v = this.ex(value);
    this.depth -= 2;
    return `${pre.length ? `${pre.join(", ")}; ` : ""}${recordFieldWrite(a.data, a.record!, e.field!, flat, v)};`;
  }

  private load(e: IR.IndexExpr): string {
    if (e.field) return this.recordAccess(e);
    const a = this.arrayInfo(e.array.v);
    this.noteArray(e.array.v);
    const site = this.me.site("read", e.span, this.fn, { array: a.name, space: a.space });
    const outerAccess = this.viewAccess;
    this.viewAccess = { kind: "read", space: a.space };
    const { pre, flat } = this.addr(a, e.indices, site);
    this.viewAccess = outerAccess;
    if (this.san && typeof a.shId === "number" && this.mode !== "device") {
      // Inline fast path of the sanitizer's read check (see Sanitizer in the runtime). Writer: this
      // thread in this epoch, or another before the last barrier (and in this block). Reader record:
      // already this thread or several in this epoch; another single reader in this epoch → several;
      // no reader since the last barrier → this thread; anything else → the slow path.
      const id = a.shId;
      if (this.seg) this.seg.sanFast = true;
      const x = this.flatTemp(flat, pre);
      pre.push(`((($sw = $WP${id}[${x}]) < $BS ? $sw >= $EB : $sw >= $M1 && $sw < $M2) || $S.rs(${id}, ${x}, $t, ${site}))`);
      // The write of the same element that follows in this statement replaces the reader record anyway.
      if (!this.rmwReads.has(e))
        pre.push(`(($sr = $RP${id}[${x}]) >= $E ? ($sr < $E1 || ($sr >= $M2 && $sr < $M3) || (($RP${id}[${x}] = $E + ${site}), true)) : $sr < $BS ? (($RP${id}[${x}] = $M2 + ${site}), true) : $S.rr(${id}, ${x}, $t, ${site}))`);
      let v = elementRead(a, x);
      if (a.dtype === "bool") v = `(${v} !== 0)`;
      return `(${pre.join(", ")}, ${v})`;
    } else {
      const s = this.sanCall(a, "r", flat, site);
      if (s) pre.push(s);
    }
    let v = elementRead(a, flat);
    if (a.dtype === "bool") v = `(${v} !== 0)`;
    return pre.length ? `(${pre.join(", ")}, ${v})` : v;
  }

  private store(t: IR.IndexExpr, value: IR.Expr): string {
    if (t.field) return this.recordAccess(t, value);
    const a = this.arrayInfo(t.array.v);
    this.noteArray(t.array.v);
    const site = this.me.site("write", t.span, this.fn, { array: a.name, space: a.space });
    const outerAccess = this.viewAccess;
    this.viewAccess = { kind: "write", space: a.space };
    const { pre, flat } = this.addr(a, t.indices, site);
    this.viewAccess = outerAccess;
    const rmw = this.san && typeof a.shId === "number" && this.mode !== "device" ? readsOfSameElement(t, value) : [];
    for (const r of rmw) this.rmwReads.add(r);
    this.depth += 2;
    const v = this.ex(value);
    this.depth -= 2;
    for (const r of rmw) this.rmwReads.delete(r);
    const checks = pre.length ? `${pre.join(", ")}; ` : "";
    if (this.san && typeof a.shId === "number" && this.mode !== "device") {
      // Inline fast path of the sanitizer's write check: last written by this thread in this epoch or
      // before the last barrier (or never), and no reader but this thread since the last barrier.
      // Sanitizer.w re-checks everything on the slow path.
      const id = a.shId;
      if (this.seg) this.seg.sanFast = true;
      const idx: string[] = [];
      const x = this.flatTemp(flat, idx);
      const fast = `(($sw = $WP${id}[${x}]) < $BS || ($sw >= $M1 && $sw < $M2)) && (($sr = $RP${id}[${x}]) < $BS || ($sr >= $M2 && $sr < $M3))`;
      return `{ ${checks}${idx.length ? `${idx.join(", ")}; ` : ""}const $sv = ${v}; if (${fast}) { $WP${id}[${x}] = $M1 + ${site}; $RP${id}[${x}] = 0; } else $S.w(${id}, ${x}, $t, ${site}, ${elementChanged(a, x)}); ${elementWrite(a, x, "$sv")}; }`;
    }
    if (this.san && a.shId !== undefined) {
      const s = this.sanCall(a, "w", flat, site, `, ${elementChanged(a, flat)}`)!;
      return `{ ${checks}const $sv = ${v}; ${s}; ${elementWrite(a, flat, "$sv")}; }`;
    }
    return `${checks}${elementWrite(a, flat, v)};`;
  }

  private atomic(e: IR.AtomicExpr): string {
    const a = this.arrayInfo(e.array.v);
    this.noteArray(e.array.v);
    const site = this.me.site("atomic", e.span, this.fn, { array: a.name, space: a.space, op: e.op });
    const outerAccess = this.viewAccess;
    this.viewAccess = { kind: "atomic", space: a.space, op: e.op };
    const { pre, flat } = this.addr(a, e.indices, site);
    this.viewAccess = outerAccess;
    this.depth += 2;
    const exp = e.expected ? this.ex(e.expected) : undefined;
    const v = this.ex(e.value);
    this.depth -= 2;
    const space = a.space === "shared" || a.space === "local" ? "shared" : "global";
    const priv = this.mode !== "device" ? this.privParams.get(e.array.v) : undefined;
    if (e.field) {
      // A record field (js/records.ts): the helper of the field's dtype on the field's view.
      const t = recordFieldTarget(a.data, a.record!, e.field, flat);
      const call = `${this.me.atomicHelper(e.op, e.field.dtype, space)}(${t.data}, ${t.index}, ${exp !== undefined ? `${exp}, ` : ""}${v})`;
      return pre.length ? `(${pre.join(", ")}, ${call})` : call;
    }
    const h = priv ? this.privHelper(e.op, priv, a) : this.me.atomicHelper(e.op, a.dtype, a.shId === "param" ? "global" : space);
    const s = this.sanCall(a, "a", flat, site);
    if (s) pre.push(s);
    const call = `${h}(${a.data}, ${flat}, ${exp !== undefined ? `${exp}, ` : ""}${v})`;
    return pre.length ? `(${pre.join(", ")}, ${call})` : call;
  }

  /**
   * `cuda.random.<draw>(states, i)` (js/random.ts): row i bounds-checked, the rows checked to be two
   * words, and under the sanitizer a read and a write of both words of the row, as the draw does.
   */
  private random(e: IR.RandomExpr): string {
    const a = this.arrayInfo(e.states.v);
    this.noteArray(e.states.v);
    const site = this.me.site("random", e.span, this.fn, { array: a.name, space: a.space, op: e.draw });
    // The row index (one index, no strides): the generator reads words 2i and 2i + 1, so a state array
    // must be C-contiguous; the check says so otherwise (CSR033).
    const { pre, flat } = this.addr({ ...a, strides: undefined }, [e.index], site);
    const cols = a.dims[1] ?? "1";
    const strides = a.strides ?? [];
    if (cols !== "2" || strides.length) {
      this.me.helper("$throw", "function $throw(f) { throw f; }");
      pre.push(stateRowCheck(cols, site, strides));
    }
    for (const kind of ["r", "w"] as const) {
      for (const word of [`2 * ${flat}`, `2 * ${flat} + 1`]) {
        const s = this.sanCall(a, kind, word, site, kind === "w" ? ", true" : "");
        if (s) pre.push(s);
      }
    }
    const call = randomDrawCall(e.draw, a.data, flat);
    return pre.length ? `(${pre.join(", ")}, ${call})` : call;
  }

  /**
   * The atomic helper for a privatizable array, chosen once per launch: a plain read-modify-write when
   * this executor holds a private copy of the array (`L.priv[param]`), the shared-memory one otherwise.
   */
  private privHelper(op: IR.AtomicOp, p: PrivatizableParam, a: ArrayInfo): string {
    const key = `${p.param}:${op}`;
    let name = this.privHelpers.get(key);
    if (!name) {
      name = `${a.data}$at_${op}`;
      const plain = this.me.atomicHelper(op, a.dtype, "shared");
      const shared = this.me.atomicHelper(op, a.dtype, "global");
      this.privLines.push(`const ${name} = L.priv !== undefined && L.priv[${p.param}] === true ? ${plain} : ${shared};`);
      this.privHelpers.set(key, name);
    }
    return name;
  }

  protected call(e: IR.CallExpr): string {
    const f = this.me.fns.get(e.fn);
    const name = this.me.deviceNames.get(e.fn);
    if (!f || !name) throw new Error(`CudaScript simulator: device function ${e.fn} is missing`);
    const args: string[] = [];
    e.args.forEach((a, i) => {
      const p = f.params[i];
      if (p && p.type.kind === "array") {
        // (data, offset of the first element, one extent per dimension): a whole array or a view.
        if (a.k === "intrinsic" && a.name === "arrayView") {
          args.push(...this.viewArgs(a));
          return;
        }
        if (a.k !== "var") throw new Error("CudaScript simulator: array argument is not a variable");
        const info = this.arrayInfo(a.v);
        this.noteArray(a.v);
        args.push(info.data, info.offset ?? "0");
        // A record array's extent travels in bytes, as a kernel receives it: the callee counts records (js/records.ts).
        if (info.record) args.push(`${info.data}.length`);
        else for (let d = 0; d < p.type.rank; d++) args.push(info.dims[d] ?? "1");
        args.push(...stridesOf(info).slice(0, p.type.rank));
      } else args.push(this.ex(a));
    });
    args.push("$tx", "$ty", "$tz", "$t");
    return `${name}(${args.join(", ")})`;
  }

  /**
   * `offset + j` after checking 0 <= j < length, the VIEW's length: an access past the view is an
   * out-of-bounds error of the view even where the base has the element (ir/views.ts).
   */
  private viewIndex(e: IR.IntrinsicExpr): string {
    const acc = this.viewAccess;
    const [j, length, offset] = e.args.map((x) => this.ex(x));
    const site = this.me.site(acc.kind, e.span, this.fn, { array: e.view?.name, space: acc.space, op: acc.op });
    const vi = this.me.helper("$vi", "function $vi(j, n, o, s) { return j >>> 0 < n ? o + j : $oob(s, j, n, 0); }");
    return `${vi}(${j}, ${length}, ${offset}, ${site})`;
  }

  /**
   * A view passed to a device function: the base's data, the flat index of its first element, its
   * extents and its strides (the base's, of the dimensions it keeps).
   */
  private viewArgs(e: IR.IntrinsicExpr): string[] {
    const view = viewOfArgument(e);
    const a = this.arrayInfo(view.base.v);
    this.noteArray(view.base.v);
    const rank = (e.type as ArrayType).rank;
    let first = "0";
    const pre: string[] = [];
    if (view.lead.length) {
      // The rows taken, bounds-checked against the base's leading dimensions.
      const site = this.me.site("read", e.span, this.fn, { array: a.name, space: a.space });
      // addr of the leading indices alone under the base's strides is the row's first element.
      const strides = stridesOf(a);
      const r = this.addr({ ...a, offset: undefined, strides: strides.slice(0, view.lead.length) }, view.lead, site);
      pre.push(...r.pre);
      first = `(${r.flat})`;
    }
    const strides = stridesOf(a);
    const inner = strides[strides.length - 1]!;
    if (view.sub) {
      const sub = inner === "1" ? this.ex(view.sub.offset) : `(${this.ex(view.sub.offset)}) * ${inner}`;
      first = first === "0" ? sub : `${first} + ${sub}`;
    }
    if (a.offset) first = `${a.offset} + ${first}`;
    const offset = pre.length ? `(${pre.join(", ")}, ${first})` : first;
    const dims = Array.from({ length: rank }, (_, d) => this.ex(extentThrough(view, d, e.span)));
    return [a.data, offset, ...dims, ...strides.slice(strides.length - rank)];
  }

  protected intrinsic(e: IR.IntrinsicExpr): string {
    if (e.name === "viewIndex") return this.viewIndex(e);
    if (e.name === "arrayView") throw new Error(`CudaScript simulator: the view '${e.view?.name}' is only a device-function argument`);
    const name = e.name;
    const d = e.type.kind === "scalar" ? e.type.dtype : "f64";
    const args = e.args.map((a) => this.ex(a));
    switch (name) {
      case "popc":
      case "brev":
      case "clz":
      case "ffs":
        // A u64 argument: the 64-bit versions (int64.ts).
        if (e.args[0]!.type.kind === "scalar" && e.args[0]!.type.dtype === "u64") return this.i64(`$L.${e.name}64(${args[0]})`);
        return e.name === "clz" ? `Math.clz32(${args[0]})` : `rt.${e.name}(${args[0]})`;
      case "lanemaskLt":
        // %lanemask_lt: the bits of the lanes below this one (lane 31: 0x7fffffff).
        return `(((1 << ${this.special({ k: "special", type: e.type as ScalarType, reg: "laneid", axis: "x", span: e.span })}) - 1) >>> 0)`;
      case "fma":
        if (d === "f16") return `rt.f16round(rt.fma64(${args[0]}, ${args[1]}, ${args[2]}))`;
        return d === "f32" ? `Math.fround(${args[0]} * ${args[1]} + ${args[2]})` : `rt.fma64(${args[0]}, ${args[1]}, ${args[2]})`;
      case "rint":
        // Round half to even. Math.round rounds halves up, so an odd result exactly 0.5 above x steps
        // back to the even one. Exact for any |x| < 2^52 (x and r are exact in f64, so r - x is too),
        // f16 and f32 values included; keeps -0 and x's sign for -0.5 → -0; NaN and ±Infinity pass.
        return `${this.me.helper("$rint", "function $rint(x) { const r = Math.round(x); return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r; }")}(${args[0]})`;
      case "threadfence":
      case "threadfenceBlock":
      case "threadfenceSystem":
        return "undefined";
      // C's semantics where JavaScript's differ, as the GPU computes (docs/kernel-language.md#semantics):
      // min/max of a NaN give the other operand (-0 stays below +0); pow(1, y) and pow(-1, ±Infinity) are 1.
      case "min":
      case "max":
        if (!isFloat(d)) break;
        return `${this.me.helper(`$f${name}`, `function $f${name}(a, b) { return a !== a ? b : b !== b ? a : Math.${name}(a, b); }`)}(${args.join(", ")})`;
      case "pow": {
        const pow = this.me.helper("$pow", "function $pow(x, y) { return x === 1 || (x === -1 && (y === Infinity || y === -Infinity)) ? 1 : Math.pow(x, y); }");
        return d === "f64" ? `${pow}(${args.join(", ")})` : `${d === "f32" ? "Math.fround" : "rt.f16round"}(${pow}(${args.join(", ")}))`;
      }
      default:
        if (name.startsWith("complex")) return complexJs(e, args);
        break;
    }
    const js = MATH_JS[name];
    if (!js) throw new Error(`CudaScript simulator: '${name}' cannot be used here (synchronisation inside an expression was not lifted)`);
    const call = `${js}(${args.join(", ")})`;
    if (d === "f32" && !EXACT_F32.has(name)) return `Math.fround(${call})`;
    if (d === "f16" && !EXACT_F32.has(name)) return `rt.f16round(${call})`;
    if (d === "i32" && name === "abs") return `(${call} | 0)`;
    return call;
  }

  // ───────────────────────── thread-level statements ─────────────────────────

  private zero(t: IR.Type): string {
    if (t.kind === "scalar" && isComplex(t.dtype)) return `rt.${t.dtype}.make(0, 0)`;
    if (t.kind === "scalar" && isInt64(t.dtype)) return ZERO64;
    return t.kind === "scalar" && t.dtype === "bool" ? "false" : "0";
  }

  /** Emits statements executed by one thread. `out` receives lines. */
  private tstmts(list: readonly NStmt[], out: string[]): void {
    for (const s of list) this.tstmt(s, out);
  }

  private segExitLabel(): string {
    if (!this.seg) throw new Error("CudaScript simulator: internal error (no piece for a thread-level exit)");
    return this.seg.label;
  }

  protected tstmt(s: NStmt, out: string[]): void {
    switch (s.k) {
      case "decl": {
        if (s.v.type.kind !== "scalar") return;
        this.scalars.add(s.v);
        this.noteWrite(s.v);
        out.push(`${this.vn(s.v)} = ${s.init ? this.ex(s.init) : this.zero(s.v.type)};`);
        return;
      }
      case "arrayDecl": {
        const a = this.arrays.get(s.v);
        if (a && a.space === "local") {
          this.noteArray(s.v);
          out.push(`${a.data}.fill(${zeroOf(a.dtype)});`);
        }
        return;
      }
      case "constArrayDecl":
        return;
      case "assign": {
        if (s.target.k === "var") {
          this.noteWrite(s.target.v);
          out.push(`${this.vn(s.target.v)} = ${this.ex(s.value)};`);
        } else out.push(this.store(s.target, s.value));
        return;
      }
      case "if": {
        out.push(`if (${this.ex(s.cond)}) {`);
        this.tstmts(s.then, out);
        if (s.else && s.else.length) {
          out.push("} else {");
          this.tstmts(s.else, out);
        }
        out.push("}");
        return;
      }
      case "loop":
        this.jsLoop(s, out);
        return;
      case "block":
        this.tstmts(s.body, out);
        return;
      case "break":
      case "continue":
        out.push(this.exitCode(s.k));
        return;
      case "return": {
        if (this.mode === "device") {
          out.push(s.value ? `return ${this.ex(s.value)};` : "return;");
          return;
        }
        if (this.mode === "fast") {
          out.push("continue $thr;");
          return;
        }
        out.push(`{ ${this.leave(EXIT)}; break ${this.segExitLabel()}; }`);
        return;
      }
      case "fnReturn": {
        const sc = this.fnScopes.find((f) => f.id === s.scope);
        if (!sc) throw new Error("CudaScript simulator: internal error (return outside an inlined function)");
        out.push(`{ ${this.leave(sc.R)}; break ${this.segExitLabel()}; }`);
        return;
      }
      case "expr": {
        if (s.expr.k === "intrinsic" && s.expr.name.startsWith("threadfence")) return;
        out.push(`${this.ex(s.expr)};`);
        return;
      }
      case "print": {
        const site = this.me.site("print", s.span, this.fn, { format: s.format });
        out.push(`rt.print($sites[${site}], [${s.args.map((a) => this.ex(a)).join(", ")}]);`);
        return;
      }
      case "sync":
      case "fnScope":
        throw new Error(`CudaScript simulator: internal error (${s.k} in per-thread code)`);
    }
  }

  /** Sets the current thread's status to `code` (it leaves the pieces that follow until reset). */
  private leave(code: string | number): string {
    this.threadsLeave = true;
    return `$st[$t] = ${code}`;
  }

  private exitCode(kind: "break" | "continue"): string {
    for (let i = this.exits.length - 1; i >= 0; i--) {
      const x = this.exits[i]!;
      if (x.kind === "js") return kind === "break" ? `break ${x.label};` : x.contLabel ? `break ${x.contLabel};` : `continue ${x.label};`;
      if (x.kind === "masked") {
        if (kind === "continue") x.usedC = true;
        return `{ ${this.leave(kind === "break" ? x.B : x.C)}; break ${this.segExitLabel()}; }`;
      }
      throw new Error("CudaScript simulator: internal error (per-thread exit from a uniform loop)");
    }
    throw new Error(`CudaScript simulator: '${kind}' outside a loop`);
  }

  private watchdog(loop: NLoop): string {
    // A counted loop with a small constant trip count cannot be the one that never ends (an enclosing
    // loop keeps its own check): no per-iteration counter in the hot inner loops of tiled kernels.
    if (!(this.san || this.me.opts.watchdog) || smallCountedLoop(loop)) return "";
    const site = this.me.site("loop", loop.span, this.fn);
    return `if (--$wd < 0) $wd = rt.watchdog($sites[${site}]);`;
  }

  /** A loop without synchronisation: a plain JavaScript loop. */
  private jsLoop(s: NLoop, out: string[]): void {
    this.tstmts(s.init, out);
    const label = this.label("L");
    const upd: string[] = [];
    // Update statements as a comma expression when possible, so `continue` can be a real continue.
    const updExprOk = s.update.every((u) => u.k === "assign" && u.target.k === "var");
    let contLabel: string | undefined;
    if (s.update.length && !updExprOk) contLabel = this.label("C");
    this.exits.push({ kind: "js", label, contLabel });
    const body: string[] = [];
    this.tstmts(s.body, body);
    this.exits.pop();
    // Update runs outside the loop's own exits (a break there is not allowed by the language).
    this.tstmts(s.update, upd);
    const wd = this.watchdog(s);
    if (s.testFirst) {
      if (updExprOk && s.update.length) {
        const updExpr = upd.map((l) => l.replace(/;$/, "")).join(", ");
        out.push(`${label}: for (; ${s.cond ? this.ex(s.cond) : ""}; ${updExpr}) {`);
        if (wd) out.push(wd);
        out.push(...body, "}");
      } else {
        out.push(`${label}: for (;;) {`);
        if (s.cond) out.push(`if (!${this.ex(s.cond)}) break;`);
        if (wd) out.push(wd);
        if (contLabel) out.push(`${contLabel}: {`, ...body, "}", ...upd);
        else out.push(...body, ...upd);
        out.push("}");
      }
    } else {
      out.push(`${label}: do {`);
      if (wd) out.push(wd);
      if (contLabel) out.push(`${contLabel}: {`, ...body, "}", ...upd);
      else out.push(...body, ...upd);
      out.push(`} while (${s.cond ? this.ex(s.cond) : "true"});`);
    }
  }

  // ───────────────────────── device functions ─────────────────────────

  emitDevice(): string {
    const name = this.me.deviceNames.get(this.fn.id)!;
    const params: string[] = [];
    const recordViews: string[] = [];
    for (const p of this.fn.params) {
      const n = this.vn(p);
      if (p.type.kind === "array" && p.type.record) {
        // A record array of a device function (or of a kernel in the stepping backend): its bytes, whose
        // extent counts bytes; the records are counted and viewed as in a kernel (js/records.ts).
        params.push(n, `${n}$o`, `${n}$0`, `${n}$s0`);
        recordViews.push(recordDeviceParamSetup(n, p.type.record));
        this.arrays.set(p, { name: p.name, dtype: p.type.dtype, space: "global", data: n, dims: [`${n}$n`], record: p.type.record });
      } else if (p.type.kind === "array") {
        // (data, offset, extents, strides): the caller passes a whole array (offset 0) or a view of one
        // (ir/views.ts), of any layout (a row of a column-major array is strided).
        const t = p.type;
        const dims = Array.from({ length: t.rank }, (_, d) => `${n}$${d}`);
        const strides = Array.from({ length: t.rank }, (_, d) => `${n}$s${d}`);
        params.push(n, `${n}$o`, ...dims, ...strides);
        this.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims, strides, shId: this.san ? "param" : undefined, offset: `${n}$o` });
      } else params.push(n);
    }
    params.push("$tx", "$ty", "$tz", "$t");
    const setup: string[] = [...recordViews];
    const perBlock: string[] = [];
    forEachArrayDecl(this.fn.body, (s) => this.declareBodyArray(s, undefined, setup, perBlock));
    // Local arrays of device functions are allocated per call (each call's copy is fresh).
    const body: string[] = [];
    this.tstmts(this.fn.body, body);
    const decls = this.declLines(setup);
    return [`${this.functionKeyword()} ${name}(${params.join(", ")}) {`, ...decls, ...this.prologue(), ...body, ...this.epilogue(), "}"].join("\n");
  }

  /** Hooks of the stepping backend, which makes every function a generator with a debugger frame. */
  protected functionKeyword(): string {
    return "function";
  }
  protected prologue(): string[] {
    return [];
  }
  protected epilogue(): string[] {
    return [];
  }

  private declLines(setup: string[]): string[] {
    const out = [...setup];
    if (this.san) out.push("let $wd = 1048576, $sw = 0, $sr = 0, $E = 0, $E1 = 0, $BS = 0, $EB = 0, $M1 = 0, $M2 = 0, $M3 = 0;");
    else if (this.me.opts.watchdog) out.push("let $wd = 1048576;");
    if (this.flatTemps > 0) out.push(`let ${Array.from({ length: this.flatTemps + 1 }, (_, d) => `$f${d} = 0`).join(", ")};`);
    const vars = [...this.scalars].filter((v) => !v.isParam);
    if (vars.length) out.push(`let ${vars.map((v) => `${this.vn(v)} = ${this.zero(v.type)}`).join(", ")};`);
    if (this.tempMax >= 0) {
      const ts: string[] = [];
      for (let d = 0; d <= this.tempMax; d++) ts.push(`$i${d} = 0`, `$j${d} = 0`, `$k${d} = 0`);
      out.push(`let ${ts.join(", ")};`);
    }
    return out;
  }

  // ───────────────────────── kernels ─────────────────────────

  emitKernel(jsName: string): { code: string; info: SimKernelInfo } {
    const k = this.fn;
    const norm = new Normalizer(k, this.me.fns, this.me.syncFns).run();
    let usesBarriers = false, usesWarp = false;
    forEachSync(norm.body, (s) => (BARRIER_OPS.has(s.name) ? (usesBarriers = true) : (usesWarp = true)));
    const strategy = norm.hasSync ? "fission" : "loop";
    this.cooperative = callsGridSync(k);
    const info: SimKernelInfo = { name: k.name, id: k.id, file: k.span.file, line: k.span.line, strategy, usesBarriers, usesWarpOps: usesWarp, privatize: this.me.atomicParams.get(k.id)?.privatize ?? [], atomics: this.me.atomicParams.get(k.id)?.atomics ?? [], ...(this.cooperative ? { cooperative: true } : {}) };
    const code = strategy === "fission" ? this.emitFission(jsName, norm.body, norm.arrayKeys, info) : this.emitFast(jsName, info);
    return { code, info };
  }

  private kernelSetup(): string[] {
    const setup: string[] = ["const $A = L.args;"];
    this.fn.params.forEach((p, i) => {
      if (p.type.kind === "array") this.declareKernelParamArray(p, i, setup);
      else setup.push(`const ${this.vn(p)}$in = $A[${i}];`);
    });
    setup.push("const $gdx = L.grid[0], $gdy = L.grid[1], $gdz = L.grid[2], $bdx = L.block[0], $bdy = L.block[1], $bdz = L.block[2];");
    setup.push("const $nT = $bdx * $bdy * $bdz, $dynBuf = L.dynBuf;");
    return setup;
  }

  /** Shared arrays declared in (non-inlined) device functions this kernel reaches: allocated per launch. */
  private deviceShared(setup: string[], perBlock: string[]): void {
    const seen = new Set<string>();
    const stack = [...this.fn.callees];
    while (stack.length) {
      const id = stack.pop()!;
      if (seen.has(id)) continue;
      seen.add(id);
      const f = this.me.fns.get(id);
      if (!f) continue;
      stack.push(...f.callees);
      if (this.me.syncFns.has(id)) continue;
      forEachArrayDecl(f.body, (s) => {
        if (s.k !== "arrayDecl" || s.arrayType.space !== "shared") return;
        const shape = s.arrayType.shape ?? [1];
        const dynamic = shape.length === 1 && shape[0] === 0;
        const T = storageArrayName(s.arrayType.dtype), slots = slotsPerElement(s.arrayType.dtype);
        const st = this.me.sharedStorage(dynamic ? `$dyn:${s.arrayType.dtype}` : `${f.id}#${s.v.id}`, s.arrayType, s.v.name);
        if (dynamic) setup.push(`${st.js} = new ${T}($dynBuf, 0, Math.floor($dynBuf.byteLength / ${T}.BYTES_PER_ELEMENT / ${slots}) * ${slots});`);
        else setup.push(`${st.js} = new ${T}(${shape.reduce((a, b) => a * b, 1) * slots});`);
        perBlock.push(`${st.js}.fill(${zeroOf(s.arrayType.dtype)});`);
        if (this.san) setup.push(`$san.register(${st.id}, ${st.js}, ${JSON.stringify(s.v.name)});`);
      });
    }
  }

  private paramLets(): string {
    const ps = this.fn.params.filter((p) => p.type.kind === "scalar");
    return ps.length ? `let ${ps.map((p) => `${this.vn(p)} = ${this.vn(p)}$in`).join(", ")};` : "";
  }

  private blockHeader(): string[] {
    return [
      "$bx = $b % $gdx; $by = (($b / $gdx) | 0) % $gdy; $bz = ($b / ($gdx * $gdy)) | 0;",
      "$cbx = $bx; $cby = $by; $cbz = $bz; $cbdx = $bdx; $cbdy = $bdy; $cbdz = $bdz; $cgdx = $gdx; $cgdy = $gdy; $cgdz = $gdz;",
    ];
  }

  private sanSetup(info: SimKernelInfo): string[] {
    // A cooperative kernel's blocks are alive together: each has its own sanitizer (rt.blockSanitizer).
    if (this.san && this.cooperative) return [`const $S = $san = rt.blockSanitizer(${JSON.stringify({ name: info.name, file: info.file, line: info.line })}, $bdx, $bdy, $bdz, $b); $S.setSites($sites); const $SS = $S.S;`];
    return this.san ? [`const $S = $san = rt.sanitizer(${JSON.stringify({ name: info.name, file: info.file, line: info.line })}, $bdx, $bdy, $bdz); $S.setSites($sites); const $SS = $S.S;`] : [];
  }

  private emitFast(jsName: string, info: SimKernelInfo): string {
    this.mode = "fast";
    const setup = this.kernelSetup();
    setup.push(...this.sanSetup(info));
    const perBlock: string[] = [];
    forEachArrayDecl(this.fn.body, (s) => this.declareBodyArray(s, undefined, setup, perBlock));
    this.deviceShared(setup, perBlock);
    const body: string[] = [];
    this.tstmts(this.fn.body, body);
    // Where one check per block proves the thread-indexed accesses in range, a second copy of the body
    // without their checks runs the blocks that pass it (in-range.ts).
    const plan = planInRange(this.fn);
    const provenBody: string[] = [];
    if (plan) {
      this.proven = plan.accesses;
      this.tstmts(this.fn.body, provenBody);
      this.proven = undefined;
    }
    const resetParams = [...this.assignedParams].map((p) => `${this.vn(p)} = ${this.vn(p)}$in;`);
    const flat = plan && !this.san && perBlock.length === 0 ? this.flatGridLoop(plan, resetParams) : undefined;
    const threads = (b: string[]) => [
      "for ($tz = 0; $tz < $bdz; $tz++) for ($ty = 0; $ty < $bdy; $ty++) {",
      "const $r = ($tz * $bdy + $ty) * $bdx;",
      "$thr: for ($tx = 0; $tx < $bdx; $tx++) {",
      "$t = $r + $tx;",
      this.usesSharedSan() ? SAN_THREAD : "",
      ...resetParams,
      ...b,
      "}",
      "}",
    ];
    const lines = [
      `function ${jsName}(L, $b0, $b1) {`,
      ...this.declLines(setup),
      ...this.privLines,
      this.paramLets(),
      "let $bx = 0, $by = 0, $bz = 0, $tx = 0, $ty = 0, $tz = 0, $t = 0;",
      flat ? "let $g = 0, $flat = false, $bs = $b0;" : "",
      "try {",
      ...(flat ?? []),
      `for (let $b = ${flat ? "$bs" : "$b0"}; $b < $b1; $b++) {`,
      ...this.blockHeader(),
      ...perBlock,
      this.san ? `$S.beginBlock($bx, $by, $bz); ${SAN_REFRESH}` : "",
      ...(plan ? [`if (${inRangeCondition(plan, (p) => this.arrayInfo(p).dims[0]!)}) {`, ...threads(provenBody), "} else {", ...threads(body), "}"] : threads(body)),
      "}",
      `} catch ($e) { ${flat ? "if ($flat) { $bx = ($g / $bdx) | 0; $tx = $g - $bx * $bdx; } " : ""}throw rt.threadError($e, ${JSON.stringify(info.name)}, $bx, $by, $bz, $tx, $ty, $tz); }`,
      "}",
    ];
    return lines.filter((l) => l !== "").join("\n");
  }

  /**
   * A 1-D launch's blocks whose checks the in-range test proves, as one loop over the grid index
   * (flat-grid.ts); the block loop after it starts at `$bs`, where this one stopped.
   */
  private flatGridLoop(plan: NonNullable<ReturnType<typeof planInRange>>, resetParams: string[]): string[] | undefined {
    const flat = planFlatGrid(this.fn);
    if (!flat) return undefined;
    const body: string[] = [];
    this.proven = plan.accesses;
    this.flatGrid = true;
    this.tstmts(flat.body, body);
    const narrow = flat.narrow ? this.ex(flat.narrow) : undefined;
    this.flatGrid = false;
    this.proven = undefined;
    // Every part of the test is monotonic in the block index: true for the first and the last block of
    // a range means true for all of it. The last block is often partial (`if (i < n)`): then the range
    // ends one block earlier.
    const proves = (b: string) => `(($bx = ${b}), ${inRangeCondition(plan, (p) => this.arrayInfo(p).dims[0]!)})`;
    const end = narrow ? `Math.min($pe * $bdx, ${narrow})` : "$pe * $bdx";
    return [
      `if ($gdy === 1 && $gdz === 1 && $bdy === 1 && $bdz === 1 && $b1 > $b0 && ${proves("$b0")}) {`,
      `const $pe = ${proves("$b1 - 1")} ? $b1 : $b1 - 1 > $b0 && ${proves("$b1 - 2")} ? $b1 - 1 : $b0;`,
      "if ($pe > $b0) {",
      "$flat = true;",
      `const $ge = ${end};`,
      "$thr: for ($g = $b0 * $bdx; $g < $ge; $g++) {",
      ...resetParams,
      ...body,
      "}",
      "$flat = false;",
      "$bs = $pe;",
      "}",
      "}",
    ];
  }

  // ───────────────────────── fission ─────────────────────────

  private newSeg(): Seg {
    return { k: "seg", label: this.label("r"), pre: [], body: [], prologue: [], reads: new Set(), writes: new Set(), arrays: new Set() };
  }

  /** Runs `f` with a fresh piece collecting its code; returns the piece. */
  private inSeg(f: (out: string[]) => void, pre?: string): Seg {
    const seg = this.newSeg();
    if (pre) seg.pre.push(pre);
    const saved = this.seg;
    this.seg = seg;
    try {
      f(seg.body);
    } finally {
      this.seg = saved;
    }
    return seg;
  }

  /** More code for `seg` (noting what it reads and writes there), returned rather than added to its body. */
  private inSegBody(seg: Seg, f: (out: string[]) => void): string[] {
    const out: string[] = [];
    const saved = this.seg;
    this.seg = seg;
    try {
      f(out);
    } finally {
      this.seg = saved;
    }
    return out;
  }

  private preSeg(pre: string): Seg {
    const s = this.newSeg();
    s.pre.push(pre);
    return s;
  }

  /** Whether `e` is exactly threadIdx.x (directly or through a rematerialised alias). */
  private isThreadX(e: IR.Expr): boolean {
    if (e.k === "special") return e.reg === "threadIdx" && e.axis === "x";
    if (e.k === "var") {
      const r = this.remat.get(e.v);
      return !!r && this.isThreadX(r);
    }
    return false;
  }

  /** For a piece that is a single `if (tx < U)`: the range of linear thread ids that can pass (1-D blocks). */
  private threadRange(cond: IR.Expr): { lo: string; hi: string } | undefined {
    if (cond.k !== "compare" || !this.uni) return undefined;
    const uniform = (e: IR.Expr) => uniformExpr(e, this.uni!.uniformVars) && !containsIndexOrCall(e);
    let op = cond.op;
    let x = cond.left, u = cond.right;
    if (!this.isThreadX(x)) {
      if (!this.isThreadX(u)) return undefined;
      [x, u] = [u, x];
      op = op === "<" ? ">" : op === ">" ? "<" : op === "<=" ? ">=" : op === ">=" ? "<=" : op;
    }
    if (!uniform(u)) return undefined;
    const saved = this.seg;
    this.seg = undefined;
    const U = this.ex(u);
    this.seg = saved;
    switch (op) {
      case "<":
        return { lo: "0", hi: `(${U})` };
      case "<=":
        return { lo: "0", hi: `(${U}) + 1` };
      case "==":
        return { lo: `(${U})`, hi: `(${U}) + 1` };
      case ">":
        return { lo: `(${U}) + 1`, hi: "$nT" };
      case ">=":
        return { lo: `(${U})`, hi: "$nT" };
      default:
        return undefined;
    }
  }

  /** Finds the immutable locals that can be recomputed from the thread index in every piece. */
  private findRemat(body: readonly NStmt[]): void {
    const defs = new Map<IR.Var, number>();
    const inits = new Map<IR.Var, IR.Expr>();
    const count = (v: IR.Var) => defs.set(v, (defs.get(v) ?? 0) + 1);
    const walk = (list: readonly NStmt[]) => {
      for (const s of list) {
        if (s.k === "decl") {
          count(s.v);
          if (s.init) inits.set(s.v, s.init);
        } else if (s.k === "assign" && s.target.k === "var") count(s.target.v);
        else if (s.k === "sync" && s.result) count(s.result);
        else if (s.k === "if") {
          walk(s.then);
          if (s.else) walk(s.else);
        } else if (s.k === "loop") {
          // A declaration inside a loop is a new value each iteration: fine; but count it as a def.
          walk(s.init);
          walk(s.body);
          walk(s.update);
        } else if (s.k === "block" || s.k === "fnScope") walk(s.body);
      }
    };
    walk(body);
    const assignedParams = new Set<IR.Var>();
    for (const [v] of defs) if (v.isParam) assignedParams.add(v);
    const pure = (e: IR.Expr): boolean => {
      switch (e.k) {
        case "const":
        case "special":
        case "shape":
          return true;
        case "var":
          if (e.type.kind !== "scalar") return false;
          if (e.v.isParam) return !assignedParams.has(e.v);
          return this.remat.has(e.v);
        case "unary":
          return pure(e.operand);
        case "binary":
        case "compare":
          return pure(e.left) && pure(e.right);
        case "convert":
        case "truthy":
          return pure(e.value);
        case "select":
          return pure(e.cond) && pure(e.then) && pure(e.else);
        default:
          return false;
      }
    };
    // Declaration order = id order; a var qualifies when its only definition is its initialiser.
    const vars = [...inits.keys()].filter((v) => defs.get(v) === 1 && v.type.kind === "scalar").sort((a, b) => a.id - b.id);
    for (const v of vars) if (pure(inits.get(v)!)) this.remat.set(v, inits.get(v)!);
  }

  private isBlockLevel(s: NStmt): boolean {
    const u = this.uni!;
    switch (s.k) {
      case "sync":
      case "fnScope":
        return true;
      case "if":
        return u.blockIfs.has(s);
      case "loop":
      case "block":
        return this.syncMemo(s);
      case "decl":
        return s.v.type.kind === "scalar" && u.uniformVars.has(s.v);
      case "assign":
        return s.target.k === "var" && u.uniformVars.has(s.target.v);
      case "break":
      case "continue":
        return u.blockExits.has(s);
      default:
        return false;
    }
  }

  private readonly syncCache = new Map<NStmt, boolean>();
  private syncMemo(s: NStmt): boolean {
    let r = this.syncCache.get(s);
    if (r === undefined) {
      r = containsSync(s);
      this.syncCache.set(s, r);
    }
    return r;
  }

  /** Block-level items for a statement list. */
  private items(list: readonly NStmt[]): Item[] {
    const out: Item[] = [];
    let pending: NStmt[] = [];
    const flush = () => {
      if (!pending.length) return;
      const stmts = pending;
      pending = [];
      const seg = this.inSeg((o) => this.tstmts(stmts, o));
      const only = stmts.length === 1 ? stmts[0]! : undefined;
      if (only && only.k === "if" && (!only.else || only.else.length === 0)) {
        seg.range = this.threadRange(only.cond);
        // The test is exactly "lo <= tx < hi" for an integer tx, so a loop over that range needs it not.
        if (seg.range) seg.rangeBody = this.inSegBody(seg, (o) => this.tstmts(only.then, o));
      }
      out.push(seg);
    };
    for (const s of list) {
      if (!this.isBlockLevel(s)) {
        pending.push(s);
        continue;
      }
      flush();
      out.push(...this.blockStmt(s));
    }
    flush();
    return out;
  }

  private raw(code: string): RawItem {
    return { k: "raw", code };
  }

  private blockStmt(s: NStmt): Item[] {
    const u = this.uni!;
    switch (s.k) {
      case "decl": {
        this.scalars.add(s.v);
        return [this.raw(`${this.vn(s.v)} = ${s.init ? this.ex(s.init) : this.zero(s.v.type)};`)];
      }
      case "assign": {
        const t = s.target as IR.VarExpr;
        return [this.raw(`${this.vn(t.v)} = ${this.ex(s.value)};`)];
      }
      case "block":
        return this.items(s.body);
      case "sync": {
        if (s.result) this.scalars.add(s.result);
        const site = this.me.site(BARRIER_OPS.has(s.name) || s.name === "gridSync" ? "barrier" : "warp", s.span, this.fn, { op: s.name });
        return [{ k: "sync", s, site, masked: this.maskedDepth > 0 }];
      }
      case "break":
      case "continue": {
        for (let i = this.exits.length - 1; i >= 0; i--) {
          const x = this.exits[i]!;
          if (x.kind === "uniform") {
            if (s.k === "continue") x.usedC = true;
            return [this.raw(s.k === "break" ? `break ${x.label};` : `break ${x.contLabel};`)];
          }
          if (x.kind === "masked") break;
        }
        throw new Error("CudaScript simulator: internal error (block-level exit without a uniform loop)");
      }
      case "if":
        return u.uniformIfs.has(s) ? this.uniformIf(s) : this.maskedIf(s);
      case "loop":
        return u.uniformLoops.has(s) ? this.uniformLoop(s) : this.maskedLoop(s);
      case "fnScope":
        return this.fnScope(s);
      default:
        return [this.inSeg((o) => this.tstmt(s, o))];
    }
  }

  private uniformIf(s: NIf): Item[] {
    const cond = this.ex(s.cond);
    const parts: (string | Item[])[] = [`if (${cond}) {`, this.items(s.then)];
    if (s.else && s.else.length) parts.push("} else {", this.items(s.else));
    parts.push("}");
    return [{ k: "nest", parts }];
  }

  private maskedIf(s: NIf): Item[] {
    const PT = this.codeCounter++, PE = this.codeCounter++;
    const out: Item[] = [];
    out.push(this.inSeg((o) => o.push(`if (!${this.ex(s.cond)}) ${this.leave(PT)};`)));
    this.maskedDepth++;
    out.push(...this.items(s.then));
    this.maskedDepth--;
    if (s.else && s.else.length) {
      out.push(this.preSeg(`{ const $s = $st[$t]; if ($s === ${PT}) $st[$t] = 0; else if ($s === 0) ${this.leave(PE)}; }`));
      this.maskedDepth++;
      out.push(...this.items(s.else));
      this.maskedDepth--;
      out.push(this.preSeg(`if ($st[$t] === ${PE}) $st[$t] = 0;`));
    } else out.push(this.preSeg(`if ($st[$t] === ${PT}) $st[$t] = 0;`));
    return out;
  }

  private uniformLoop(s: NLoop): Item[] {
    const out: Item[] = [...this.items(s.init)];
    const label = this.label("L"), contLabel = this.label("C");
    const x: Exit = { kind: "uniform", label, contLabel, usedC: false };
    const inner: Item[] = [];
    if (s.testFirst && s.cond) inner.push(this.raw(`if (!${this.ex(s.cond)}) break;`));
    const wd = this.watchdog(s);
    if (wd) inner.push(this.raw(wd));
    this.exits.push(x);
    const body = this.items(s.body);
    this.exits.pop();
    if (x.usedC) inner.push({ k: "nest", parts: [`${contLabel}: {`, body, "}"] });
    else inner.push(...body);
    inner.push(...this.items(s.update));
    if (!s.testFirst && s.cond) inner.push(this.raw(`if (!${this.ex(s.cond)}) break;`));
    out.push({ k: "nest", parts: [`${label}: for (;;) {`, inner, "}"] });
    return out;
  }

  private maskedLoop(s: NLoop): Item[] {
    const B = this.codeCounter++, C = this.codeCounter++;
    const act = `$act${this.counters.length}`;
    this.counters.push(act);
    const out: Item[] = [...this.items(s.init)];
    const count = (withCond: boolean): Seg => {
      const seg = this.inSeg((o) => {
        if (withCond && s.cond) o.push(`if (!${this.ex(s.cond)}) { ${this.leave(B)}; } else ${act}++;`);
        else o.push(`${act}++;`);
      });
      seg.prologue.push(`${act} = 0;`);
      return seg;
    };
    out.push(count(s.testFirst));
    const label = this.label("L");
    const inner: Item[] = [this.raw(`if (${act} === 0) break;`)];
    const wd = this.watchdog(s);
    if (wd) inner.push(this.raw(wd));
    const x: Exit = { kind: "masked", B, C, usedC: false };
    this.exits.push(x);
    this.maskedDepth++;
    inner.push(...this.items(s.body));
    this.exits.pop();
    if (x.usedC) inner.push(this.preSeg(`if ($st[$t] === ${C}) $st[$t] = 0;`));
    inner.push(...this.items(s.update));
    this.maskedDepth--;
    inner.push(count(true));
    out.push({ k: "nest", parts: [`${label}: for (;;) {`, inner, "}"] });
    out.push(this.preSeg(`if ($st[$t] === ${B}) $st[$t] = 0;`));
    return out;
  }

  private fnScope(s: FnScopeStmt): Item[] {
    const R = this.codeCounter++;
    this.fnScopes.push({ id: s.id, R });
    const savedExits = this.exits;
    this.exits = [];
    this.maskedDepth++;
    const body = this.items(s.body);
    this.maskedDepth--;
    this.exits = savedExits;
    this.fnScopes.pop();
    return [...body, this.preSeg(`if ($st[$t] === ${R}) $st[$t] = 0;`)];
  }

  private emitFission(jsName: string, body: readonly NStmt[], arrayKeys: ReadonlyMap<IR.Var, string>, info: SimKernelInfo): string {
    this.mode = "fission";
    this.uni = analyzeUniformity(body, this.fn.params);
    this.findRemat(body);
    for (const v of this.remat.keys()) if (this.uni.uniformVars.has(v)) this.remat.delete(v);
    const setup = this.kernelSetup();
    setup.push(...this.sanSetup(info));
    const perBlock: string[] = [];
    forEachArrayDecl(body, (s) => this.declareBodyArray(s, arrayKeys, setup, perBlock));
    this.deviceShared(setup, perBlock);
    const items = this.items(body);

    // Units: each fused run of pieces, and each synchronisation.
    let unit = 0;
    const varUnits = new Map<IR.Var, Set<number>>();
    const arrUnits = new Map<IR.Var, Set<number>>();
    const add = (m: Map<IR.Var, Set<number>>, v: IR.Var, u: number) => {
      let s = m.get(v);
      if (!s) m.set(v, (s = new Set()));
      s.add(u);
    };
    const assign = (list: Item[]) => {
      let prevSeg = false;
      for (const it of list) {
        if (it.k === "seg") {
          if (!prevSeg) unit++;
          it.unit = unit;
          for (const v of it.reads) add(varUnits, v, unit);
          for (const v of it.writes) add(varUnits, v, unit);
          for (const v of it.arrays) add(arrUnits, v, unit);
          prevSeg = true;
          continue;
        }
        prevSeg = false;
        if (it.k === "sync") {
          it.unit = ++unit;
          for (const a of it.s.args) if (a.k === "var") add(varUnits, a.v, unit);
          if (it.s.result) add(varUnits, it.s.result, unit);
        } else if (it.k === "nest") for (const p of it.parts) if (typeof p !== "string") assign(p);
      }
    };
    assign(items);
    // Synchronisations read their operands per thread from storage: no rematerialising those.
    const syncVars = new Set<IR.Var>();
    const collect = (list: Item[]) => {
      for (const it of list) {
        if (it.k === "sync") {
          for (const a of it.s.args) if (a.k === "var") syncVars.add(a.v);
          if (it.s.result) syncVars.add(it.s.result);
        } else if (it.k === "nest") for (const p of it.parts) if (typeof p !== "string") collect(p);
      }
    };
    collect(items);
    for (const v of syncVars) this.remat.delete(v);
    for (let changed = true; changed; ) {
      changed = false;
      for (const [v, e] of this.remat) {
        let ok = true;
        forEachVarExpr(e, (d) => {
          if (!d.isParam && !this.remat.has(d)) ok = false;
        });
        if (!ok) {
          this.remat.delete(v);
          changed = true;
        }
      }
    }
    const uniform = this.uni.uniformVars;
    for (const [v, us] of varUnits) {
      if (uniform.has(v) || this.remat.has(v)) continue;
      if (us.size > 1 || v.isParam) this.perThread.add(v);
    }
    // Local arrays used in more than one piece: one copy per thread.
    for (const [v, us] of arrUnits) if (us.size > 1) this.perThreadArrays.add(v);
    for (const v of this.perThreadArrays) {
      const a = this.arrays.get(v)!;
      const size = a.dims.reduce((x, y) => x * Number(y), 1);
      a.perThread = `$LA_${a.data}`;
      setup.push(`const ${a.perThread} = rt.perThread(${storageArrayName(a.dtype)}, ${size * slotsPerElement(a.dtype)}, $nT);`);
    }
    // Local arrays used by one piece only were registered as plain lets; re-point the others.
    for (const [v, a] of this.arrays) if (a.perThread === "?" && !this.perThreadArrays.has(v)) a.perThread = undefined;

    for (const v of this.perThread) {
      const t = (v.type as ScalarType).dtype;
      setup.push(`const ${this.storage(v)} = new ${storeArrayName(t)}($nT);`);
    }
    const paramInit = [...this.perThread].filter((v) => v.isParam).map((p) => `${this.storage(p)}.fill(${p.type.kind === "scalar" && p.type.dtype === "bool" ? `${this.vn(p)}$in ? 1 : 0` : `${this.vn(p)}$in`});`);

    const code = this.emitItems(items);
    // The threads' status array (returned, waiting out a branch…), when anything reads or sets it.
    const usesStatus = this.cooperative || [...code, ...perBlock].some((l) => /\$st\b/.test(l));
    const catchLine = `catch ($e) { throw rt.threadError($e, ${JSON.stringify(info.name)}, $bx, $by, $bz, $t < $nT ? $tx : -1, $t < $nT ? $ty : -1, $t < $nT ? $tz : -1); }`;
    // The kernel's setup before its blocks run: storage, parameters, the per-thread state and thread ids.
    const kernelSetup = [
      ...this.declLines(setup),
      ...this.privLines,
      this.paramLets(),
      usesStatus ? "const $st = new Int32Array($nT);" : "",
      this.counters.length ? `let ${this.counters.map((c) => `${c} = 0`).join(", ")};` : "",
      "let $bx = 0, $by = 0, $bz = 0, $tx = 0, $ty = 0, $tz = 0, $t = 0;",
    ];
    if (this.cooperative)
      return cooperativeKernel(jsName, {
        setup: kernelSetup,
        blockStart: [...this.blockHeader(), "$st.fill(0);", ...perBlock, ...paramInit, this.san ? `$S.beginBlock($bx, $by, $bz); ${SAN_REFRESH}` : ""],
        code,
        catchLine,
        shared: this.sharedVars(),
        sanitize: this.san,
        kernelName: info.name,
      });
    const lines = [
      `function ${jsName}(L, $b0, $b1) {`,
      ...kernelSetup,
      "try {",
      "for (let $b = $b0; $b < $b1; $b++) {",
      ...this.blockHeader(),
      usesStatus ? "$st.fill(0);" : "",
      ...perBlock,
      ...paramInit,
      this.san ? `$S.beginBlock($bx, $by, $bz); ${SAN_REFRESH}` : "",
      ...code,
      "}",
      `} ${catchLine}`,
      "}",
    ];
    return lines.filter((l) => l !== "").join("\n");
  }

  /** The module-level shared-array variables known so far (a cooperative block restores them after a barrier). */
  private sharedVars(): string[] {
    return [...this.me.sharedNames.values()].map((s) => s.js);
  }

  private loadVar(v: IR.Var, idx: string): string {
    const t = (v.type as ScalarType).dtype;
    return t === "bool" ? `(${this.storage(v)}[${idx}] !== 0)` : `${this.storage(v)}[${idx}]`;
  }
  private storeVar(v: IR.Var, idx: string, value: string): string {
    const t = (v.type as ScalarType).dtype;
    return `${this.storage(v)}[${idx}] = ${t === "bool" ? `(${value} ? 1 : 0)` : value};`;
  }

  private emitItems(items: Item[]): string[] {
    const out: string[] = [];
    let run: Seg[] = [];
    const flush = () => {
      if (run.length) out.push(...this.fused(run));
      run = [];
    };
    for (const it of items) {
      if (it.k === "seg") {
        run.push(it);
        continue;
      }
      flush();
      if (it.k === "raw") out.push(it.code);
      else if (it.k === "sync") out.push(this.syncCode(it));
      else for (const p of it.parts) typeof p === "string" ? out.push(p) : out.push(...this.emitItems(p));
    }
    flush();
    return out;
  }

  private fused(run: Seg[]): string[] {
    const out: string[] = [];
    const reads = new Set<IR.Var>(), writes = new Set<IR.Var>(), arrs = new Set<IR.Var>();
    for (const s of run) {
      out.push(...s.prologue);
      s.reads.forEach((v) => reads.add(v));
      s.writes.forEach((v) => writes.add(v));
      s.arrays.forEach((v) => arrs.add(v));
    }
    const inner: string[] = [];
    if (run.some((r) => r.sanFast)) inner.push(SAN_THREAD);
    // Rematerialised locals (and what they depend on), in declaration order.
    const need = new Set<IR.Var>();
    const addRemat = (v: IR.Var) => {
      const e = this.remat.get(v);
      if (!e || need.has(v)) return;
      forEachVarExpr(e, addRemat);
      need.add(v);
    };
    for (const v of new Set([...reads, ...writes])) addRemat(v);
    const rematLines: string[] = [];
    const probe = this.newSeg();
    const saved = this.seg;
    this.seg = probe;
    for (const v of [...need].sort((a, b) => a.id - b.id)) {
      this.scalars.add(v);
      rematLines.push(`${this.vn(v)} = ${this.ex(this.remat.get(v)!)};`);
    }
    this.seg = saved;
    inner.push(...rematLines);
    const rematted = new Set(rematLines);
    for (const v of new Set([...reads, ...writes])) if (this.perThread.has(v)) inner.push(`${this.vn(v)} = ${this.loadVar(v, "$t")};`);
    for (const v of arrs) {
      const a = this.arrays.get(v);
      if (a?.perThread) inner.push(`${a.data} = ${a.perThread}[$t];`);
    }
    const only = run.length === 1 ? run[0]! : undefined;
    const range = only?.range && only.pre.length === 0 ? only.range : undefined;
    for (const s of run) {
      if (!s.body.length) {
        inner.push(...s.pre);
        continue;
      }
      // A thread whose status is not 0 (it returned, or waits out a branch or loop) skips the piece; in a
      // kernel where no code ever sets a status every thread runs every piece, and the test is left out.
      // A rematerialised local's declaration computes again what the prologue above just did (the same
      // text: the same expression of the thread index and fixed values), so it is left out.
      const body = (s === only && range && s.rangeBody ? s.rangeBody : s.body).filter((l) => !rematted.has(l));
      inner.push(`${s.label}: {`, ...s.pre, ...(this.threadsLeave ? [`if ($st[$t] !== 0) break ${s.label};`] : []), ...body, "}");
    }
    for (const v of writes) if (this.perThread.has(v)) inner.push(this.storeVar(v, "$t", this.vn(v)));
    // The threads in linear order, as nested loops over z, y and x: the thread indices are loop counters
    // (not loads from a table), which is what lets V8 see their ranges, and a piece that is a single
    // `if (threadIdx.x < U)` only visits the x range that can pass it, in blocks of any shape.
    const lo = range ? `Math.max(0, Math.ceil(${range.lo}))` : "0";
    const hi = range ? `Math.min($bdx, ${range.hi})` : "$bdx";
    out.push(`{ const $lo = ${lo}, $hi = ${hi};`);
    // `$t`, the linear thread id, is kept up to date only where the pieces read it (per-thread storage,
    // statuses, the sanitizer): elsewhere `$t = 0` only says "in a thread" to the fault handler, which
    // names the thread by `$tx`, `$ty`, `$tz` (an unread second induction variable that a fault must
    // see cost ~7% of bench/sim.mjs's reduction).
    const tracked = inner.some((l) => /\$t\b/.test(l));
    out.push(tracked ? "" : "$t = 0;", "for ($tz = 0; $tz < $bdz; $tz++) for ($ty = 0; $ty < $bdy; $ty++) {");
    if (tracked) out.push("$t = ($tz * $bdy + $ty) * $bdx + $lo;");
    // Past the loops `$t` says "no thread" again, so a fault of the barrier code after them names none.
    out.push(`for ($tx = $lo; $tx < $hi; $tx++${tracked ? ", $t++" : ""}) {`, ...inner, "} } }", "$t = $nT;");
    return out.filter((l) => l !== "");
  }

  private argAt(a: IR.Expr, idx: string): string {
    if (a.k === "const") return literal(a.value, (a.type as ScalarType).dtype);
    if (a.k !== "var") throw new Error("CudaScript simulator: internal error (non-trivial synchronisation argument)");
    if (this.perThread.has(a.v)) return this.loadVar(a.v, idx);
    return this.vn(a.v);
  }

  private setResult(s: SyncStmt, idx: string, value: string): string {
    const r = s.result;
    if (!r) return "";
    if (this.perThread.has(r)) return this.storeVar(r, idx, value);
    return `${this.vn(r)} = ${value};`;
  }

  private syncCode(it: SyncItem): string {
    const s = it.s;
    const site = it.site;
    const san = this.san;
    const lines: string[] = [];
    switch (s.name) {
      case "gridSync":
        lines.push(gridSyncCode(site, san, resumeCode(this.sharedVars(), san)));
        break;
      case "syncthreads":
        if (san) lines.push(it.masked ? `$S.barrier($sites[${site}], $st, $nT);` : "$S.sync();", SAN_REFRESH);
        break;
      case "syncthreadsCount":
      case "syncthreadsAnd":
      case "syncthreadsOr": {
        const p = this.argAt(s.args[0]!, "$u");
        lines.push("{ let $c = 0, $n = 0;", `for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) { $n++; if (${p}) $c++; }`);
        const r = s.name === "syncthreadsCount" ? "$c" : s.name === "syncthreadsAnd" ? "($c === $n ? 1 : 0)" : "($c > 0 ? 1 : 0)";
        lines.push(`const $res = ${r};`);
        if (san) lines.push(it.masked ? `$S.barrier($sites[${site}], $st, $nT);` : "$S.sync();", SAN_REFRESH);
        if (s.result && this.perThread.has(s.result)) lines.push(`for (let $u = 0; $u < $nT; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", "$res")}`);
        else lines.push(this.setResult(s, "$u", "$res"));
        lines.push("}");
        break;
      }
      default: {
        // Warp operations: warp by warp over the values every active lane supplied.
        lines.push("for (let $w = 0; $w < $nT; $w += 32) {");
        lines.push("const $e = $w + 32 < $nT ? $w + 32 : $nT;");
        lines.push("let $am = 0;");
        lines.push("for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) $am |= 1 << ($u - $w);");
        lines.push("if ($am === 0) continue;");
        if (s.name !== "activemask") {
          const mask = this.argAt(s.args[0]!, "$u");
          if (san) lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) $S.warpMask($sites[${site}], $w, $e, $am, ${mask}, $u);`);
        }
        if (san) lines.push("$S.warpSync($w);");
        const lane = "$u - $w";
        switch (s.name) {
          case "syncwarp":
          case "activemask":
            if (s.name === "activemask") lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", "($am >>> 0)")}`);
            break;
          case "shflSync":
          case "shflUpSync":
          case "shflDownSync":
          case "shflXorSync": {
            const v = (i: string) => this.argAt(s.args[1]!, i);
            const x = this.argAt(s.args[2]!, "$u");
            const src = s.name === "shflSync" ? `(${x}) & 31` : s.name === "shflUpSync" ? `${lane} - (${x})` : s.name === "shflDownSync" ? `${lane} + (${x})` : `${lane} ^ (${x})`;
            lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) { const $s = ${src}; const $q = $w + $s; ${this.setResult(s, "$u", `($s >= 0 && $s < 32 && $q < $e && (($am >>> $s) & 1) !== 0 ? ${v("$q")} : ${v("$u")})`)} }`);
            break;
          }
          case "ballotSync":
          case "allSync":
          case "anySync":
          case "eqSync": {
            const p = this.argAt(s.args[1]!, "$u");
            const mask = this.argAt(s.args[0]!, "$u");
            lines.push(`let $bal = 0; for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0 && ${p}) $bal |= 1 << (${lane});`);
            const allTrue = `((($am & ${mask}) & ~$bal) === 0)`;
            const r =
              s.name === "ballotSync" ? `(($bal & ${mask}) >>> 0)`
              : s.name === "anySync" ? `(($bal & ${mask}) !== 0)`
              : s.name === "eqSync" ? `(${allTrue} || ($bal & ${mask}) === 0)`
              : allTrue;
            lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) ${this.setResult(s, "$u", r)}`);
            break;
          }
          case "matchAnySync":
          case "matchAllSync": {
            // CUDA compares bit patterns: for floats rt.sameBits (-0 is not 0, a NaN matches the same NaN), else ===.
            const v = (i: string) => this.argAt(s.args[1]!, i);
            const float = isFloat((s.args[1]!.type as ScalarType).dtype);
            const same = float ? `rt.sameBits(${v("$q")}, ${v("$u")})` : `${v("$q")} === ${v("$u")}`;
            const mask = this.argAt(s.args[0]!, "$u");
            const peer = "$st[$q] === 0 && (($m >>> ($q - $w)) & 1) !== 0";
            lines.push(`for (let $u = $w; $u < $e; $u++) if ($st[$u] === 0) { const $m = ${mask};`);
            if (s.name === "matchAnySync") lines.push(`let $r = 0; for (let $q = $w; $q < $e; $q++) if (${peer} && ${same}) $r |= 1 << ($q - $w);`);
            // match.all: the lanes of the mask that take part (PTX: "the non-exited threads in membermask")
            // when they all have the same value, else 0.
            else lines.push(`let $r = ($m & $am) >>> 0; for (let $q = $w; $q < $e; $q++) if (${peer} && !(${same})) { $r = 0; break; }`);
            lines.push(`${this.setResult(s, "$u", "($r >>> 0)")} }`);
            break;
          }
          default:
            throw new Error(`CudaScript simulator: unknown synchronisation ${s.name}`);
        }
        lines.push("}");
        if (san) lines.push(SAN_REFRESH);
        break;
      }
    }
    return lines.join("\n");
  }
}

/**
 * Reads in `value` of exactly the element `target` names (same array, structurally identical index
 * expressions without side effects), when evaluating `value` has no side effects: between such a read
 * and the write of `target` nothing else happens, so the write (which clears the reader record once its
 * checks pass) makes the read's record unobservable. Used for `a[i] += x` under the sanitizer.
 */
function readsOfSameElement(target: IR.IndexExpr, value: IR.Expr): IR.IndexExpr[] {
  if (!target.indices.every(sideEffectFree)) return [];
  const out: IR.IndexExpr[] = [];
  let impure = false;
  visitExpr(value, (x) => {
    if (x.k === "call" || x.k === "atomic" || x.k === "random") impure = true;
    else if (x.k === "index" && x.array.v === target.array.v && x.indices.length === target.indices.length && x.indices.every((ix, d) => sameExpr(ix, target.indices[d]!))) out.push(x);
  });
  return impure ? [] : out;
}

function sideEffectFree(e: IR.Expr): boolean {
  let ok = true;
  visitExpr(e, (x) => {
    if (x.k === "call" || x.k === "atomic" || x.k === "random" || x.k === "index" || x.k === "intrinsic") ok = false;
  });
  return ok;
}

/** Most iterations a loop may have and still count as small (see smallCountedLoop). */
const SMALL_TRIP_COUNT = 1 << 16;

/**
 * `for (let k = c0; k < C; k += c)` (or `<=`; for i32 also the decreasing `>` / `>=` form with `-=`)
 * with integer constants, at most SMALL_TRIP_COUNT iterations, and `k` assigned nowhere but in the
 * update: it always ends, after few iterations (the constants are small, so `k` cannot wrap).
 */
export function smallCountedLoop(s: NLoop): boolean {
  const c = s.cond;
  if (!s.testFirst || !c || c.k !== "compare" || s.init.length !== 1 || s.update.length !== 1) return false;
  const dt = c.operandType.dtype;
  if (dt !== "i32" && dt !== "u32") return false;
  let op = c.op;
  let kx = c.left, bound = c.right;
  if (kx.k !== "var") {
    [kx, bound] = [bound, kx];
    op = op === "<" ? ">" : op === ">" ? "<" : op === "<=" ? ">=" : op === ">=" ? "<=" : op;
  }
  if (kx.k !== "var" || bound.k !== "const" || typeof bound.value !== "number") return false;
  const k = kx.v;
  const init = s.init[0]!, upd = s.update[0]!;
  const c0 = init.k === "decl" && init.v === k && init.init?.k === "const" ? init.init.value : undefined;
  if (typeof c0 !== "number") return false;
  if (upd.k !== "assign" || upd.target.k !== "var" || upd.target.v !== k) return false;
  const u = upd.value;
  if (u.k !== "binary" || (u.op !== "+" && u.op !== "-") || u.left.k !== "var" || u.left.v !== k || u.right.k !== "const" || typeof u.right.value !== "number") return false;
  const step = u.op === "+" ? u.right.value : -u.right.value;
  const C = bound.value;
  let trips: number;
  if ((op === "<" || op === "<=") && step > 0) trips = (C - c0 + (op === "<=" ? 1 : 0)) / step;
  else if ((op === ">" || op === ">=") && step < 0 && dt === "i32") trips = (c0 - C + (op === ">=" ? 1 : 0)) / -step;
  else return false;
  if (!(trips <= SMALL_TRIP_COUNT) || Math.abs(C) > SMALL_TRIP_COUNT || Math.abs(c0) > SMALL_TRIP_COUNT || Math.abs(step) > SMALL_TRIP_COUNT) return false;
  return !assignsVar(s.body, k);
}


function containsIndexOrCall(e: IR.Expr): boolean {
  let found = false;
  visitExpr(e, (x) => {
    if (x.k === "index" || x.k === "call" || x.k === "atomic" || x.k === "random") found = true;
  });
  return found;
}


function forEachVarExpr(e: IR.Expr, f: (v: IR.Var) => void): void {
  visitExpr(e, (x) => {
    if (x.k === "var" && x.type.kind === "scalar") f(x.v);
  });
}

function containsSync(s: NStmt): boolean {
  switch (s.k) {
    case "sync":
    case "fnScope":
      return true;
    case "if":
      return s.then.some(containsSync) || (!!s.else && s.else.some(containsSync));
    case "loop":
      return s.init.some(containsSync) || s.body.some(containsSync) || s.update.some(containsSync);
    case "block":
      return s.body.some(containsSync);
    default:
      return false;
  }
}

function forEachSync(stmts: readonly NStmt[], f: (s: SyncStmt) => void): void {
  for (const s of stmts) {
    if (s.k === "sync") f(s);
    else if (s.k === "if") {
      forEachSync(s.then, f);
      if (s.else) forEachSync(s.else, f);
    } else if (s.k === "loop") {
      forEachSync(s.init, f);
      forEachSync(s.body, f);
      forEachSync(s.update, f);
    } else if (s.k === "block" || s.k === "fnScope") forEachSync(s.body, f);
  }
}

function forEachArrayDecl(stmts: readonly (IR.Stmt | NStmt)[], f: (s: IR.ArrayDeclStmt | IR.ConstArrayDeclStmt) => void): void {
  for (const s of stmts) {
    if (s.k === "arrayDecl" || s.k === "constArrayDecl") f(s);
    else if (s.k === "if") {
      forEachArrayDecl(s.then, f);
      if (s.else) forEachArrayDecl(s.else, f);
    } else if (s.k === "loop") {
      forEachArrayDecl(s.init, f);
      forEachArrayDecl(s.body, f);
      forEachArrayDecl(s.update, f);
    } else if (s.k === "block" || s.k === "fnScope") forEachArrayDecl(s.body, f);
  }
}

/** Emits the simulator module (one variant) for a file's IrModule. */
export function emitSimulatorModule(module: IR.IrModule, opts: SimEmitOptions = {}): SimModule {
  return new ModuleEmitter(module, opts).emit();
}

