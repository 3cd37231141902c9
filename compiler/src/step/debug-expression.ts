/**
 * Debugger expressions in the kernel language (docs/debugging.md, "Expressions"): a breakpoint
 * condition, a logpoint's `{expr}`, a watch or an evaluate, type-checked with the variables in scope at
 * a statement and compiled to JavaScript by the fast simulator's own emitter — so `i / 2` divides as the
 * kernel does, i32 arithmetic wraps, i64 values are bigints, `s[3][4]` reads a shared 2-D array, and a
 * type error is the checker's diagnostic, with its column in the expression.
 *
 * How: the expression becomes the body of a device function appended to the kernel's own file,
 *
 *     import * as __cudascript_debug from "cudascript";
 *     const __cudascript_debug_expr = __cudascript_debug.cuda.device((i: __cudascript_debug.i32, s: __cudascript_debug.Array2D<__cudascript_debug.f32>, …) => (
 *     <expression>
 *     ));
 *
 * whose parameters are the variables in scope (innermost of a name wins), so every module-level name of
 * the file — device functions, constants, `cuda` — means what it means in the kernel. The file is
 * checked by a KernelChecker of its own; the function is emitted with FnEmitter in device mode, and a
 * wrapper passes a debugger frame's values (arrays as { data, offset, shape, strides }) as its arguments.
 * Its loops (those of the device functions it calls) have the loop watchdog (`rt.watchdog` every 2^20
 * passes), through which the runtime keeps an evaluation within its time budget (CSD027).
 */
import ts from "typescript";
import * as path from "node:path";
import { KernelChecker } from "../checker/checker";
import type * as IR from "../ir/nodes";
import { forEachRootExpr, visitExpr } from "../ir/visit";
import { FnEmitter, ModuleEmitter } from "../js/emit";

import { scopes } from "./emit-step";
import { SYNC_INTRINSICS } from "../intrinsics";

const NS = "__cudascript_debug";
const FN = "__cudascript_debug_expr";

/** A diagnostic of the expression: the checker's code and message, and the column in the expression's text (1-based). */
export interface DebugExpressionDiagnostic {
  readonly code: string;
  readonly message: string;
  readonly col: number;
}

export type DebugExpressionResult =
  | {
      readonly ok: true;
      /**
       * A module body for `new Function("rt", source)(rt)`: returns `{ ctx(bx, by, bz, bdx, bdy, bdz, gdx, gdy, gdz), eval(v, tx, ty, tz, t) }`;
       * `ctx` sets the block and launch registers, `eval` computes the expression from a frame's variables
       * `v` (indexed as the function's frame) and the thread's index.
       */
      readonly source: string;
      /** The result's dtype. */
      readonly dtype: string;
      /** Whether it reads a variable of the frame (else the thread's indices alone decide it). */
      readonly readsVars: boolean;
      /** Whether it reads an array of the frame (`v` must then be the frame's full view, not its scalars). */
      readonly readsArrays: boolean;
      /**
       * The expression as IR over the function's own variables (for probes compiled into the fast
       * simulator, probe.ts); absent when it calls a device function the module does not have.
       */
      readonly ir?: IR.Expr;
    }
  | {
      readonly ok: false;
      /** syntax: not one expression; check: the checker's errors; effect: it would change the run; source: the kernel file cannot be read. */
      readonly reason: "syntax" | "check" | "effect" | "source";
      readonly diagnostics: readonly DebugExpressionDiagnostic[];
    };

function annotation(t: IR.Type): string | undefined {
  if (t.kind === "scalar") return t.dtype === "bool" ? "boolean" : `${NS}.${t.dtype}`;
  if (t.kind === "array") return `${NS}.Array${t.rank}D<${NS}.${t.dtype === "bool" ? "u8" : t.dtype}>`;
  return undefined;
}

