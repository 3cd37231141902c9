/**
 * Block-uniformity analysis for the simulator's loop-fission code generator.
 *
 * A kernel that synchronises runs as a sequence of block-level steps: "every thread runs this piece",
 * barriers, warp operations, and block-level control flow. Control flow that contains a
 * synchronisation is emitted at block level:
 *
 * - an `if` / loop whose condition is *block-uniform* (the same for every thread of the block) becomes
 *   an ordinary JavaScript `if` / loop around the per-thread pieces (fast);
 * - otherwise it is *masked*: each thread carries a state code (`$st[t]`, 0 = running) and the pieces
 *   skip threads that are parked (took the other branch, left the loop, returned). This is what a GPU
 *   does with its active mask, and it is where divergent barriers are detected.
 *
 * A variable is block-uniform when every assignment to it has a uniform value and happens at block
 * level, with only uniform control flow between its declaration and the assignment. Those variables
 * live once per block (a plain JavaScript local) instead of once per thread.
 */
import type * as IR from "../ir/nodes";
import { BLOCK_UNIFORM_INTRINSICS, LANE_DEPENDENT_INTRINSICS, SYNC_INTRINSICS } from "../intrinsics";
import { stmtHasSync, type NIf, type NLoop, type NStmt } from "./normalize";

export interface Uniformity {
  readonly uniformVars: ReadonlySet<IR.Var>;
  /** `if`s emitted at block level (they synchronise, or hold a block-level loop exit). */
  readonly blockIfs: ReadonlySet<NIf>;
  /** Block-level `if`s whose condition is uniform (plain JS if); the others are masked. */
  readonly uniformIfs: ReadonlySet<NIf>;
  /** Synchronising loops with uniform trip counts (plain JS loops); the others are masked. */
  readonly uniformLoops: ReadonlySet<NLoop>;
  /** break/continue statements executed at block level (they leave a uniform loop). */
  readonly blockExits: ReadonlySet<NStmt>;
}

const NO_SYNC: ReadonlySet<string> = new Set();

interface Frame {
  readonly node: NStmt;
  readonly part: "then" | "else" | "init" | "body" | "update" | "block";
}

