/**
 * Loop fission of a kernel that synchronises: its normalised body becomes block-level items — per-thread
 * pieces between synchronisation points, the synchronisations, and block-level control flow connecting
 * them (uniform ifs and loops as plain JavaScript, divergent ones masked by a per-thread status code).
 * Which variables live across pieces (one value per thread) follows from the pieces; pieces.ts prints
 * runs of pieces as thread loops, sync.ts the synchronisations.
 */
import { BulkPlanner, mayLeave } from "./profile-bulk";
import { profileBlockStart, profileBranch, profileKernelEnd, profileKernelSetup, profileUniformBranch } from "./profile";
import type * as IR from "../../ir/nodes";
import { visitExpr } from "../../ir/visit";
import type { ScalarType } from "../../ir/types";
import { forEachNStmt, type FnScopeStmt, type NIf, type NLoop, type NStmt } from "../normalize";
import { analyzeUniformity, uniformExpr, type Uniformity } from "../uniform";
import { pruneRematerialized, rematerializable } from "../remat";
import { cooperativeKernel } from "../cooperative";
import type { SimKernelInfo } from "../artifact-types";
import { forEachArrayDecl, slotsPerElement, storageArrayName, storeArrayName } from "./arrays";
import { SAN_BEGIN, type EmitContext, type Exit, type Item, type RawItem, type Seg } from "./context";
import { zeroJs } from "./values";
import { BARRIER_INTRINSICS } from "../../intrinsics";
import { DEFAULT_RECURSION_DEPTH } from "../../ir/recursion";

/** The fission form of a kernel. */
export class FissionEmitter {
  /** Status codes for masked constructs (0: running, 1: returned). */
  private codeCounter = 2;
  /** How many masked constructs enclose the code being emitted. */
  private maskedDepth = 0;
  private uni: Uniformity | undefined;
  private bulk: BulkPlanner | undefined;
  /** Local arrays used in more than one piece: one copy per thread. */
  private readonly perThreadArrays = new Set<IR.Var>();
  /** The active-thread counters of the masked loops (`$act0`, …). */
  private readonly counters: string[] = [];
  /** Whether a statement contains a synchronisation (asked again for every enclosing level). */
  private readonly syncCache = new Map<NStmt, boolean>();

  constructor(private readonly cx: EmitContext) {}

  newSeg(): Seg {
    return { k: "seg", label: this.cx.label("r"), pre: [], body: [], prologue: [], reads: new Set(), writes: new Set(), arrays: new Set() };
  }

  /** Runs `f` with a fresh piece collecting its code; returns the piece. */
  private inSeg(f: (out: string[]) => void, pre?: string): Seg {
    const seg = this.newSeg();
    if (pre) seg.pre.push(pre);
    const saved = this.cx.seg;
    this.cx.seg = seg;
    try {
      f(seg.body);
    } finally {
      this.cx.seg = saved;
    }
    return seg;
  }

