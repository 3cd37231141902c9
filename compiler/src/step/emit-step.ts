/**
 * IR → stepping JavaScript: the debugger's backend (docs/debugging.md, "How the stepping backend works").
 *
 * The fast simulator (js/emit.ts) runs a block as loop nests over its threads, with loop fission at
 * barriers; no thread can stop in the middle. Here every CUDA thread of the debugged block is a
 * JavaScript generator, so any thread can be paused at any statement and resumed later:
 *
 * - Every function (kernel or device function) is emitted by the fast simulator's own FnEmitter in its
 *   "device" mode — the same expressions, bounds checks, i64/f16/complex/atomic/random helpers and
 *   `rt` — with the hooks of StepFnEmitter: `function*` instead of `function`, a debugger frame on
 *   entry, and at each statement `if ($S.on[line] !== 0 && $S.stop(site)) yield site;`. The locals stay plain `let`s; the
 *   check is one typed-array load, so breakpoints set but never hit cost little. The scheduler points
 *   `$S.on` at the breakpoint lines, or at every line for the thread being stepped; at a flagged line
 *   `$S.stop(site)` decides (conditions, steps) without leaving the generator, which yields only to stop.
 * - Device-function calls are `yield*` delegations, so a thread can stop inside a callee (step into)
 *   and its frames form a call stack. A device function without synchronisation also has its fast
 *   simulator form (`…$p`), which a call runs unless `$S.deep` (the thread is being stepped, or a
 *   breakpoint is in a device function): hot loops calling small device functions stay fast.
 * - Barriers and warp operations, wherever they are (expressions, device functions, loops), are
 *   `(yield $S.req(op, site, …args))`: the thread hands its operands to the block scheduler
 *   (runtime/src/debugger/block-scheduler.ts) and is resumed with the result once the block or warp
 *   got there, combined by the fast simulator's rules. No normalisation or inlining is needed.
 *
 * The module is instantiated with `new Function("rt", "$S", source)`: `rt` is the fast simulator's
 * runtime object (runtime/src/simulator/rt.ts), `$S` the scheduler's hooks:
 *   $S.on                         a Uint8Array over line ids: which lines yield
 *   $S.deep                       true when the running thread may stop inside a device function
 *   $S.enter(fn, io)              pushes a frame for function `fn` on the running thread, returns it;
 *                                 `io(-2)` lists the function's variables (`io(-1)` its scalars only),
 *                                 `io(i, x)` assigns one
 *   $S.leave(x)                   pops the frame, returns x (`return $S.leave(value)`)
 *   $S.stop(site)                 whether the running thread stops at this statement (it then yields it)
 *   $S.req(op, site, …args)       stores the running thread's synchronisation request
 * and returns { abi, sites, setup(L), block(b), kernels: { [name]: { thread, argv } } }: setup binds
 * a launch (grid, block, dynamic shared memory; allocates shared arrays), block(b) selects the block
 * (its index registers, zeroed shared memory), `argv(L)` is the kernel's arguments in device-function
 * form and `thread(argv, tx, ty, tz, t)` one thread's generator.
 */
import type * as IR from "../ir/nodes";
import { isComplex, type ArrayType } from "../ir/types";
import { FnEmitter, ModuleEmitter, safeName, slotsPerElement, storageArrayName, stridesOf, zeroOf, SIM_ABI } from "../js/emit";
import { type NStmt } from "../js/normalize";
import { visitExpr } from "../ir/visit";
import { BARRIER_INTRINSICS, SYNC_INTRINSICS } from "../intrinsics";

/** A variable the debugger shows: a parameter or a local of one function. */
export interface StepVar {
  readonly name: string;
  readonly kind: "scalar" | "array";
  readonly dtype: string;
  readonly isParam: boolean;
  /** Arrays: where the elements live. */
  readonly space?: "global" | "shared" | "local" | "const";
  /** An array of records (its elements are `size`-byte records of these fields): the debugger shows fields. */
  readonly record?: StepRecord;
}

