/**
 * Breakpoint probes in the fast simulator (docs/debugging.md, "Cost"): the debugger runs the blocks
 * where a breakpoint may stop on the fast simulator first, with each breakpoint's line preceded by
 *
 *     if (<condition>) console.log(PROBE_FORMAT, cuda.blockIdx.x, cuda.blockIdx.y, cuda.blockIdx.z);
 *
 * (the condition in the kernel language, compiled by debug-expression.ts, as IR over the statement's
 * variables). A block where no probe fires ran at the fast simulator's speed and is done; when one
 * fires, the debugger puts the device memory back and runs that block again on the stepping backend,
 * where it stops. The probe prints nothing else and changes nothing: the rest of the kernel is the
 * same IR, emitted by the same emitter.
 */
import type * as IR from "../ir/nodes";
import { scalar } from "../ir/types";
import { forEachRootExpr, forEachStmt, visitExpr } from "../ir/visit";
import { emitSimulatorModule, type SimEmitOptions, type SimModule } from "../js/emit";
import { scopes } from "./emit-step";

/** The text a probe prints (then its block index): the debugger's rt recognises it. */
export const PROBE_FORMAT = "\u0001cudascript-debug-probe %d %d %d\n";

export interface ProbeLine {
  readonly file: string;
  readonly line: number;
  /**
   * The probe's condition at a statement of function `fn` (the stepping module's index) with the
   * variables `visible` in scope: an IR expression, `true` (always), or `false` (cannot be probed).
   */
  condition(fn: number, visible: readonly number[]): IR.Expr | boolean;
}

/**
 * The fast simulator's module with the probes, or undefined when a breakpoint cannot be probed. With
 * `{ sanitize: true }` the sanitizer's module (replay to a fault counts the faulting thread's passes
 * there: runtime/src/debugger/replay-count.ts).
 */
export function emitProbedSimulatorModule(module: IR.IrModule, probes: readonly ProbeLine[], options: SimEmitOptions = {}): SimModule | undefined {
  const fns = [...module.deviceFunctions, ...module.kernels];
  let ok = true;
  const rewrite = (f: IR.IrFunction, index: number): IR.IrFunction => {
    const { visible, updates } = scopes(f);
    const walk = (list: readonly IR.Stmt[]): IR.Stmt[] => {
      const out: IR.Stmt[] = [];
      for (const s of list) {
        const vis = visible.get(s);
        if (vis && !updates.has(s))
          for (const p of probes) {
            if (p.file !== s.span.file || p.line !== s.span.line) continue;
            const c = p.condition(index, vis);
            if (c === false) ok = false;
            else out.push(probe(s.span, c));
          }
        out.push(inner(s));
      }
      return out;
    };
    const inner = (s: IR.Stmt): IR.Stmt => {
      switch (s.k) {
        case "if":
          return { ...s, then: walk(s.then), ...(s.else ? { else: walk(s.else) } : {}) };
        case "loop":
          // The update statements keep their identity: no probe there (no statement stops there either).
          return { ...s, init: walk(s.init), body: walk(s.body) };
        case "block":
          return { ...s, body: walk(s.body) };
        default:
          return s;
      }
    };
    return { ...f, body: walk(f.body) };
  };
  const rewritten = fns.map(rewrite);
  if (!ok) return undefined;
  const n = module.deviceFunctions.length;
  return emitSimulatorModule({ ...module, deviceFunctions: rewritten.slice(0, n), kernels: rewritten.slice(n) }, options);
}

function probe(span: IR.Span, c: IR.Expr | true): IR.Stmt {
  const i32 = scalar("i32");
  const bool = scalar("bool");
  const cond: IR.Expr = c === true ? { k: "const", type: bool, value: true, span } : c.type.kind === "scalar" && c.type.dtype === "bool" ? c : { k: "truthy", type: bool, value: c, span };
  const block = (["x", "y", "z"] as const).map((axis): IR.Expr => ({ k: "special", type: i32, reg: "blockIdx", axis, span }));
  return { k: "if", span, cond, then: [{ k: "print", span, format: PROBE_FORMAT, args: block }] };
}

/**
 * The kernel's array parameters a launch may write (by index): stored into, updated atomically, a
 * random state drawn from, or passed on (to a device function, a view, another variable) — so
 * conservatively written. The debugger copies only these before a speculative fast run.
 */
export function writtenArrayParams(kernel: IR.IrFunction): number[] {
  const written = new Set<IR.Var>();
  forEachStmt(kernel.body, (s) => {
    if (s.k === "assign" && s.target.k === "index") written.add(s.target.array.v);
  });
  // A read `a[i]` or `a.length` does not visit `a` itself: any other use of the array's name is one.
  forEachRootExpr(kernel.body, (e) =>
    visitExpr(e, (x) => {
      if (x.k === "var" && x.type.kind === "array") written.add(x.v);
      else if (x.k === "atomic") written.add(x.array.v);
      else if (x.k === "random") written.add(x.states.v);
    }),
  );
  return kernel.params.flatMap((p, i) => (p.type.kind === "array" && written.has(p) ? [i] : []));
}