export function analyzeUniformity(body: readonly NStmt[], params: readonly IR.Var[]): Uniformity {
  const syncMemo = new Map<NStmt, boolean>();
  const hasSync = (s: NStmt): boolean => {
    let r = syncMemo.get(s);
    if (r === undefined) {
      r = stmtHasSync(s, NO_SYNC);
      syncMemo.set(s, r);
    }
    return r;
  };

  const candidates = new Set<IR.Var>();
  for (const p of params) if (p.type.kind === "scalar") candidates.add(p);
  collectScalarVars(body, candidates);
  const uniform = new Set(candidates);

  let blockIfs = new Set<NIf>();
  let uniformIfs = new Set<NIf>();
  let uniformLoops = new Set<NLoop>();
  let blockExits = new Set<NStmt>();

  for (let round = 0; round < 64; round++) {
    const isUniform = (e: IR.Expr): boolean => uniformExpr(e, uniform);

    // 1. Loops: uniform when the condition is uniform and every exit reaches the loop through
    //    uniform ifs only.
    uniformLoops = new Set();
    blockExits = new Set();
    blockIfs = new Set();
    uniformIfs = new Set();
    const exitsOk = new Map<NLoop, boolean>();
    const exitPaths: { exit: NStmt; path: NIf[]; loop: NLoop }[] = [];
    const findExits = (stmts: readonly NStmt[], loop: NLoop | undefined, path: NIf[], pathOk: boolean) => {
      for (const s of stmts) {
        switch (s.k) {
          case "break":
          case "continue":
            if (loop) {
              if (!pathOk) exitsOk.set(loop, false);
              else exitPaths.push({ exit: s, path: [...path], loop });
            }
            break;
          case "if": {
            const ok = pathOk && isUniform(s.cond);
            path.push(s);
            findExits(s.then, loop, path, ok);
            if (s.else) findExits(s.else, loop, path, ok);
            path.pop();
            break;
          }
          case "block":
            findExits(s.body, loop, path, pathOk);
            break;
          case "fnScope":
            findExits(s.body, undefined, [], true);
            break;
          case "loop":
            findExits(s.init, loop, path, pathOk);
            findExits(s.body, s, [], true);
            findExits(s.update, s, [], true);
            break;
          default:
            break;
        }
      }
    };
    findExits(body, undefined, [], true);
    const walkLoops = (stmts: readonly NStmt[]) => {
      for (const s of stmts) {
        if (s.k === "loop") {
          if (hasSync(s) && (!s.cond || isUniform(s.cond)) && exitsOk.get(s) !== false) uniformLoops.add(s);
          walkLoops(s.init);
          walkLoops(s.body);
          walkLoops(s.update);
        } else if (s.k === "if") {
          walkLoops(s.then);
          if (s.else) walkLoops(s.else);
        } else if (s.k === "block" || s.k === "fnScope") walkLoops(s.body);
      }
    };
    walkLoops(body);
    for (const { exit, path, loop } of exitPaths) {
      if (!uniformLoops.has(loop)) continue;
      blockExits.add(exit);
      for (const i of path) blockIfs.add(i);
    }

    // 2. Ifs that synchronise are block-level too.
    const walkIfs = (stmts: readonly NStmt[]) => {
      for (const s of stmts) {
        if (s.k === "if") {
          if (hasSync(s)) blockIfs.add(s);
          if (blockIfs.has(s) && isUniform(s.cond)) uniformIfs.add(s);
          walkIfs(s.then);
          if (s.else) walkIfs(s.else);
        } else if (s.k === "loop") {
          walkIfs(s.init);
          walkIfs(s.body);
          walkIfs(s.update);
        } else if (s.k === "block" || s.k === "fnScope") walkIfs(s.body);
      }
    };
    walkIfs(body);

    // 3. Variables: every definition must be uniform, at block level, with only uniform control
    //    between the declaration and the definition.
    const declStack = new Map<IR.Var, Frame[]>();
    for (const p of params) declStack.set(p, []);
    const failing = new Set<IR.Var>();
    const isBlockLevelFrame = (f: Frame): boolean => {
      const n = f.node;
      if (n.k === "if") return blockIfs.has(n);
      if (n.k === "loop") return hasSync(n);
      if (n.k === "block") return hasSync(n);
      return n.k === "fnScope";
    };
    const isUniformFrame = (f: Frame): boolean => {
      const n = f.node;
      if (n.k === "if") return uniformIfs.has(n);
      if (n.k === "loop") return uniformLoops.has(n);
      if (n.k === "block") return true;
      return false;
    };
    const checkDef = (v: IR.Var, valueUniform: boolean, stack: Frame[]) => {
      if (!uniform.has(v)) return;
      if (!valueUniform) return void failing.add(v);
      if (!stack.every(isBlockLevelFrame)) return void failing.add(v);
      const decl = declStack.get(v);
      if (!decl) return void failing.add(v);
      // Frames strictly inside the declaration's scope.
      let common = 0;
      while (common < decl.length && common < stack.length && decl[common]!.node === stack[common]!.node) common++;
      for (let i = common; i < stack.length; i++) if (!isUniformFrame(stack[i]!)) return void failing.add(v);
      // Declared in a masked loop's init, assigned in its body: a thread that `continue`d skips it.
      if (common > 0 && common === decl.length && common <= stack.length) {
        const df = decl[common - 1]!, sf = stack[common - 1]!;
        if (df.node.k === "loop" && !uniformLoops.has(df.node) && df.part === "init" && sf.part === "body") failing.add(v);
      }
    };
    const walkDefs = (stmts: readonly NStmt[], stack: Frame[]) => {
      for (const s of stmts) {
        switch (s.k) {
          case "decl":
            declStack.set(s.v, [...stack]);
            if (s.v.type.kind === "scalar") checkDef(s.v, !s.init || isUniform(s.init), stack);
            break;
          case "arrayDecl":
          case "constArrayDecl":
            declStack.set(s.v, [...stack]);
            break;
          case "sync":
            if (s.result) {
              if (!declStack.has(s.result)) declStack.set(s.result, [...stack]);
              checkDef(s.result, BLOCK_UNIFORM_INTRINSICS.has(s.name), stack);
            }
            break;
          case "assign":
            if (s.target.k === "var") checkDef(s.target.v, isUniform(s.value), stack);
            break;
          case "if":
            walkDefs(s.then, [...stack, { node: s, part: "then" }]);
            if (s.else) walkDefs(s.else, [...stack, { node: s, part: "else" }]);
            break;
          case "loop":
            walkDefs(s.init, [...stack, { node: s, part: "init" }]);
            walkDefs(s.body, [...stack, { node: s, part: "body" }]);
            walkDefs(s.update, [...stack, { node: s, part: "update" }]);
            break;
          case "block":
            walkDefs(s.body, [...stack, { node: s, part: "block" }]);
            break;
          case "fnScope":
            walkDefs(s.body, [...stack, { node: s, part: "block" }]);
            break;
          default:
            break;
        }
      }
    };
    walkDefs(body, []);
    if (failing.size === 0) break;
    for (const v of failing) uniform.delete(v);
  }
  return { uniformVars: uniform, blockIfs, uniformIfs, uniformLoops, blockExits };
}

function collectScalarVars(stmts: readonly NStmt[], out: Set<IR.Var>): void {
  for (const s of stmts) {
    switch (s.k) {
      case "decl":
        if (s.v.type.kind === "scalar") out.add(s.v);
        break;
      case "sync":
        if (s.result) out.add(s.result);
        break;
      case "if":
        collectScalarVars(s.then, out);
        if (s.else) collectScalarVars(s.else, out);
        break;
      case "loop":
        collectScalarVars(s.init, out);
        collectScalarVars(s.body, out);
        collectScalarVars(s.update, out);
        break;
      case "block":
      case "fnScope":
        collectScalarVars(s.body, out);
        break;
      default:
        break;
    }
  }
}

export function uniformExpr(e: IR.Expr, uniform: ReadonlySet<IR.Var>): boolean {
  switch (e.k) {
    case "const":
    case "shape":
      return true;
    case "var":
      return e.type.kind === "scalar" && uniform.has(e.v);
    case "special":
      return e.reg === "blockIdx" || e.reg === "blockDim" || e.reg === "gridDim" || e.reg === "warpsize" || e.reg === "gridsize";
    case "unary":
      return uniformExpr(e.operand, uniform);
    case "binary":
    case "compare":
    case "logical":
      return uniformExpr(e.left, uniform) && uniformExpr(e.right, uniform);
    case "select":
      return uniformExpr(e.cond, uniform) && uniformExpr(e.then, uniform) && uniformExpr(e.else, uniform);
    case "convert":
    case "truthy":
      return uniformExpr(e.value, uniform);
    case "intrinsic":
      // Synchronising operations and the lane mask give each thread its own value.
      return !SYNC_INTRINSICS.has(e.name) && !LANE_DEPENDENT_INTRINSICS.has(e.name) && e.args.every((a) => uniformExpr(a, uniform));
    case "index":
    case "call":
    case "atomic":
    case "random": // each draw advances a generator state: never the same value twice
      return false;
  }
}