/** A record type as the debugger decodes it from the array's bytes (docs/kernel-language.md#records). */
export interface StepRecord {
  readonly name: string;
  readonly size: number;
  readonly fields: readonly { readonly name: string; readonly dtype: string; readonly offset: number }[];
}

/** A function of the module as the debugger sees it: `vars` indexes what its frame's `get()` returns. */
export interface StepFunction {
  readonly name: string;
  readonly kind: "kernel" | "device";
  readonly file: string;
  readonly line: number;
  readonly vars: readonly StepVar[];
}

/** A statement where a thread can stop. */
export interface StepStatement {
  readonly fn: number;
  readonly file: string;
  readonly line: number;
  readonly col: number;
  /** The line id the statement checks (`$S.on[lineId]`). */
  readonly lineId: number;
  /** Indices into the function's vars that are in scope here. */
  readonly visible: readonly number[];
}

export interface StepModule {
  readonly source: string;
  readonly functions: readonly StepFunction[];
  readonly statements: readonly StepStatement[];
  /** Line id → source line; a breakpoint on a line with no statement has no id. */
  readonly lines: readonly { readonly file: string; readonly line: number }[];
  /** Kernel name → its index in `functions`. */
  readonly kernels: Readonly<Record<string, number>>;
}

/** State shared by the functions of one module: the statement, function and line tables. */
class StepTables {
  readonly functions: StepFunction[] = [];
  readonly statements: StepStatement[] = [];
  readonly lines: { file: string; line: number }[] = [];
  private readonly lineIds = new Map<string, number>();

  lineId(file: string, line: number): number {
    const key = `${file}\u0000${line}`;
    let id = this.lineIds.get(key);
    if (id === undefined) {
      id = this.lines.length;
      this.lines.push({ file, line });
      this.lineIds.set(key, id);
    }
    return id;
  }
}

/**
 * What is in scope at each statement of a function (params, then locals in declaration order), and the
 * loop updates (no stops there). `vars` is the order of a frame's variables (StepFunction.vars); debug
 * expressions (debug-expression.ts) bind the same indices.
 */
export function scopes(fn: IR.IrFunction): { vars: IR.Var[]; visible: Map<IR.Stmt, number[]>; updates: Set<IR.Stmt> } {
  const vars: IR.Var[] = [...fn.params];
  const visible = new Map<IR.Stmt, number[]>();
  const updates = new Set<IR.Stmt>();
  const walk = (list: readonly IR.Stmt[], outer: readonly number[]): number[] => {
    const scope = [...outer];
    for (const s of list) {
      visible.set(s, [...scope]);
      switch (s.k) {
        case "decl":
        case "arrayDecl":
        case "constArrayDecl":
          scope.push(vars.length);
          vars.push(s.v);
          break;
        case "if":
          walk(s.then, scope);
          if (s.else) walk(s.else, scope);
          break;
        case "loop": {
          const inner = walk(s.init, scope);
          walk(s.body, inner);
          for (const u of s.update) updates.add(u);
          walk(s.update, inner);
          break;
        }
        case "block":
          walk(s.body, scope);
          break;
      }
    }
    return scope;
  };
  walk(fn.body, fn.params.map((_, i) => i));
  return { vars, visible, updates };
}

class StepFnEmitter extends FnEmitter {
  private readonly vars: IR.Var[];
  private readonly visible: Map<IR.Stmt, number[]>;
  private readonly updates: Set<IR.Stmt>;
  /** The statement site being emitted: a call records it in the caller's frame (the caller's line in a stack trace). */
  private site = -1;

  constructor(
    me: ModuleEmitter,
    fn: IR.IrFunction,
    private readonly tables: StepTables,
    private readonly index: number,
  ) {
    // "device" mode: a function of its own with (data, offset, extents) array parameters, block
    // registers and shared arrays in module variables — what a per-thread generator needs.
    super(me, fn, "device");
    ({ vars: this.vars, visible: this.visible, updates: this.updates } = scopes(fn));
  }

