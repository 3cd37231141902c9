/**
 * Undefined values under the sanitizer (issue 32 item 2; docs/simulator.md, "Undefined values"), as
 * Valgrind's memcheck and MemorySanitizer track them: a read of shared memory no thread of the block
 * wrote gives an *undefined* value; undefinedness follows the value through arithmetic, locals, copies
 * and device-function parameters and results; and it is reported only where it matters — a store to
 * global memory, a branch or loop condition, an index, an atomic's operand, a printed or thrown value —
 * naming where the value was read (its *origin*, as MSan's origins) and where it was used.
 *
 * How the emitted code tracks it. A value's shadow is its origin: the read site's number + 1, 0 when
 * defined. Each function keeps one accumulator, `$U` (a local: a module variable cost the reduction
 * of bench/sim.mjs 2.5× under the sanitizer, a local ~1%): every tracked read folds its origin in
 * (`$U = $U || origin`, the first origin wins), so after an
 * expression is evaluated `$U` is its shadow — the OR of its operands', evaluated in the same order as
 * the value, so a select or `&&` that skips an operand skips its shadow too. A local that can hold an
 * undefined value has a shadow local beside it (an i32 variable of its own, so fission keeps it per
 * thread across barriers like any other local); an assignment stores `$U` into it. A shared element's
 * shadow is its sanitizer record (never written in this block: the read site is the origin) and, once
 * written, the origin of the value stored (`UO`), so storing an undefined value to shared memory makes
 * the element undefined instead of reporting. Where a value matters, the accumulator is saved in a
 * temporary of that site (`$uN`) and cleared, the value is evaluated, `$uchk` reports its shadow if it
 * is undefined, and the accumulator is restored. A device function has its own accumulator: the caller
 * queues its tracked arguments' shadows (`$Uq`), passed after the thread registers, and the callee's
 * `return` leaves its result's shadow in the module variable `$UR`, which the caller folds in.
 *
 * What it costs: a static pass over the module (below) finds the locals that can ever hold an undefined
 * value — assigned from a tracked read, from such a local, from a device function's result or parameter
 * that can be — and only those get shadows; only expressions that can be undefined get checks. A module
 * without shared memory tracks nothing, so its sanitizing code is exactly what it was.
 */
import type * as IR from "../../ir/nodes";
import { DTYPES } from "../../dtypes/table";
import type { DType } from "../../ir/types";
import { visitExpr } from "../../ir/visit";
import type { NStmt } from "../normalize";
import type { EmitContext } from "./context";
import type { ModuleEmitter } from "./module";

/** Where an undefined value matters: the `op` of its use site, as the message says it. */
export type UndefinedUse = "branch" | "loop condition" | "index" | "global store" | "atomic operand" | "printed value" | "thrown value";

/** The accumulator and its helpers, one copy in the module's prelude. */
const HELPERS = [
  // the shadows of a call's tracked arguments, and of a device function's result
  "const $Uq = []; let $UR = 0;",
  // a value v that matters, of shadow u, used at site s by thread t: reported when undefined
  "function $uchk(v, u, s, t) { if (u !== 0) $san.undefinedUse(u - 1, s, t); return v; }",
  // a device-function argument whose parameter is tracked: its shadow queued for the call
  "function $uarg(v, u) { $Uq.push(u); return v; }",
  // a device function's result and its shadow
  "function $uret(v, u) { $UR = u; return v; }",
  // the value of a call (the caller folds $UR in after it)
  "function $uval(v) { return v; }",
].join("\n");

/** What the static pass found for one module. */
interface ModuleAnalysis {
  /** Locals (and device-function parameters) that can hold an undefined value. */
  readonly vars: Set<IR.Var>;
  /** Device functions whose result can be undefined. */
  readonly results: Set<string>;
  /** The module declares shared memory: without it nothing is ever undefined. */
  readonly active: boolean;
}

const analyses = new WeakMap<ModuleEmitter, ModuleAnalysis>();
const shadowVars = new WeakMap<IR.Var, IR.Var>();

/** A statement of the IR or of the normalised form, as the pass walks it. */
type AnyStmt = IR.Stmt | NStmt;

/** Every statement below `stmts` (pre-order), normalised constructs included. */
function forEachAny(stmts: readonly AnyStmt[], f: (s: AnyStmt) => void): void {
  for (const s of stmts) {
    f(s);
    switch (s.k) {
      case "if":
        forEachAny(s.then, f);
        if (s.else) forEachAny(s.else, f);
        break;
      case "loop":
        forEachAny(s.init, f);
        forEachAny(s.body, f);
        forEachAny(s.update, f);
        break;
      case "block":
      case "fnScope":
        forEachAny(s.body, f);
        break;
      default:
        break;
    }
  }
}

