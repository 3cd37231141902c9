/**
 * The simulator module of a source file: its kernels and the device functions they reach, emitted one
 * FnEmitter per function, and the module-level parts they share (sites, helpers asked for, shared-array
 * storage, constant arrays), written as the module's prelude after the functions.
 */
import type * as IR from "../../ir/nodes";
import { isInt64, type ArrayType, type DType, type MemorySpace } from "../../ir/types";
import { syncFunctions } from "../normalize";
import { atomicParams } from "../privatize";
import type { PrivatizableParam, SimKernelInfo } from "../artifact-types";
import { HALF_TABLES, HALF_TABLES_NAME, halfAtomic, halfConstArray } from "../f16";
import { FnEmitter } from "./function";
import { safeName } from "./context";
import { storageArrayName } from "./arrays";

/**
 * Version of the contract between emitted modules and the runtime's `rt` (runtime/src/simulator):
 * 2 = packed sanitizer shadows (`Sanitizer.E/E1/BS/EB/S`, `shadow(id) → { WP, RP }`) and `L.priv`.
 * 3 = `rt.i64` (i64/u64 as bigints); f16 arrays as Uint16Arrays of their bits with `rt.halfTables()`
 *     and `rt.halfArray` (replacing `rt.Float16Array` and `rt.halfBits`).
 * The simulator refuses artifacts of another version (rebuild the program).
 */
export const SIM_ABI = 4;

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

/** Emits the simulator module (one variant) for a file's IrModule. */
export function emitSimulatorModule(module: IR.IrModule, opts: SimEmitOptions = {}): SimModule {
  return new ModuleEmitter(module, opts).emit();
}
