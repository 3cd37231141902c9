/**
 * One function's code: the entry points of its emission, around the emit context that its concerns
 * share (context.ts). The stepping backend (compiler/src/step) extends it: the `protected` members are
 * its hooks, and every expression, statement, device-function call and intrinsic of every concern goes
 * through `ex`, `tstmt`, `call` and `intrinsic` here, so an override sees them all.
 */
import type * as IR from "../../ir/nodes";
import { callsGridSync } from "../../ir/visit";
import { Normalizer, type NStmt, type SyncStmt } from "../normalize";
import type { SimKernelInfo } from "../artifact-types";
import type { ModuleEmitter } from "./module";
import { ArrayDeclarations, forEachArrayDecl, type ArrayInfo } from "./arrays";
import { EmitContext } from "./context";
import { ValueEmitter } from "./values";
import { IntrinsicEmitter } from "./intrinsic";
import { MemoryEmitter } from "./memory";
import { StatementEmitter } from "./statements";
import { KernelFrame } from "./frame";
import { PlainKernelEmitter } from "./plain-kernel";
import { FissionEmitter } from "./fission";
import { PiecePrinter } from "./pieces";
import { SyncEmitter } from "./sync";
import { UndefinedValues } from "./shadow-values";
import { BARRIER_INTRINSICS } from "../../intrinsics";
import { recordDeviceNdParamSetup, recordDeviceParamSetup } from "../records";

export class FnEmitter {
  /** The state this function's concerns share, and the concerns themselves (`cx.parts`). */
  protected readonly cx: EmitContext;

  constructor(
    protected readonly me: ModuleEmitter,
    protected readonly fn: IR.IrFunction,
    kind: "kernel" | "device",
    /**
     * This emission of a kernel is for launches whose N-D arrays are all C-contiguous: it indexes them
     * row-major from their extents, as before strides existed, sparing a multiplication per access.
     */
    cOrderArrays = false,
  ) {
    // The concerns reach expressions and statements through these (the overridable methods below).
    const hooks = { ex: (e: IR.Expr) => this.ex(e), tstmt: (s: NStmt, out: string[]) => this.tstmt(s, out), call: (e: IR.CallExpr) => this.call(e), intrinsic: (e: IR.IntrinsicExpr) => this.intrinsic(e) };
    const cx = (this.cx = new EmitContext(me, fn, hooks, kind, cOrderArrays));
    cx.parts = {
      values: new ValueEmitter(cx),
      intrinsics: new IntrinsicEmitter(cx),
      memory: new MemoryEmitter(cx),
      decls: new ArrayDeclarations(cx),
      statements: new StatementEmitter(cx),
      frame: new KernelFrame(cx),
      plain: new PlainKernelEmitter(cx),
      fission: new FissionEmitter(cx),
      pieces: new PiecePrinter(cx),
      sync: new SyncEmitter(cx),
      undef: new UndefinedValues(cx),
    };
  }

  /** The function's arrays (the stepping backend describes them to the debugger). */
  protected get arrays(): ReadonlyMap<IR.Var, ArrayInfo> {
    return this.cx.arrays;
  }
  /** The scalars the function declares as `let`s. */
  protected get scalars(): ReadonlySet<IR.Var> {
    return this.cx.scalars;
  }
  protected vn(v: IR.Var): string {
    return this.cx.vn(v);
  }

  ex(e: IR.Expr): string {
    return this.cx.values.ex(e);
  }
  protected tstmt(s: NStmt, out: string[]): void {
    this.cx.statements.tstmt(s, out);
  }
  protected call(e: IR.CallExpr): string {
    return this.cx.memory.call(e);
  }
  protected intrinsic(e: IR.IntrinsicExpr): string {
    return this.cx.intrinsics.intrinsic(e);
  }