/** Whether reading element(s) of this array can give an undefined value: shared memory, or a device function's array parameter (which may be shared memory). */
function trackedArray(v: IR.Var, deviceParams: ReadonlySet<IR.Var>): boolean {
  return v.type.kind === "array" && (v.type.space === "shared" || deviceParams.has(v));
}

/**
 * The fixpoint: a local is tracked when something assigns it an expression that can be undefined; a
 * device function's parameter when a call passes one; its result when a `return` does.
 */
function analyze(me: ModuleEmitter, extra: readonly (readonly AnyStmt[])[] = []): ModuleAnalysis {
  const fns = [...me.module.kernels, ...me.module.deviceFunctions];
  const deviceParams = new Set<IR.Var>();
  for (const f of me.module.deviceFunctions) for (const p of f.params) deviceParams.add(p);
  // A kernel's scalar parameters come from the host, defined; one the body reassigns is reset per thread
  // by the plain kernel's loop, which a shadow would not follow: they are left untracked.
  const kernelParams = new Set<IR.Var>();
  for (const k of me.module.kernels) for (const p of k.params) kernelParams.add(p);
  let active = false;
  const bodies = [...fns.map((f) => f.body as readonly AnyStmt[]), ...extra];
  for (const b of bodies) forEachAny(b, (s) => s.k === "arrayDecl" && s.arrayType.space === "shared" && (active = true));
  const vars = new Set<IR.Var>();
  const results = new Set<string>();
  if (!active) return { vars, results, active };
  const may = (e: IR.Expr): boolean => {
    let u = false;
    visitExpr(e, (x) => {
      if (u) return;
      if (x.k === "var" && vars.has(x.v)) u = true;
      else if (x.k === "index" && !x.field && trackedArray(x.array.v, deviceParams)) u = true;
      else if (x.k === "call" && results.has(x.fn)) u = true;
    });
    return u;
  };
  const fnOf = new Map<readonly AnyStmt[], IR.IrFunction>();
  fns.forEach((f) => fnOf.set(f.body as readonly AnyStmt[], f));
  for (let changed = true; changed; ) {
    changed = false;
    const mark = (v: IR.Var) => {
      if (v.type.kind === "scalar" && !vars.has(v) && !kernelParams.has(v)) {
        vars.add(v);
        changed = true;
      }
    };
    const calls = (e: IR.Expr) =>
      visitExpr(e, (x) => {
        if (x.k !== "call") return;
        const callee = me.fns.get(x.fn);
        if (callee) x.args.forEach((a, i) => callee.params[i] && may(a) && mark(callee.params[i]!));
      });
    for (const body of bodies) {
      const fn = fnOf.get(body);
      forEachAny(body, (s) => {
        switch (s.k) {
          case "decl":
            if (s.init) {
              calls(s.init);
              if (may(s.init)) mark(s.v);
            }
            break;
          case "assign":
            calls(s.value);
            if (s.target.k === "var" && may(s.value)) mark(s.target.v);
            break;
          case "return":
            if (s.value) {
              calls(s.value);
              if (fn && fn.kind === "device" && may(s.value) && !results.has(fn.id)) {
                results.add(fn.id);
                changed = true;
              }
            }
            break;
          case "expr":
            calls(s.expr);
            break;
          case "if":
            calls(s.cond);
            break;
          case "loop":
            if (s.cond) calls(s.cond);
            break;
          case "print":
          case "raise":
            s.args.forEach(calls);
            break;
          default:
            break;
        }
      });
    }
  }
  return { vars, results, active };
}

/** The undefined-value tracking of one function's emission (cx.san only). */
export class UndefinedValues {
  private analysis: ModuleAnalysis | undefined;
  /** The temporaries `$u0…` holding the accumulator across a value that matters: how many this function uses. */
  private temps = 0;
  /** Whether this function's code uses the accumulator (it then declares it). */
  private used = false;
  /** The module's analysis alone: what device functions were emitted with (their parameter lists). */
  private moduleAnalysis: ModuleAnalysis | undefined;

  constructor(private readonly cx: EmitContext) {}

  /**
   * Analyses the module (once) and, for a fission kernel, its normalised body too: inlined device
   * functions get fresh locals there (normalize.ts).
   */
  prepare(normalized?: readonly NStmt[]): void {
    if (!this.cx.san) return;
    const me = this.cx.me;
    let a = analyses.get(me);
    if (!a) analyses.set(me, (a = analyze(me)));
    this.moduleAnalysis = a;
    this.analysis = normalized && a.active ? analyze(me, [normalized]) : a;
  }

  private get a(): ModuleAnalysis | undefined {
    if (!this.cx.san) return undefined;
    if (!this.analysis) this.prepare();
    return this.analysis!.active ? this.analysis : undefined;
  }

  /** Whether this function's code tracks undefined values at all. */
  get active(): boolean {
    return this.a !== undefined;
  }