  /** More code for `seg` (noting what it reads and writes there), returned rather than added to its body. */
  private inSegBody(seg: Seg, f: (out: string[]) => void): string[] {
    const out: string[] = [];
    const saved = this.cx.seg;
    this.cx.seg = seg;
    try {
      f(out);
    } finally {
      this.cx.seg = saved;
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
      const r = this.cx.remat.get(e.v);
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
    // Profiling counts a condition where it is evaluated, which the bound's own (computed once per piece) is not.
    if (this.cx.me.profile && containsCondition(u)) return undefined;
    const saved = this.cx.seg;
    this.cx.seg = undefined;
    const U = this.cx.emit.ex(u);
    this.cx.seg = saved;
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

  private syncMemo(s: NStmt): boolean {
    let r = this.syncCache.get(s);
    if (r === undefined) {
      r = containsSync(s);
      this.syncCache.set(s, r);
    }
    return r;
  }

  /** The condition of each range piece (`seg.range`): profiling counts it per block (emit/profile.ts). */
  readonly rangeConds = new WeakMap<Seg, IR.Expr>();

  /** Block-level items for a statement list. */
  private items(list: readonly NStmt[]): Item[] {
    const out: Item[] = [];
    let pending: NStmt[] = [];
    const flush = () => {
      if (!pending.length) return;
      const stmts = pending;
      pending = [];
      // Profiling: the piece's bulk sites, planned before its code is emitted (profile-bulk.ts).
      const bulk = this.bulk?.plan(stmts);
      const seg = this.inSeg((o) => this.cx.statements.tstmts(stmts, o));
      if (bulk?.length) seg.bulk = bulk;
      const only = stmts.length === 1 ? stmts[0]! : undefined;
      if (only && only.k === "if" && (!only.else || only.else.length === 0)) {
        seg.range = this.threadRange(only.cond);
        // Profiling: the test's site, counted in bulk where the range loop is kept (pieces.ts).
        if (seg.range) this.rangeConds.set(seg, only.cond);
        // The test is exactly "lo <= tx < hi" for an integer tx, so a loop over that range needs it not.
        if (seg.range) seg.rangeBody = this.inSegBody(seg, (o) => this.cx.statements.tstmts(only.then, o));
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
        this.cx.scalars.add(s.v);
        return [this.raw(this.cx.undef.assign(s.v, s.init ? this.cx.emit.ex(s.init) : zeroJs(s.v.type), s.init))];
      }
      case "assign": {
        const t = s.target as IR.VarExpr;
        return [this.raw(this.cx.undef.assign(t.v, this.cx.emit.ex(s.value), s.value))];
      }
      case "block":
        return this.items(s.body);
      case "sync": {
        if (s.result) this.cx.scalars.add(s.result);
        const site = this.cx.site(BARRIER_INTRINSICS.has(s.name) || s.name === "gridSync" ? "barrier" : "warp", s.span, { op: s.name });
        return [{ k: "sync", s, site, masked: this.maskedDepth > 0 }];
      }
      case "break":
      case "continue": {
        for (let i = this.cx.exits.length - 1; i >= 0; i--) {
          const x = this.cx.exits[i]!;
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
        return [this.inSeg((o) => this.cx.emit.tstmt(s, o))];
    }
  }

  private uniformIf(s: NIf): Item[] {
    const cond = profileUniformBranch(this.cx, this.cx.undef.cond(s.cond, s.span), s.cond.span, "if");
    const parts: (string | Item[])[] = [`if (${cond}) {`, this.items(s.then)];
    if (s.else && s.else.length) parts.push("} else {", this.items(s.else));
    parts.push("}");
    return [{ k: "nest", parts }];
  }

  private maskedIf(s: NIf): Item[] {
    const PT = this.codeCounter++, PE = this.codeCounter++;
    const out: Item[] = [];
    out.push(this.inSeg((o) => o.push(`if (!${profileBranch(this.cx, this.cx.undef.cond(s.cond, s.span), s.cond.span, "if")}) ${this.cx.leave(PT)};`)));
    this.maskedDepth++;
    out.push(...this.items(s.then));
    this.maskedDepth--;
    if (s.else && s.else.length) {
      out.push(this.preSeg(`{ const $s = $st[$t]; if ($s === ${PT}) $st[$t] = 0; else if ($s === 0) ${this.cx.leave(PE)}; }`));
      this.maskedDepth++;
      out.push(...this.items(s.else));
      this.maskedDepth--;
      out.push(this.preSeg(`if ($st[$t] === ${PE}) $st[$t] = 0;`));
    } else out.push(this.preSeg(`if ($st[$t] === ${PT}) $st[$t] = 0;`));
    return out;
  }

  private uniformLoop(s: NLoop): Item[] {
    const out: Item[] = [...this.items(s.init)];
    const label = this.cx.label("L"), contLabel = this.cx.label("C");
    const x: Exit = { kind: "uniform", label, contLabel, usedC: false };
    const inner: Item[] = [];
    const ucond = (c: IR.Expr) => profileUniformBranch(this.cx, this.cx.undef.cond(c, s.span, "loop condition"), c.span, "loop");
    if (s.testFirst && s.cond) inner.push(this.raw(`if (!${ucond(s.cond)}) break;`));
    const wd = this.cx.statements.watchdog(s);
    if (wd) inner.push(this.raw(wd));
    this.cx.exits.push(x);
    const body = this.items(s.body);
    this.cx.exits.pop();
    if (x.usedC) inner.push({ k: "nest", parts: [`${contLabel}: {`, body, "}"] });
    else inner.push(...body);
    inner.push(...this.items(s.update));
    if (!s.testFirst && s.cond) inner.push(this.raw(`if (!${ucond(s.cond)}) break;`));
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
        if (withCond && s.cond) o.push(`if (!${profileBranch(this.cx, this.cx.undef.cond(s.cond, s.span, "loop condition"), s.cond.span, "loop")}) { ${this.cx.leave(B)}; } else ${act}++;`);
        else o.push(`${act}++;`);
      });
      seg.prologue.push(`${act} = 0;`);
      return seg;
    };
    out.push(count(s.testFirst));
    const label = this.cx.label("L");
    const inner: Item[] = [this.raw(`if (${act} === 0) break;`)];
    const wd = this.cx.statements.watchdog(s);
    if (wd) inner.push(this.raw(wd));
    const x: Exit = { kind: "masked", B, C, usedC: false };
    this.cx.exits.push(x);
    this.maskedDepth++;
    inner.push(...this.items(s.body));
    this.cx.exits.pop();
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
    this.cx.fnScopes.push({ id: s.id, R });
    const savedExits = this.cx.exits;
    this.cx.exits = [];
    this.maskedDepth++;
    const body = this.items(s.body);
    this.maskedDepth--;
    this.cx.exits = savedExits;
    this.cx.fnScopes.pop();
    return [...body, this.preSeg(`if ($st[$t] === ${R}) $st[$t] = 0;`)];
  }

  emitFission(jsName: string, body: readonly NStmt[], arrayKeys: ReadonlyMap<IR.Var, string>, info: SimKernelInfo): string {
    this.cx.mode = "fission";
    this.uni = analyzeUniformity(body, this.cx.fn.params);
    this.cx.remat = rematerializable(body, this.uni.uniformVars);
    // Bulk counting needs every thread of the block to run every piece: no thread statuses.
    const ps = this.cx.me.profile;
    this.bulk = ps?.bulk && !this.cx.san && !this.cx.cooperative && !threadsMayLeave(body, this.uni) ? new BulkPlanner(this.cx, ps, body, this.uni) : undefined;
    const setup = this.cx.frame.kernelSetup();
    setup.push(...this.cx.frame.sanSetup(info));
    const perBlock: string[] = [];
    forEachArrayDecl(body, (s) => this.cx.decls.declareBodyArray(s, arrayKeys, setup, perBlock));
    this.cx.decls.deviceShared(setup, perBlock);
    const items = this.items(body);
    const { varUnits, arrUnits, syncVars } = pieceUnits(items);
    // Synchronisations read their operands per thread from storage: no rematerialising those.
    pruneRematerialized(this.cx.remat, syncVars);
    const uniform = this.uni.uniformVars;
    for (const [v, us] of varUnits) {
      if (uniform.has(v) || this.cx.remat.has(v)) continue;
      if (us.size > 1 || v.isParam) this.cx.perThread.add(v);
    }
    // Local arrays used in more than one piece: one copy per thread.
    for (const [v, us] of arrUnits) if (us.size > 1) this.perThreadArrays.add(v);
    for (const v of this.perThreadArrays) {
      const a = this.cx.arrays.get(v)!;
      const size = a.dims.reduce((x, y) => x * Number(y), 1);
      a.perThread = `$LA_${a.data}`;
      setup.push(`const ${a.perThread} = rt.perThread(${storageArrayName(a.dtype)}, ${size * slotsPerElement(a.dtype)}, $nT);`);
    }
    // Local arrays used by one piece only were registered as plain lets; re-point the others.
    for (const [v, a] of this.cx.arrays) if (a.perThread === "?" && !this.perThreadArrays.has(v)) a.perThread = undefined;

    for (const v of this.cx.perThread) {
      const t = (v.type as ScalarType).dtype;
      setup.push(`const ${this.cx.storage(v)} = new ${storeArrayName(t)}($nT);`);
    }
    const paramInit = [...this.cx.perThread].filter((v) => v.isParam).map((p) => `${this.cx.storage(p)}.fill(${p.type.kind === "scalar" && p.type.dtype === "bool" ? `${this.cx.vn(p)}$in ? 1 : 0` : `${this.cx.vn(p)}$in`});`);

    const code = this.cx.pieces.emitItems(items);
    if (this.bulk && this.cx.threadsLeave) throw new Error("CudaScript simulator: internal error (bulk profile counting in a kernel whose threads leave their pieces)");
    // The threads' status array (returned, waiting out a branch…), when anything reads or sets it.
    const usesStatus = this.cx.cooperative || [...code, ...perBlock].some((l) => /\$st\b/.test(l));
    const catchLine = `catch ($e) { throw rt.threadError($e, ${JSON.stringify(info.name)}, $bx, $by, $bz, $t < $nT ? $tx : -1, $t < $nT ? $ty : -1, $t < $nT ? $tz : -1); }`;
    // The kernel's setup before its blocks run: storage, parameters, the per-thread state and thread ids.
    const kernelSetup = [
      ...this.cx.frame.declLines(setup),
      ...this.cx.memory.privLines,
      this.cx.frame.paramLets(),
      usesStatus ? "const $st = new Int32Array($nT);" : "",
      this.counters.length ? `let ${this.counters.map((c) => `${c} = 0`).join(", ")};` : "",
      "let $bx = 0, $by = 0, $bz = 0, $tx = 0, $ty = 0, $tz = 0, $t = 0;",
      ...profileKernelSetup(this.cx),
    ];
    if (this.cx.cooperative)
      return cooperativeKernel(jsName, {
        setup: kernelSetup,
        blockStart: [...this.cx.frame.blockHeader(), "$st.fill(0);", ...perBlock, ...paramInit, this.cx.san ? SAN_BEGIN : ""],
        code,
        catchLine,
        shared: this.cx.sync.sharedVars(),
        sanitize: this.cx.san,
        kernelName: info.name,
      });
    const lines = [
      `function ${jsName}(L, $b0, $b1) {`,
      `$depth = 0; $depthLimit = ${this.cx.fn.options.recursionDepth ?? DEFAULT_RECURSION_DEPTH};`,
      ...kernelSetup,
      "try {",
      "for (let $b = $b0; $b < $b1; $b++) {",
      ...this.cx.frame.blockHeader(),
      usesStatus ? "$st.fill(0);" : "",
      ...perBlock,
      ...paramInit,
      profileBlockStart(this.cx),
      this.cx.san ? SAN_BEGIN : "",
      ...code,
      "}",
      `} ${catchLine}${profileKernelEnd(this.cx)}`,
      "}",
    ];
    return lines.filter((l) => l !== "").join("\n");
  }
}

/**
 * Numbers the runs of pieces and the synchronisations (units) in order, and notes in which units each
 * variable and array is used, and which variables synchronisations read or set.
 */
function pieceUnits(items: Item[]): { varUnits: Map<IR.Var, Set<number>>; arrUnits: Map<IR.Var, Set<number>>; syncVars: Set<IR.Var> } {
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
  return { varUnits, arrUnits, syncVars };
}

/** Whether a thread may stop running the pieces (a status: a return, a masked branch or loop). */
function threadsMayLeave(body: readonly NStmt[], uni: Uniformity): boolean {
  if (mayLeave(body)) return true;
  for (const s of uni.blockIfs) if (!uni.uniformIfs.has(s)) return true;
  let masked = false;
  forEachNStmt(body, (s) => void (s.k === "loop" && containsSync(s) && !uni.uniformLoops.has(s) && (masked = true)));
  return masked;
}

function containsCondition(e: IR.Expr): boolean {
  let found = false;
  visitExpr(e, (x) => {
    if (x.k === "select" || x.k === "logical") found = true;
  });
  return found;
}

function containsIndexOrCall(e: IR.Expr): boolean {
  let found = false;
  visitExpr(e, (x) => {
    if (x.k === "index" || x.k === "call" || x.k === "atomic" || x.k === "random") found = true;
  });
  return found;
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
