/**
 * Per-thread statements: what one thread executes (declarations, assignments, ifs, plain loops with
 * their watchdog, exits, prints). In a fission kernel a `return`, `break` or `continue` that leaves a
 * piece sets the thread's status instead (fission.ts decides which exits those are).
 */
import { assignsVar } from "../../ir/visit";
import type { NLoop, NStmt } from "../normalize";
import { zeroOf } from "./arrays";
import { EXIT, type EmitContext } from "./context";
import { globalFence } from "./sanitize-global";
import { zeroJs } from "./values";
import { profileBranch, profileCountedLoop } from "./profile";

/** The per-thread statements of one function. */
export class StatementEmitter {
  constructor(private readonly cx: EmitContext) {}

  /** Emits statements executed by one thread. `out` receives lines. */
  tstmts(list: readonly NStmt[], out: string[]): void {
    for (const s of list) this.cx.emit.tstmt(s, out);
  }

  tstmt(s: NStmt, out: string[]): void {
    switch (s.k) {
      case "decl": {
        if (s.v.type.kind !== "scalar") return;
        this.cx.scalars.add(s.v);
        this.cx.noteWrite(s.v);
        out.push(this.cx.undef.assign(s.v, s.init ? this.cx.emit.ex(s.init) : zeroJs(s.v.type), s.init));
        return;
      }
      case "arrayDecl": {
        const a = this.cx.arrays.get(s.v);
        if (a && a.space === "local") {
          this.cx.noteArray(s.v);
          out.push(`${a.data}.fill(${zeroOf(a.dtype)});`);
        }
        return;
      }
      case "constArrayDecl":
        return;
      case "assign": {
        if (s.target.k === "var") {
          this.cx.noteWrite(s.target.v);
          out.push(this.cx.undef.assign(s.target.v, this.cx.emit.ex(s.value), s.value));
        } else out.push(this.cx.memory.store(s.target, s.value));
        return;
      }
      case "if": {
        out.push(`if (${profileBranch(this.cx, this.cx.undef.cond(s.cond, s.span), s.cond.span, "if")}) {`);
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
        if (this.cx.mode === "device") {
          out.push(s.value ? `return ${this.cx.undef.returnValue(this.cx.emit.ex(s.value))};` : "return;");
          return;
        }
        if (this.cx.mode === "fast") {
          out.push("continue $thr;");
          return;
        }
        out.push(`{ ${this.cx.leave(EXIT)}; break ${this.cx.segExitLabel()}; }`);
        return;
      }
      case "fnReturn": {
        const sc = this.cx.fnScopes.find((f) => f.id === s.scope);
        if (!sc) throw new Error("CudaScript simulator: internal error (return outside an inlined function)");
        out.push(`{ ${this.cx.leave(sc.R)}; break ${this.cx.segExitLabel()}; }`);
        return;
      }
      case "expr": {
        // A fence orders nothing in the simulator's sequential memory; the sanitizer records its release (sanitize-global.ts).
        if (s.expr.k === "intrinsic" && s.expr.name.startsWith("threadfence") && !globalFence(this.cx, s.expr.name)) return;
        out.push(`${this.cx.emit.ex(s.expr)};`);
        return;
      }
      case "print": {
        const site = this.cx.site("print", s.span, { format: s.format });
        out.push(`rt.print($sites[${site}], [${s.args.map((a) => this.cx.undef.check(a, this.cx.emit.ex(a), "printed value", s.span)).join(", ")}]);`);
        return;
      }
      case "raise": {
        // rt.raise throws the launch's CSR085 fault: the thread stops, and with it the launch.
        const site = this.cx.site("raise", s.span, { format: s.format });
        out.push(`throw rt.raise($sites[${site}], [${s.args.map((a) => this.cx.undef.check(a, this.cx.emit.ex(a), "thrown value", s.span)).join(", ")}]);`);
        return;
      }
      case "sync":
      case "fnScope":
        throw new Error(`CudaScript simulator: internal error (${s.k} in per-thread code)`);
    }
  }

  exitCode(kind: "break" | "continue"): string {
    for (let i = this.cx.exits.length - 1; i >= 0; i--) {
      const x = this.cx.exits[i]!;
      if (x.kind === "js") return kind === "break" ? `break ${x.label};` : x.contLabel ? `break ${x.contLabel};` : `continue ${x.label};`;
      if (x.kind === "masked") {
        if (kind === "continue") x.usedC = true;
        return `{ ${this.cx.leave(kind === "break" ? x.B : x.C)}; break ${this.cx.segExitLabel()}; }`;
      }
      throw new Error("CudaScript simulator: internal error (per-thread exit from a uniform loop)");
    }
    throw new Error(`CudaScript simulator: '${kind}' outside a loop`);
  }

  watchdog(loop: NLoop): string {
    // A counted loop with a small constant trip count cannot be the one that never ends (an enclosing
    // loop keeps its own check): no per-iteration counter in the hot inner loops of tiled kernels.
    if (!(this.cx.san || this.cx.me.opts.watchdog) || smallCountedLoop(loop)) return "";
    const site = this.cx.site("loop", loop.span);
    return `if (--$wd < 0) $wd = rt.watchdog($sites[${site}]);`;
  }

  /** A loop without synchronisation: a plain JavaScript loop. */
  jsLoop(s: NLoop, out: string[]): void {
    this.tstmts(s.init, out);
    const label = this.cx.label("L");
    const upd: string[] = [];
    // Update statements as a comma expression when possible, so `continue` can be a real continue.
    const updExprOk = s.update.every((u) => u.k === "assign" && u.target.k === "var");
    let contLabel: string | undefined;
    if (s.update.length && !updExprOk) contLabel = this.cx.label("C");
    this.cx.exits.push({ kind: "js", label, contLabel });
    const body: string[] = [];
    this.tstmts(s.body, body);
    this.cx.exits.pop();
    // Update runs outside the loop's own exits (a break there is not allowed by the language).
    this.tstmts(s.update, upd);
    const wd = this.watchdog(s);
    // Profiling: a counted loop's tests are counted once per entry (emit/profile.ts), others at each test.
    const counted = profileCountedLoop(this.cx, s);
    if (counted) out.push(counted);
    const cond = (c: NonNullable<NLoop["cond"]>) => {
      const js = this.cx.undef.cond(c, s.span, "loop condition");
      return counted ? js : profileBranch(this.cx, js, c.span, "loop");
    };
    if (s.testFirst) {
      if (updExprOk && s.update.length) {
        const updExpr = upd.map((l) => l.replace(/;$/, "")).join(", ");
        out.push(`${label}: for (; ${s.cond ? cond(s.cond) : ""}; ${updExpr}) {`);
        if (wd) out.push(wd);
        out.push(...body, "}");
      } else {
        out.push(`${label}: for (;;) {`);
        if (s.cond) out.push(`if (!${cond(s.cond)}) break;`);
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
      out.push(`} while (${s.cond ? cond(s.cond) : "true"});`);
    }
  }
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