  emitDevice(): string {
    const name = this.me.deviceNames.get(this.fn.id)!;
    const params: string[] = [];
    const recordViews: string[] = [];
    for (const p of this.fn.params) {
      const n = this.cx.vn(p);
      if (p.type.kind === "array" && p.type.record && p.type.rank > 1) {
        // An N-D record array of a kernel in the stepping backend: its bytes' extents and strides, in records (js/records.ts).
        const r = recordDeviceNdParamSetup(n, p.type.record, p.type.rank);
        params.push(...r.params);
        recordViews.push(r.setup);
        this.cx.arrays.set(p, { name: p.name, dtype: p.type.dtype, space: "global", data: n, dims: r.dims, strides: r.strides, record: p.type.record });
      } else if (p.type.kind === "array" && p.type.record) {
        // A record array of a device function (or of a kernel in the stepping backend): its bytes, whose
        // extent counts bytes; the records are counted and viewed as in a kernel (js/records.ts).
        params.push(n, `${n}$o`, `${n}$0`, `${n}$s0`);
        recordViews.push(recordDeviceParamSetup(n, p.type.record));
        this.cx.arrays.set(p, { name: p.name, dtype: p.type.dtype, space: "global", data: n, dims: [`${n}$n`], record: p.type.record });
      } else if (p.type.kind === "array") {
        // (data, offset, extents, strides): the caller passes a whole array (offset 0) or a view of one
        // (ir/views.ts), of any layout (a row of a column-major array is strided).
        const t = p.type;
        const dims = Array.from({ length: t.rank }, (_, d) => `${n}$${d}`);
        const strides = Array.from({ length: t.rank }, (_, d) => `${n}$s${d}`);
        params.push(n, `${n}$o`, ...dims, ...strides);
        this.cx.arrays.set(p, { name: p.name, dtype: t.dtype, space: "global", data: n, dims, strides, shId: this.cx.san ? "param" : undefined, offset: `${n}$o` });
      } else params.push(n);
    }
    params.push("$tx", "$ty", "$tz", "$t", ...this.cx.undef.shadowParams());
    const setup: string[] = [...recordViews];
    const perBlock: string[] = [];
    forEachArrayDecl(this.fn.body, (s) => this.cx.decls.declareBodyArray(s, undefined, setup, perBlock));
    // Local arrays of device functions are allocated per call (each call's copy is fresh).
    const body: string[] = [];
    this.cx.statements.tstmts(this.fn.body, body);
    const decls = this.cx.frame.declLines(setup);
    const fn = [`${this.functionKeyword()} ${name}(${params.join(", ")}) {`, ...decls, ...this.prologue(), ...body, ...this.epilogue(), "}"];
    if (!this.me.recursive.has(this.fn.id) || this.functionKeyword() !== "function") return fn.join("\n");
    // A recursive function counts its nesting against the kernel's recursionDepth (CSR086 past it), as
    // the GPU's stack is sized for that depth: the body becomes <name>$r, called by a counting wrapper.
    const site = this.cx.site("recursion", this.fn.span);
    fn[0] = `function ${name}$r(${params.join(", ")}) {`;
    return [
      `function ${name}(${params.join(", ")}) {`,
      `if (++$depth > $depthLimit) { $depth = 0; throw rt.recursionTooDeep($sites[${site}], $depthLimit); }`,
      `try { return ${name}$r(${params.join(", ")}); } finally { $depth--; }`,
      "}",
      ...fn,
    ].join("\n");
  }

  /** Hooks of the stepping backend, which makes every function a generator with a debugger frame. */
  protected functionKeyword(): string {
    return "function";
  }
  protected prologue(): string[] {
    return [];
  }
  protected epilogue(): string[] {
    return [];
  }

  emitKernel(jsName: string): { code: string; info: SimKernelInfo } {
    const k = this.fn;
    const norm = new Normalizer(k, this.me.fns, this.me.syncFns).run();
    let usesBarriers = false, usesWarp = false;
    forEachSync(norm.body, (s) => (BARRIER_INTRINSICS.has(s.name) ? (usesBarriers = true) : (usesWarp = true)));
    const strategy = norm.hasSync ? "fission" : "loop";
    this.cx.undef.prepare(strategy === "fission" ? norm.body : undefined);
    this.cx.cooperative = callsGridSync(k);
    const info: SimKernelInfo = { name: k.name, id: k.id, file: k.span.file, line: k.span.line, strategy, usesBarriers, usesWarpOps: usesWarp, privatize: this.me.atomicParams.get(k.id)?.privatize ?? [], atomics: this.me.atomicParams.get(k.id)?.atomics ?? [], ...(this.cx.cooperative ? { cooperative: true } : {}) };
    const code = strategy === "fission" ? this.cx.fission.emitFission(jsName, norm.body, norm.arrayKeys, info) : this.cx.plain.emitFast(jsName, info);
    return { code, info };
  }
}

function forEachSync(stmts: readonly NStmt[], f: (s: SyncStmt) => void): void {
  for (const s of stmts) {
    if (s.k === "sync") f(s);
    else if (s.k === "if") {
      forEachSync(s.then, f);
      if (s.else) forEachSync(s.else, f);
    } else if (s.k === "loop") {
      forEachSync(s.init, f);
      forEachSync(s.body, f);
      forEachSync(s.update, f);
    } else if (s.k === "block" || s.k === "fnScope") forEachSync(s.body, f);
  }
}