  /** The function's variables for the debugger (kinds and dtypes from the IR). */
  describe(): StepFunction {
    const vars = this.vars.map((v): StepVar => {
      if (v.type.kind === "array") {
        const r = v.type.record;
        const record = r ? { record: { name: r.name, size: r.layout.size, fields: r.layout.fields.map((f) => ({ name: f.name, dtype: f.dtype, offset: f.offset })) } } : {};
        return { name: v.name, kind: "array", dtype: v.type.dtype, isParam: v.isParam, space: v.isParam ? "global" : (this.arrays.get(v)?.space ?? v.type.space), ...record };
      }
      return { name: v.name, kind: "scalar", dtype: v.type.kind === "scalar" ? v.type.dtype : "i32", isParam: v.isParam };
    });
    return { name: this.fn.name, kind: this.fn.kind, file: this.fn.span.file, line: this.fn.span.line, vars };
  }

  protected override functionKeyword(): string {
    return "function*";
  }

  /** The frame: `get` reads every variable (undefined where the emitter has none), `set` assigns a scalar. */
  protected override prologue(): string[] {
    const scalars: string[] = [];
    const all: string[] = [];
    const writes: string[] = [];
    this.vars.forEach((v, i) => {
      if (v.type.kind === "array") {
        const a = this.arrays.get(v);
        all.push(a ? `{ data: ${a.data}, offset: ${a.offset ?? "0"}, shape: [${a.dims.join(", ")}], strides: [${stridesOf(a).join(", ")}] }` : "undefined");
        scalars.push("undefined");
      } else if (v.isParam || this.scalars.has(v)) {
        all.push(this.vn(v));
        scalars.push(this.vn(v));
        writes.push(`case ${i}: ${this.vn(v)} = $x; break;`);
      } else {
        all.push("undefined");
        scalars.push("undefined");
      }
    });
    // One closure per call (frames are made at every call): -1 reads the scalars (breakpoint
    // conditions, at every pass), -2 every variable, arrays as views (a stop); i >= 0 assigns variable i.
    return [`const $F = $S.enter(${this.index}, ($i, $x) => { switch ($i) { case -1: return [${scalars.join(", ")}]; case -2: return [${all.join(", ")}]; ${writes.join(" ")} } });`];
  }

  protected override epilogue(): string[] {
    return ["$S.leave();"];
  }

  protected override tstmt(s: NStmt, out: string[]): void {
    const stmt = s as IR.Stmt;
    const visible = this.visible.get(stmt);
    if (visible === undefined || this.updates.has(stmt)) {
      // Loop updates are emitted as a comma expression: no statement check inside them.
      super.tstmt(s, out);
      return;
    }
    const lineId = this.tables.lineId(s.span.file, s.span.line);
    const site = this.tables.statements.length;
    this.tables.statements.push({ fn: this.index, file: s.span.file, line: s.span.line, col: s.span.col, lineId, visible });
    const tick = this.tickBefore.get(stmt);
    if (tick !== undefined) out.push(`if (--$S.bud < 0 && $S.tick(${tick})) yield -2;`);
    out.push(`if ($S.on[${lineId}] !== 0 && $S.stop(${site})) yield ${site};`);
    if (stmt.k === "loop") {
      // A loop gives the scheduler a chance to end the time slice (pause, watchdog) at each pass: in its
      // condition, or before the first statement of its body when it has none.
      if (stmt.cond) this.tickIn.set(stmt.cond, site);
      else if (stmt.body[0]) this.tickBefore.set(stmt.body[0], site);
    }
    const outer = this.site;
    this.site = site;
    if (s.k === "return") out.push(s.value ? `return $S.leave(${this.ex(s.value)});` : "return $S.leave();");
    else super.tstmt(s, out);
    this.site = outer;
    // Data breakpoints: after a statement that writes memory, one flag load unless one is set.
    if (writesMemory(stmt)) out.push(`if ($S.dw !== 0 && $S.watch(${site})) yield ${site};`);
  }