/** Whether `text` is one expression (the whole of it), as TypeScript parses it. */
function parseError(text: string): string | undefined {
  if (text.trim() === "") return "it is empty";
  const sf = ts.createSourceFile("expression.ts", `(${text}\n)`, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const diags = (sf as unknown as { parseDiagnostics?: readonly ts.DiagnosticWithLocation[] }).parseDiagnostics ?? [];
  if (diags.length) return ts.flattenDiagnosticMessageText(diags[0]!.messageText, " ");
  if (sf.statements.length !== 1 || !ts.isExpressionStatement(sf.statements[0]!)) return "it is not one expression";
  return undefined;
}

/** Compiles debugger expressions for the functions of one module (one KernelChecker, reused). */
export class DebugExpressionCompiler {
  private readonly checker = new KernelChecker();
  private readonly original: string | undefined;
  private readonly fns: readonly IR.IrFunction[];
  private readonly scopeOf = new Map<IR.IrFunction, IR.Var[]>();

  /** `text`: the module file's source (default: read from disk). */
  constructor(
    private readonly module: IR.IrModule,
    text?: string,
  ) {
    if (text !== undefined) this.checker.setFileText(module.file, text);
    this.original = text ?? ts.sys.readFile(path.resolve(module.file));
    // The stepping module's function order (emit-step.ts): device functions, then kernels.
    this.fns = [...module.deviceFunctions, ...module.kernels];
  }

  /**
   * `text` in function `fn` (an index into the stepping module's functions) with the variables
   * `visible` (indices into that function's frame variables) in scope.
   */
  compile(fn: number, visible: readonly number[], text: string): DebugExpressionResult {
    const notExpr = parseError(text);
    if (notExpr) return { ok: false, reason: "syntax", diagnostics: [{ code: "", message: notExpr, col: 1 }] };
    const f = this.fns[fn];
    const original = this.original;
    if (original === undefined || !f) return { ok: false, reason: "source", diagnostics: [{ code: "", message: `the kernel file ${this.module.file} cannot be read (expressions are compiled against it)`, col: 1 }] };
    let vars = this.scopeOf.get(f);
    if (!vars) this.scopeOf.set(f, (vars = scopes(f).vars));
    // The innermost variable of a name: later in `visible` shadows earlier.
    const byName = new Map<string, number>();
    // Only names a program can write: a shared/local record array's field arrays (`sh.x`: lower-records.ts) are not.
    for (const i of visible) if (annotation(vars[i]!.type) && /^[A-Za-z_$][\w$]*$/.test(vars[i]!.name)) byName.set(vars[i]!.name, i);
    const params = [...byName.values()].sort((a, b) => a - b);
    const head = `\nimport * as ${NS} from "cudascript";\nconst ${FN} = ${NS}.cuda.device((${params.map((i) => `${vars![i]!.name}: ${annotation(vars![i]!.type)}`).join(", ")}) => (\n`;
    const exprStart = original.length + head.length;
    this.checker.setFileText(this.module.file, `${original}${head}${text}\n));\n`);
    const check = this.checker.checkFile(this.module.file);
    const mine = check.diagnostics.filter((d) => d.severity === "error" && d.span.start >= original.length);
    if (mine.length) return { ok: false, reason: "check", diagnostics: mine.map((d) => ({ code: d.code, message: d.message, col: Math.max(1, Math.min(text.length, d.span.start - exprStart + 1)) })) };
    const info = this.checker.front.moduleInfo(this.module.file);
    const decl = info?.functions.get(FN);
    const lowered = info && decl ? this.checker.lowerScalar(info, decl) : undefined;
    if (!lowered) return { ok: false, reason: "check", diagnostics: [{ code: "CS9001", message: "it could not be compiled", col: 1 }] };
    const dbg = lowered.fn;
    const problem = sideEffect(dbg, (id) => this.fns.find((g) => g.id === id));
    if (problem) return { ok: false, reason: "effect", diagnostics: [{ code: "", message: problem, col: 1 }] };
    // Device functions it may call: those of the module (the kernels reach them) and any other of the file.
    const devices = new Map(this.module.deviceFunctions.map((d) => [d.id, d]));
    const own = dbg.callees.every((id) => devices.has(id));
    const stack = [...dbg.callees];
    while (stack.length) {
      const id = stack.pop()!;
      if (devices.has(id)) continue;
      const name = id.slice(id.lastIndexOf("#") + 1);
      const m = this.checker.front.moduleInfo(id.slice(0, id.lastIndexOf("#")));
      const d = m?.functions.get(name);
      const l = m && d ? this.checker.lowerScalar(m, d) : undefined;
      if (!l) continue;
      devices.set(id, l.fn);
      stack.push(...l.fn.callees);
    }
    const me = new ModuleEmitter({ file: this.module.file, kernels: [], deviceFunctions: [...devices.values(), dbg], constArrays: check.module.constArrays }, { watchdog: true });
    if (me.syncFns.has(dbg.id)) return { ok: false, reason: "effect", diagnostics: [{ code: "", message: "it waits at a barrier or a warp operation (a debugger expression runs in one thread)", col: 1 }] };
    const code: string[] = [];
    for (const d of devices.values()) if (!me.syncFns.has(d.id)) code.push(new FnEmitter(me, d, "device").emitDevice());
    code.push(new FnEmitter(me, dbg, "device").emitDevice());
    const read = new Set<IR.Var>();
    forEachRootExpr(dbg.body, (e) => visitExpr(e, (x) => (x.k === "var" ? read.add(x.v) : x.k === "index" || x.k === "shape" ? read.add(x.array.v) : undefined)));
    const args = dbg.params.map((p, k) => {
      const v = `$v[${params[k]}]`;
      if (p.type.kind !== "array") return read.has(p) ? v : "undefined";
      const r = p.type.rank;
      // An array it does not read: placeholders (the frame's scalars hold none).
      if (!read.has(p)) return ["null", "0", ...Array(2 * r).fill("0")].join(", ");
      return [`${v}.data`, `${v}.offset`, ...Array.from({ length: r }, (_, d) => `${v}.shape[${d}]`), ...Array.from({ length: r }, (_, d) => `${v}.strides[${d}]`)].join(", ");
    });
    code.push(
      "function $ctx(bx, by, bz, bdx, bdy, bdz, gdx, gdy, gdz) { $cbx = bx; $cby = by; $cbz = bz; $cbdx = bdx; $cbdy = bdy; $cbdz = bdz; $cgdx = gdx; $cgdy = gdy; $cgdz = gdz; }",
      `return { ctx: $ctx, eval: function ($v, $tx, $ty, $tz, $t) { return ${me.deviceNames.get(dbg.id)}(${[...args, "$tx", "$ty", "$tz", "$t"].join(", ")}); } };`,
    );
    const o = me.prelude(`// CudaScript debugger expression: ${text.replace(/\s+/g, " ")}`);
    o.push(...code);
    const ret = dbg.body[0];
    const subst = new Map(dbg.params.map((p, k) => [p, vars![params[k]!]!]));
    return {
      ok: true,
      ...(own && ret?.k === "return" && ret.value ? { ir: substituteVars(ret.value, subst) } : {}),
      source: o.join("\n"),
      dtype: dbg.returnType.kind === "scalar" ? dbg.returnType.dtype : "void",
      readsVars: dbg.params.some((p) => read.has(p)),
      readsArrays: dbg.params.some((p) => p.type.kind === "array" && read.has(p)),
    };
  }
}

/** A copy of `e` reading `map`'s variables instead of its keys (IR nodes are plain objects with a `k`). */
function substituteVars<T>(e: T, map: ReadonlyMap<IR.Var, IR.Var>): T {
  if (Array.isArray(e)) return e.map((x) => substituteVars(x, map)) as T;
  if (!e || typeof e !== "object" || !("k" in e)) return e;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(e)) out[key] = key === "v" ? (map.get(value as IR.Var) ?? value) : substituteVars(value, map);
  return out as T;
}

