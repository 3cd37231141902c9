/**
 * Cooperative groups' grid synchronisation (Numba's `g = cuda.cg.this_grid(); g.sync()`), camelCased:
 *
 *   const g = cuda.cg.thisGrid();
 *   …
 *   g.sync();            // or cuda.cg.thisGrid().sync()
 *
 * A grid group is not a value in the IR: the name binds to nothing but the promise that `g.sync()`
 * lowers to the `gridSync` intrinsic, a barrier of every thread of the grid. Anything else done with it
 * (storing, passing, comparing, other members, a device function) is CS1024 with what to write: every
 * backend implements the barrier in the kernel's own body (the simulator yields there, the CUDA C++
 * waits on the launch's hidden workspace), so the call must be in the kernel itself.
 * docs/kernel-language.md#grid-synchronisation.
 */
import ts from "typescript";
import { Codes } from "../diagnostics/codes";
import type * as IR from "../ir/nodes";
import { VOID } from "../ir/types";
import { stripParensAndNonNull } from "./constants";
import type { LoweringContext } from "./lower-context";

const BIND_ADVICE = "write const g = cuda.cg.thisGrid(); at the top of the kernel and call g.sync() where every thread of the grid must wait";
const MEMBER_ADVICE = "a grid group only has sync(): for this thread's index in the grid write cuda.grid(1), for the number of threads cuda.gridsize(1)";

export class GridGroupLowerer {
  constructor(private readonly ctx: LoweringContext) {}

  /** `cuda.cg.thisGrid()` (the call itself). */
  isThisGridCall(e: ts.Expression): e is ts.CallExpression {
    const x = stripParensAndNonNull(e);
    if (!ts.isCallExpression(x)) return false;
    const path = this.ctx.expr.cudaPath(x.expression);
    return !!path && path.length === 2 && path[0] === "cg" && path[1] === "thisGrid";
  }

  /** A device function cannot synchronise the grid: reported once per use, true when it is the kernel. */
  private inKernel(node: ts.Node): boolean {
    if (this.ctx.decl.kind === "kernel") return true;
    this.ctx.report(
      Codes.GridGroupMisuse,
      node,
      `grid synchronisation must be in the kernel's own body, not in the device function '${this.ctx.decl.name}': return to the kernel and call g.sync() there (${BIND_ADVICE})`,
    );
    return false;
  }

  /** `const g = cuda.cg.thisGrid()`: binds `g` for `g.sync()`; emits nothing. */
  declareGridGroup(d: ts.VariableDeclaration, name: string, isConst: boolean, init: ts.CallExpression): IR.Stmt[] {
    if (init.arguments.length) this.ctx.report(Codes.WrongArgumentCount, init, "cuda.cg.thisGrid() takes no arguments");
    if (!this.inKernel(init)) {
      this.ctx.bind(name, { k: "poison" });
      return [];
    }
    if (!isConst) this.ctx.report(Codes.GridGroupMisuse, d, `a grid group cannot be reassigned: write const ${name} = cuda.cg.thisGrid()`);
    else if (d.type) this.ctx.report(Codes.GridGroupMisuse, d.type, `a grid group has no type to annotate: write const ${name} = cuda.cg.thisGrid()`);
    this.ctx.bind(name, { k: "gridGroup", node: d });
    return [];
  }

  /** `g.sync()` and `cuda.cg.thisGrid().sync()`; undefined for every other call (the call lowerer's). */
  lowerMethodCall(call: ts.CallExpression): IR.Expr | undefined {
    const callee = stripParensAndNonNull(call.expression);
    if (ts.isPropertyAccessExpression(callee)) {
      const obj = stripParensAndNonNull(callee.expression);
      const named = ts.isIdentifier(obj) && this.ctx.lookup(obj.text)?.k === "gridGroup";
      if (named || this.isThisGridCall(obj)) return this.lowerGridGroupMethod(callee, call);
    }
    return undefined;
  }

  private lowerGridGroupMethod(callee: ts.PropertyAccessExpression, call: ts.CallExpression): IR.Expr {
    const method = callee.name.text;
    if (method !== "sync") {
      this.ctx.report(Codes.GridGroupMisuse, callee.name, `'${method}' is not available on a grid group: ${MEMBER_ADVICE}`);
      for (const a of call.arguments) this.ctx.expr.lowerExpr(a);
      return this.ctx.error(call);
    }
    if (call.arguments.length) this.ctx.report(Codes.WrongArgumentCount, call, "g.sync() takes no arguments");
    if (!this.inKernel(call)) return this.ctx.error(call);
    return { k: "intrinsic", type: VOID, name: "gridSync", args: [], span: this.ctx.span(call) };
  }

  /**
   * `cuda.cg.thisGrid()` anywhere but a `const` initialiser or the object of `.sync()`; undefined for
   * every other `cuda.*` call (the call lowerer's).
   */
  thisGridAsValue(path: string[], call: ts.CallExpression): IR.Expr | undefined {
    if (path.length === 2 && path[0] === "cg" && path[1] === "thisGrid") {
      this.ctx.report(Codes.GridGroupMisuse, call, `a grid group is not a value: ${BIND_ADVICE}`);
      return this.ctx.error(call);
    }
    return undefined;
  }

  gridGroupAsValue(id: ts.Identifier): IR.Expr {
    this.ctx.report(
      Codes.GridGroupMisuse,
      id,
      `'${id.text}' is a grid group: its only use is ${id.text}.sync(); it cannot be stored, passed to a function, compared or computed with (${MEMBER_ADVICE})`,
    );
    return this.ctx.error(id);
  }
}