  private helpers(): void {
    this.used = true;
    this.cx.helper("$U", HELPERS);
  }

  /** The `let` of this function's accumulator and temporaries, when it tracks anything. */
  decl(): string | undefined {
    if (!this.used) return undefined;
    return `let $U = 0${Array.from({ length: this.temps }, (_, k) => `, $u${k} = 0`).join("")};`;
  }

  /**
   * A value evaluated from a clear accumulator: the accumulator is saved in a temporary of its own and
   * cleared; `use(u, restore)` writes the call that evaluates the value, reads its shadow `u` and then
   * restores the accumulator (arguments evaluate left to right).
   */
  private isolated(use: (u: string, restore: string) => string): string {
    const t = `$u${this.temps++}`;
    return `(${t} = $U, $U = 0, ${use("$U", `$U = ${t}`)})`;
  }

  /** Whether local `v` has a shadow. */
  tracked(v: IR.Var): boolean {
    return this.a?.vars.has(v) === true;
  }

  /** The shadow local of a tracked local (an i32 variable; fission keeps it per thread like any local). */
  shadowVar(v: IR.Var): IR.Var {
    let s = shadowVars.get(v);
    if (!s) shadowVars.set(v, (s = { id: v.id, name: `$u_${v.name}`, type: { kind: "scalar", dtype: "i32" }, isParam: false, mutable: true, span: v.span }));
    return s;
  }

  /** The shadow local of `v`, declared as a `let` of this function unless it is a shadow parameter (a device function's). */
  private declared(v: IR.Var): IR.Var {
    const s = this.shadowVar(v);
    if (!(this.cx.mode === "device" && this.cx.fn.params.includes(v))) this.cx.scalars.add(s);
    return s;
  }

  /** Whether `e` can evaluate to an undefined value. */
  may(e: IR.Expr): boolean {
    const a = this.a;
    if (!a) return false;
    let u = false;
    const deviceParams = this.cx.mode === "device" ? new Set(this.cx.fn.params) : new Set<IR.Var>();
    visitExpr(e, (x) => {
      if (u) return;
      if (x.k === "var" && a.vars.has(x.v)) u = true;
      else if (x.k === "index" && !x.field && trackedArray(x.array.v, deviceParams)) u = true;
      else if (x.k === "call" && a.results.has(x.fn)) u = true;
    });
    return u;
  }

  /** A read of local `v` (emitted as `js`): folds its shadow into the accumulator. */
  readVar(v: IR.Var, js: string): string {
    if (!this.tracked(v)) return js;
    const s = this.declared(v);
    this.cx.noteRead(s);
    this.used = true;
    return `(($U = $U || ${this.cx.vn(s)}), ${js})`;
  }

  /** `v = <value>` as a statement, with the value's shadow stored beside it when `v` is tracked (`e`: the value's IR, absent for a zero). */
  assign(v: IR.Var, value: string, e?: IR.Expr): string {
    const name = this.cx.vn(v);
    if (!this.tracked(v)) return `${name} = ${value};`;
    const s = this.declared(v);
    this.cx.noteWrite(s);
    this.used = true;
    if (!e || !this.may(e)) return `${name} = ${value}; ${this.cx.vn(s)} = 0;`;
    return `${name} = ($U = 0, ${value}); ${this.cx.vn(s)} = $U;`;
  }

  /** A value that matters (emitted as `js`): checked for undefinedness at the use, reported there. */
  check(e: IR.Expr, js: string, use: UndefinedUse, span: IR.Span): string {
    if (!this.may(e)) return js;
    this.helpers();
    const site = this.cx.me.site("use", span, this.cx.fn, { op: use });
    return this.isolated((u, restore) => `$uchk(${js}, ${u}, ${site}, $t, ${restore})`);
  }

  /** The condition of a branch or loop, emitted and checked. */
  cond(e: IR.Expr, span: IR.Span, use: UndefinedUse = "branch"): string {
    return this.check(e, this.cx.emit.ex(e), use, span);
  }

  /** The origin a tracked shared read folds in (`origin`: a JS expression, 0 when defined; `defined`: a cheaper test that it is 0). */
  loadOrigin(origin: string, defined?: string): string | undefined {
    if (!this.active) return undefined;
    this.helpers();
    return defined ? `(${defined} || ($U = $U || ${origin}))` : `($U = $U || ${origin})`;
  }

  /** A shared store's value: evaluated from a clear accumulator, so `$U` after it is the value's shadow. */
  storeValue(js: string): string {
    if (!this.active) return js;
    this.used = true;
    return `($U = 0, ${js})`;
  }

