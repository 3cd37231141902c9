/**
 * The simulator module of a source file: its kernels and the device functions they reach, emitted one
 * FnEmitter per function, and the module-level parts they share (sites, helpers asked for, shared-array
 * storage, constant arrays), written as the module's prelude after the functions.
 */
import type * as IR from "../../ir/nodes";
import { isInt64, type ArrayType, type DType, type MemorySpace } from "../../ir/types";
import { syncFunctions } from "../normalize";
import { DEFAULT_RECURSION_DEPTH, recursiveFunctions } from "../../ir/recursion";
import { atomicParams } from "../privatize";
import type { PrivatizableParam, SimKernelInfo } from "../artifact-types";
import { halfConstArray } from "../f16";
import { atomicHelperCode } from "./atomics";
import { FnEmitter } from "./function";
import { safeName } from "./context";
import { storageArrayName } from "./arrays";
import { ProfileSites } from "./profile";

/**
 * Version of the contract between emitted modules and the runtime's `rt` (runtime/src/simulator):
 * 2 = packed sanitizer shadows (`Sanitizer.E/E1/BS/EB/S`, `shadow(id) → { WP, RP }`) and `L.priv`.
 * 3 = `rt.i64` (i64/u64 as bigints); f16 arrays as Uint16Arrays of their bits with `rt.halfTables()`
 *     and `rt.halfArray` (replacing `rt.Float16Array` and `rt.halfBits`).
 * 5 = the global race detector (`rt.races`, the `$G` block/refresh state), undefined-value shadows
 *     (`Sanitizer.UD`, `shadow(id) → { WP, RP, UO }`, `L.written`), `L.poison` and `L.profile`.
 * The simulator refuses artifacts of another version (rebuild the program).
 */
export const SIM_ABI = 5;

export interface SimEmitOptions {
  /** Race / uninitialised-read / divergent-barrier detection and loop watchdog. */
  readonly sanitize?: boolean;
  /** The loop watchdog alone (`rt.watchdog` every 2^20 passes of a loop): the debugger's expressions, which have a time budget. */
  readonly watchdog?: boolean;
  /** Counting hooks for `cudascript profile` (emit/profile.ts; docs/profiling.md). */
  readonly profile?: boolean;
  /**
   * With `profile`: count every site per thread, none in bulk (emit/profile-bulk.ts) — the reference the
   * bulk counting is tested against (`CUDASCRIPT_PROFILE_PER_THREAD=1` in the runtime).
   */
  readonly profilePerThread?: boolean;
}

export interface SimSite {
  readonly kind: "read" | "write" | "atomic" | "loop" | "barrier" | "warp" | "print" | "raise" | "recursion" | "kernel" | "random" | "use";
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

/** One simulator module: what its functions share, written as its prelude once they are emitted. */
export class ModuleEmitter {
  /** Source sites (accesses, loops, barriers, prints…) that errors and the sanitizer name by index. */
  readonly sites: SimSite[] = [];
  /** Helpers the functions asked for (`helper`), by name, in the order first asked. */
  readonly helpers = new Map<string, string>();
  /** Storage of each shared array (module variables `$sh0`, …), by declaration key. */
  readonly sharedNames = new Map<string, { js: string; type: ArrayType; name: string; id: number }>();
  readonly constNames = new Map<string, string>();
  readonly deviceNames = new Map<string, string>();
  readonly fns = new Map<string, IR.IrFunction>();
  /** Device functions in a call cycle: they count their nesting (ir/recursion.ts). */
  readonly recursive: ReadonlySet<string>;
  readonly syncFns: Set<string>;
  /** Privatizable and atomically updated parameters per kernel id. */
  readonly atomicParams: Map<string, { privatize: PrivatizableParam[]; atomics: number[] }>;
  private sharedCounter = 0;
  /** The profiling variant's counted sites (emit/profile.ts); undefined in the other variants. */
  readonly profile: ProfileSites | undefined;

  constructor(
    readonly module: IR.IrModule,
    readonly opts: SimEmitOptions,
  ) {
    for (const f of module.deviceFunctions) this.fns.set(f.id, f);
    this.syncFns = syncFunctions(module.deviceFunctions);
    this.recursive = recursiveFunctions(module);
    this.atomicParams = atomicParams(module);
    this.profile = opts.profile ? new ProfileSites(!opts.profilePerThread) : undefined;
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

  /** Atomic read-modify-write helper for (op, dtype, space) (atomics.ts). */
  atomicHelper(op: IR.AtomicOp, dtype: DType, space: MemorySpace): string {
    const concurrent = space === "global";
    const name = `$at_${op}_${dtype}_${concurrent ? "g" : "p"}`;
    if (!this.helpers.has(name)) this.helpers.set(name, atomicHelperCode(name, op, dtype, concurrent, (n, code) => this.helper(n, code)));
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
    const o = this.prelude(`// CudaScript simulator module for ${this.module.file}${this.opts.sanitize ? " (sanitize)" : ""}${this.opts.profile ? " (profile)" : ""}`);
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
    if (this.profile) o.push(...this.profile.prelude());
    // Nested calls of recursive device functions on the running thread, and the running kernel's limit (ir/recursion.ts).
    o.push(`let $depth = 0, $depthLimit = ${DEFAULT_RECURSION_DEPTH};`);
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
