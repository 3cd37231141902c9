/**
 * The emit context: the state one function's emission shares between its concerns (values, memory and
 * the sanitizer, statements, fission and masking, synchronisation), and how they reach one another.
 *
 * Each concern is a small class holding this context (`cx`). What only one concern uses stays in that
 * class; what several read or write is here: the function's names, its arrays and scalars, the piece
 * being collected (`seg`), the exits of the enclosing loops, the per-thread variables, the emission mode
 * and the helpers the module is asked for (`helper`, as TypeScript's transformers call
 * `requestEmitHelper` instead of writing helpers themselves).
 *
 * Expressions and statements are emitted through `cx.emit` (the FnEmitter), never a concern's own
 * method directly: the stepping backend (compiler/src/step) overrides those four entry points.
 */
import type * as IR from "../../ir/nodes";
import type { ScalarType } from "../../ir/types";
import type { NStmt, SyncStmt } from "../normalize";
import type { ModuleEmitter, SimSite } from "./module";
import type { ArrayInfo, ArrayDeclarations } from "./arrays";
import type { ValueEmitter } from "./values";
import type { MemoryEmitter } from "./memory";
import type { StatementEmitter } from "./statements";
import type { KernelFrame } from "./frame";
import type { PlainKernelEmitter } from "./plain-kernel";
import type { FissionEmitter } from "./fission";
import type { PiecePrinter } from "./pieces";
import type { SyncEmitter } from "./sync";
import type { IntrinsicEmitter } from "./intrinsic";
import type { UndefinedValues } from "./shadow-values";
import { INT64_HELPERS, usesInt64Helpers } from "../int64";
import { HALF_TABLES, HALF_TABLES_NAME } from "../f16";
import { GLOBAL_REFRESH } from "./sanitize-global";

/** Reloads the sanitizer's epoch values the inline fast paths compare against (after every synchronisation). */
export const SAN_REFRESH = `$E = $S.E; $E1 = $S.E1; $BS = $S.BS; $EB = $S.EB; $ud = $S.UD; ${GLOBAL_REFRESH}`;
/** A block's start under the sanitizer: the shared and the global detectors' (sanitize-global.ts) epochs. */
export const SAN_BEGIN = `$S.beginBlock($bx, $by, $bz); $G.block($b); ${SAN_REFRESH}`;
/** Where this thread's writer ([M1, M2)) and reader ([M2, M3)) values of the current epoch start (see Shadow in the runtime). */
export const SAN_THREAD = "$M1 = $E + ($t + 1) * $SS; $M2 = $M1 + $SS; $M3 = $M2 + $SS;";

/** The status of a thread that returned from the kernel (fission kernels: `$st[$t]`). */
export const EXIT = 1;

/**
 * How a function is emitted: "fast" a kernel as a plain loop nest over its threads, "fission" a kernel
 * split into pieces between synchronisations, "device" a function of its own (device functions, the
 * stepping backend's generators, debugger expressions).
 */
export type EmitMode = "fast" | "fission" | "device";

/** The entry points the stepping backend overrides (FnEmitter implements them). */
export interface EmitHooks {
  ex(e: IR.Expr): string;
  tstmt(s: NStmt, out: string[]): void;
  call(e: IR.CallExpr): string;
  intrinsic(e: IR.IntrinsicExpr): string;
}

/** Where a `break` / `continue` of per-thread code goes. */
export type Exit =
  | { readonly kind: "js"; readonly label: string; readonly contLabel?: string }
  | { readonly kind: "masked"; readonly B: number; readonly C: number; usedC: boolean }
  | { readonly kind: "uniform"; readonly label: string; readonly contLabel: string; usedC: boolean };