  /**
   * The arguments of a device-function call: a tracked parameter's argument queues its shadow, which
   * the call passes after the thread registers (`…$Uq.splice(-n)`, in parameter order).
   */
  callArg(callee: IR.IrFunction, i: number, js: string): string {
    const p = callee.params[i];
    if (!this.active || !p || !this.moduleAnalysis!.vars.has(p)) return js;
    this.helpers();
    return this.isolated((u, restore) => `$uarg(${js}, ${u}, ${restore})`);
  }
  /** The shadows the call passes after `$t`: one per tracked scalar parameter. */
  callShadows(callee: IR.IrFunction): string[] {
    const n = this.trackedParams(callee).length;
    return n ? [`...$Uq.splice(-${n})`] : [];
  }
  /** The call itself: a callee whose result can be undefined leaves its shadow in `$UR`, folded in after the call. */
  call(callee: IR.IrFunction, js: string): string {
    if (!this.active) return js;
    // A kernel's mirror of Sanitizer.UD: the callee may have stored an undefined value into shared memory.
    const refresh = this.cx.mode === "device" ? [] : ["$ud = $S.UD"];
    const fold = this.moduleAnalysis!.results.has(callee.id) ? ["$U = $U || $UR"] : [];
    if (!refresh.length && !fold.length) return js;
    this.helpers();
    return `$uval(${[js, ...fold, ...refresh].join(", ")})`;
  }
  /** A device function's tracked parameters, whose shadows follow `$t` in its parameter list. */
  trackedParams(fn: IR.IrFunction): IR.Var[] {
    return this.active ? fn.params.filter((p) => p.type.kind === "scalar" && this.moduleAnalysis!.vars.has(p)) : [];
  }
  /** The shadow parameter names of this device function (after `$t`). */
  shadowParams(): string[] {
    return this.trackedParams(this.cx.fn).map((p) => this.cx.vn(this.shadowVar(p)));
  }
  /** `return <value>` of a device function whose result can be undefined: the value's shadow is left in `$UR`. */
  returnValue(js: string): string {
    if (!this.active || !this.moduleAnalysis!.results.has(this.cx.fn.id)) return js;
    this.helpers();
    return `($U = 0, $uret(${js}, $U))`;
  }
}

/**
 * What a never-written shared element holds in poison mode (`configureSimulator({ uninitialized:
 * "poison" })`, `cudascript run --uninitialized poison`; runtime/src/simulator/poison.ts): NaN for floats
 * (f16: the quiet NaN 0x7e00; complex: both parts), and for integers and bools every byte 0xCD (MSVC's
 * "uninitialised heap" byte, the libcuda test double's fresh-memory fill): i32 -842150451, u32
 * 3452816845, i16 -12851, u16 52685, i8 -51, u8 205, i64/u64 0xCDCDCDCDCDCDCDCD, bool true (205).
 * As JavaScript for an element store of that dtype.
 */
export function poisonValue(d: DType): string {
  const t = DTYPES[d];
  if (d === "f16") return "32256";
  if (t.kind === "float" || t.kind === "complex") return "NaN";
  if (t.bits === 64) return t.signed ? "-3617008641903833651n" : "14829735431805717965n";
  const bits = t.bits;
  const unsigned = Number((0xcdcdcdcdn & ((1n << BigInt(bits)) - 1n)));
  return String(t.signed ? unsigned - 2 ** bits : unsigned);
}

/** The per-block fill of a shared array: zeros, or the poison pattern when the launch asks for it (`L.poison`). */
export function unwrittenFill(d: DType, zero: string): string {
  return `(L.poison === true ? ${poisonValue(d)} : ${zero})`;
}

/**
 * Under the sanitizer, a kernel's global arrays mark the elements they store in their allocation's
 * written map (runtime/src/simulator/sanitizer/written.ts: `copyToHost` warns, CSR069, about elements
 * nothing wrote). The setup lines, after the sanitizer's: each array parameter's map (`<data>$W`, null
 * when its array is untracked), also handed to the sanitizer for stores in device functions.
 */
export function writtenSetup(cx: EmitContext): string[] {
  if (!cx.san || cx.mode === "device") return [];
  const out: string[] = [];
  cx.fn.params.forEach((p, i) => {
    if (p.type.kind !== "array" || p.type.record) return;
    const n = cx.vn(p);
    out.push(`const ${n}$W = L.written !== undefined && L.written[${i}] !== undefined ? L.written[${i}] : null; $S.registerWritten(${n}, ${n}$W, ${DTYPES[p.type.dtype].bytes});`);
  });
  return out;
}

/** The mark of a kernel's store to element `flat` of global array `v` (an expression), or undefined where there is none. */
export function writtenMark(cx: EmitContext, v: IR.Var, data: string, flat: string): string | undefined {
  if (!cx.san || cx.mode === "device" || v.type.kind !== "array" || v.type.record || !cx.fn.params.includes(v)) return undefined;
  return `(${data}$W === null || (${data}$W[${flat}] = 1))`;
}