  /** Loop conditions that end with a time-slice check ($S.bud counts passes down; $S.tick decides). */
  private readonly tickIn = new Map<IR.Expr, number>();
  private readonly tickBefore = new Map<IR.Stmt, number>();

  override ex(e: IR.Expr): string {
    const site = this.tickIn.get(e);
    const code = super.ex(e);
    return site === undefined ? code : `((--$S.bud < 0 && $S.tick(${site}) && (yield -2)), ${code})`;
  }

  /**
   * A call of a device function without synchronisation runs its fast-simulator form (`…$p`, no
   * frames or yields) unless the thread may stop inside it (`$S.deep`: it is being stepped, or a
   * breakpoint is in a device function). The arguments are written in both branches; one runs.
   */
  protected override call(e: IR.CallExpr): string {
    const gen = super.call(e);
    if (this.me.syncFns.has(e.fn)) return `($F.s = ${this.site}, yield* ${gen})`;
    return `($F.s = ${this.site}, $S.deep ? yield* ${gen} : ${plainCall(this.me, e.fn, gen)})`;
  }

  /** Barriers and warp operations: the thread's operands go to the block scheduler, which resumes it with the result. */
  protected override intrinsic(e: IR.IntrinsicExpr): string {
    if (!SYNC_INTRINSICS.has(e.name)) return super.intrinsic(e);
    const site = this.me.site(BARRIER_INTRINSICS.has(e.name) || e.name === "gridSync" ? "barrier" : "warp", e.span, this.fn);
    const args = e.args.map((a) => this.ex(a));
    return `($F.s = ${this.site}, yield $S.req(${JSON.stringify(e.name)}, ${site}${args.map((a) => `, ${a}`).join("")}))`;
  }
}

/** Whether a statement itself (not one nested in it) stores into an array or updates one atomically. */
function writesMemory(s: IR.Stmt): boolean {
  if (s.k === "assign" && s.target.k === "index") return true;
  const roots: IR.Expr[] = [];
  if (s.k === "assign" || s.k === "decl") {
    if (s.k === "assign") roots.push(s.value);
    else if (s.init) roots.push(s.init);
  } else if (s.k === "expr") roots.push(s.expr);
  let found = false;
  for (const r of roots) visitExpr(r, (x) => (found ||= x.k === "atomic"));
  return found;
}

/** `name(args)` → `name$p(args)`: the fast-simulator form of a device function. */
function plainCall(me: ModuleEmitter, fn: string, call: string): string {
  const name = me.deviceNames.get(fn)!;
  return `${name}$p${call.slice(name.length)}`;
}

/** A device function as the fast simulator emits it, named `…$p`, calling the `…$p` forms of its callees. */
class PlainFnEmitter extends FnEmitter {
  constructor(me: ModuleEmitter, fn: IR.IrFunction) {
    super(me, fn, "device");
  }
  protected override call(e: IR.CallExpr): string {
    return plainCall(this.me, e.fn, super.call(e));
  }
  emitPlain(): string {
    const name = this.me.deviceNames.get(this.fn.id)!;
    const code = this.emitDevice();
    return `function ${name}$p${code.slice(`function ${name}`.length)}`;
  }
}