/** Why the expression cannot be evaluated without changing the run (an atomic, a random draw, a store in a device function it calls), if so. */
function sideEffect(fn: IR.IrFunction, callee: (id: string) => IR.IrFunction | undefined, seen = new Set<string>()): string | undefined {
  let why: string | undefined;
  const look = (f: IR.IrFunction): void => {
    if (seen.has(f.id)) return;
    seen.add(f.id);
    forEachRootExpr(f.body, (e) =>
      visitExpr(e, (x) => {
        if (why) return;
        if (x.k === "atomic") why = `it updates memory (cuda.atomic.${x.op})`;
        else if (x.k === "random") why = "it draws a random number (which advances the state)";
        else if (x.k === "intrinsic" && SYNC_INTRINSICS.has(x.name)) why = "it waits at a barrier or a warp operation (a debugger expression runs in one thread)";
        else if (x.k === "call") {
          const c = callee(x.fn);
          if (c) look(c);
        }
      }),
    );
    if (!why && f !== fn && writesArray(f)) why = `it calls '${f.name}', which writes an array`;
  };
  look(fn);
  return why;
}

function writesArray(f: IR.IrFunction): boolean {
  let found = false;
  const walk = (list: readonly IR.Stmt[]): void => {
    for (const s of list) {
      if (s.k === "assign" && s.target.k === "index") found = true;
      else if (s.k === "if") (walk(s.then), s.else && walk(s.else));
      else if (s.k === "loop") (walk(s.init), walk(s.body), walk(s.update));
      else if (s.k === "block") walk(s.body);
    }
  };
  walk(f.body);
  return found;
}