/** A per-thread piece of a fission kernel: its code and what it reads and writes. */
export interface Seg {
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
  /** Profiling: the runtime calls that count the piece's bulk sites, after its threads (profile-bulk.ts). */
  bulk?: string[];
  /** Uses the global race detector's inline fast path (needs this thread's bands: sanitize-global.ts GLOBAL_THREAD). */
  globalFast?: boolean;
}
export interface SyncItem {
  readonly k: "sync";
  readonly s: SyncStmt;
  readonly site: number;
  /** Inside a masked construct: threads may be parked, so a barrier checks for divergence. */
  readonly masked: boolean;
  unit?: number;
}
export interface RawItem {
  readonly k: "raw";
  readonly code: string;
}
export interface NestItem {
  readonly k: "nest";
  readonly parts: (string | Item[])[];
}
/** Block-level code of a fission kernel: pieces, synchronisations, block-level statements, nests of them. */
export type Item = Seg | SyncItem | RawItem | NestItem;

/** The concerns of one function's emission (wired by FnEmitter). */
export interface EmitParts {
  readonly values: ValueEmitter;
  readonly intrinsics: IntrinsicEmitter;
  readonly memory: MemoryEmitter;
  readonly decls: ArrayDeclarations;
  readonly statements: StatementEmitter;
  readonly frame: KernelFrame;
  readonly plain: PlainKernelEmitter;
  readonly fission: FissionEmitter;
  readonly pieces: PiecePrinter;
  readonly sync: SyncEmitter;
  /** Undefined-value tracking under the sanitizer (shadow-values.ts). */
  readonly undef: UndefinedValues;
}

export class EmitContext {
  /** The function's arrays: parameters and declarations, with their storage expressions. */
  readonly arrays = new Map<IR.Var, ArrayInfo>();
  /** Scalars declared as `let`s of the emitted function. */
  readonly scalars = new Set<IR.Var>();
  mode: EmitMode;
  /** The sanitizing variant of the module. */
  readonly san: boolean;
  /** Numbers the JavaScript labels of loops and pieces (`$L0`, `$r1`, …). */
  private labelCounter = 0;

  /** Collector for the piece being emitted (fission kernels). */
  seg: Seg | undefined;
  /** The exits of the loops around the code being emitted, innermost last. */
  exits: Exit[] = [];
  /** Inlined device functions (fission kernels): the status a `return` of each sets. */
  fnScopes: { id: number; R: number }[] = [];
  /** Variables that live across pieces: one value per thread in a typed array (fission kernels). */
  readonly perThread = new Set<IR.Var>();
  /** Immutable locals whose value is a function of the thread index and launch constants: recomputed per piece (remat.ts). */
  remat = new Map<IR.Var, IR.Expr>();
  /** Whether any code of this fission kernel sets a thread's status (`$st`): a return, or a branch or loop some threads wait out. */
  threadsLeave = false;
  /**
   * Profiling: code that recomputes what the source computed once (a rematerialised local in a later
   * piece), whose conditions and operations are not counted again.
   */
  profileQuiet = false;
  /** Scalar parameters the body assigns (reset per thread in a plain kernel). */
  readonly assignedParams = new Set<IR.Var>();
  /** The kernel calls g.sync(): a generator per block (js/cooperative.ts). */
  cooperative = false;
  /** While emitting the proven copy of a plain loop kernel's body: the accesses whose bounds checks it leaves out (see in-range.ts). */
  proven: ReadonlySet<readonly IR.Expr[]> | undefined;
  /** While emitting the flat-grid copy of a plain kernel's body: `cuda.grid(1)` is the loop's `$g` (flat-grid.ts). */
  flatGrid = false;

  /** The concerns, set once by FnEmitter's constructor. */
  parts!: EmitParts;

  constructor(
    readonly me: ModuleEmitter,
    readonly fn: IR.IrFunction,
    /** The entry points for expressions and statements (the FnEmitter, or the stepping backend's subclass). */
    readonly emit: EmitHooks,
    kind: "kernel" | "device",
    /**
     * This emission of a kernel is for launches whose N-D arrays are all C-contiguous: it indexes them
     * row-major from their extents, as before strides existed, sparing a multiplication per access.
     */
    readonly cOrderArrays: boolean,
  ) {
    this.mode = kind === "device" ? "device" : "fast";
    this.san = !!me.opts.sanitize;
  }