/** The kernel's arguments as device-function arguments: (data, offset 0, extents, element strides) per array, the value per scalar. */
function argvCode(k: IR.IrFunction, name: string, kernelName: string): string {
  const parts: string[] = [];
  k.params.forEach((p, i) => {
    if (p.type.kind !== "array") return parts.push(`$A[${i}]`);
    const t = p.type as ArrayType;
    // A 1-D kernel argument is contiguous (docs/abi.md); an N-D one brings its strides (C, F or any).
    if (t.rank === 1) parts.push(`$A[${i}]`, "0", `$A[${i}].length${isComplex(t.dtype) ? " >> 1" : ""}`, "1");
    else parts.push(`$A[${i}].data`, "0", ...Array.from({ length: t.rank }, (_, d) => `$A[${i}].shape[${d}]`), ...Array.from({ length: t.rank }, (_, d) => `$A[${i}].strides[${d}]`));
  });
  // The thread generator from argv without spreading it (one call per CUDA thread).
  const spawn = `function ${name}$spawn(v, tx, ty, tz, t) { return ${kernelName}(${parts.map((_, i) => `v[${i}]`).join(", ")}${parts.length ? ", " : ""}tx, ty, tz, t); }`;
  return `function ${name}(L) { const $A = L.args; return [${parts.join(", ")}]; }\n${spawn}`;
}

export function emitStepModule(module: IR.IrModule): StepModule {
  // The loop watchdog: the device functions' fast forms (`…$p`) cannot yield, so the runtime's
  // rt.watchdog is what ends a loop in them that never does (the generators' loops also yield at $S.tick).
  const me = new ModuleEmitter(module, { watchdog: true });
  const tables = new StepTables();
  const code: string[] = [];
  const fns = [...module.deviceFunctions, ...module.kernels];
  const emitters = fns.map((f, i) => new StepFnEmitter(me, f, tables, i));
  module.kernels.forEach((k, i) => me.deviceNames.set(k.id, `$k${i}_${safeName(k.name)}`));
  for (const e of emitters) code.push(e.emitDevice());
  for (const f of module.deviceFunctions) if (!me.syncFns.has(f.id)) code.push(new PlainFnEmitter(me, f).emitPlain());
  const functions = emitters.map((e) => e.describe());
  tables.functions.push(...functions);
  const kernels: Record<string, number> = {};
  const entries: string[] = [];
  module.kernels.forEach((k, i) => {
    kernels[k.name] = module.deviceFunctions.length + i;
    code.push(argvCode(k, `$argv${i}`, `$k${i}_${safeName(k.name)}`));
    entries.push(`${JSON.stringify(k.name)}: { thread: $argv${i}$spawn, argv: $argv${i} }`);
  });
  // Every shared array of the module, allocated per launch and zeroed per block, as the fast simulator does.
  const alloc: string[] = [];
  const zero: string[] = [];
  for (const [key, s] of me.sharedNames) {
    const T = storageArrayName(s.type.dtype), slots = slotsPerElement(s.type.dtype);
    if (key.startsWith("$dyn:")) alloc.push(`${s.js} = new ${T}(L.dynBuf, 0, Math.floor(L.dynBuf.byteLength / ${T}.BYTES_PER_ELEMENT / ${slots}) * ${slots});`);
    else alloc.push(`${s.js} = new ${T}(${(s.type.shape ?? [1]).reduce((a, b) => a * b, 1) * slots});`);
    zero.push(`${s.js}.fill(${zeroOf(s.type.dtype)});`);
  }
  code.push(
    "function $setup(L) {",
    "$cgdx = L.grid[0]; $cgdy = L.grid[1]; $cgdz = L.grid[2]; $cbdx = L.block[0]; $cbdy = L.block[1]; $cbdz = L.block[2];",
    ...alloc,
    "}",
    "function $block(b) {",
    "$cbx = b % $cgdx; $cby = ((b / $cgdx) | 0) % $cgdy; $cbz = (b / ($cgdx * $cgdy)) | 0;",
    ...zero,
    "}",
  );
  const o = me.prelude(`// CudaScript stepping module for ${module.file}`);
  o.push(...code);
  o.push(`return { abi: ${SIM_ABI}, sites: $sites, setup: $setup, block: $block, kernels: { ${entries.join(", ")} } };`);
  return { source: o.join("\n"), functions, statements: tables.statements, lines: tables.lines, kernels };
}