  get values(): ValueEmitter {
    return this.parts.values;
  }
  get intrinsics(): IntrinsicEmitter {
    return this.parts.intrinsics;
  }
  get memory(): MemoryEmitter {
    return this.parts.memory;
  }
  get decls(): ArrayDeclarations {
    return this.parts.decls;
  }
  get statements(): StatementEmitter {
    return this.parts.statements;
  }
  get frame(): KernelFrame {
    return this.parts.frame;
  }
  get plain(): PlainKernelEmitter {
    return this.parts.plain;
  }
  get fission(): FissionEmitter {
    return this.parts.fission;
  }
  get pieces(): PiecePrinter {
    return this.parts.pieces;
  }
  get sync(): SyncEmitter {
    return this.parts.sync;
  }
  get undef(): UndefinedValues {
    return this.parts.undef;
  }

  // ───────────────────────── names ─────────────────────────

  vn(v: IR.Var): string {
    return `${safeName(v.name)}$${v.id}`;
  }
  /** The per-thread storage of a variable that lives across pieces. */
  storage(v: IR.Var): string {
    return `$V_${this.vn(v)}`;
  }
  /** Thread `idx`'s value of a per-thread variable (bools are stored as 0/1). */
  loadVar(v: IR.Var, idx: string): string {
    const t = (v.type as ScalarType).dtype;
    return t === "bool" ? `(${this.storage(v)}[${idx}] !== 0)` : `${this.storage(v)}[${idx}]`;
  }
  storeVar(v: IR.Var, idx: string, value: string): string {
    const t = (v.type as ScalarType).dtype;
    return `${this.storage(v)}[${idx}] = ${t === "bool" ? `(${value} ? 1 : 0)` : value};`;
  }
  label(prefix: string): string {
    return `$${prefix}${this.labelCounter++}`;
  }

  // ───────────────────────── what the current piece touches ─────────────────────────

  noteRead(v: IR.Var): void {
    if (this.seg) this.seg.reads.add(v);
  }
  noteWrite(v: IR.Var): void {
    if (this.seg) this.seg.writes.add(v);
    if (v.isParam) this.assignedParams.add(v);
  }
  /** Called at every element access of `v`. */
  noteArray(v: IR.Var): void {
    const a = this.arrays.get(v);
    if (a?.dtype === "f16" || a?.record?.layout.fields.some((f) => f.dtype === "f16")) this.me.helper(HALF_TABLES_NAME, HALF_TABLES);
    if (this.seg && a?.perThread) this.seg.arrays.add(v);
  }

  arrayInfo(v: IR.Var): ArrayInfo {
    const a = this.arrays.get(v);
    if (a) return a;
    throw new Error(`CudaScript simulator: array '${v.name}' used before its declaration`);
  }

  // ───────────────────────── helpers and sites ─────────────────────────

  /** Asks the module for a helper (emitted once, in the prelude); returns its name. */
  helper(name: string, code: string): string {
    return this.me.helper(name, code);
  }
  /** i64/u64 code (int64.ts): marks the module as using the helpers (`$L`) when the code calls them. */
  i64(code: string): string {
    if (usesInt64Helpers(code)) this.me.helper(INT64_HELPERS.name, INT64_HELPERS.code);
    return code;
  }
  /** Registers a source site of this function (errors and the sanitizer name it); returns its index. */
  site(kind: SimSite["kind"], span: IR.Span, extra: Partial<SimSite> = {}): number {
    return this.me.site(kind, span, this.fn, extra);
  }

  // ───────────────────────── thread statuses ─────────────────────────

  /** Sets the current thread's status to `code` (it leaves the pieces that follow until reset). */
  leave(code: string | number): string {
    this.threadsLeave = true;
    return `$st[$t] = ${code}`;
  }
  segExitLabel(): string {
    if (!this.seg) throw new Error("CudaScript simulator: internal error (no piece for a thread-level exit)");
    return this.seg.label;
  }
}

export function safeName(s: string): string {
  const t = s.replace(/[^A-Za-z0-9_$]/g, "_");
  return /^[0-9]/.test(t) ? `_${t}` : t;
}
