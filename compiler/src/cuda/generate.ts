/**
 * IR → CUDA C++. One pass over each function's IR tree, one C++ statement per IR statement, names
 * from the source, `#line` directives pointing at the TypeScript file (emitted only where the line the
 * preprocessor would assign differs, so the output stays readable). The argument ABI is in
 * docs/abi.md; semantics notes in docs/compile.md.
 *
 * Integer semantics: i32 `+ - * <<` and unary `-` wrap modulo 2^32 (JavaScript `| 0` semantics), so
 * they are computed in `unsigned` and cast back to `int` once per expression tree (no signed-overflow
 * undefined behaviour; measured on the corpus, it costs no registers and at most one PTX instruction
 * per kernel against plain signed arithmetic).
 */
import { wrapNumber } from "../dtypes/table";
import * as path from "node:path";
import type * as IR from "../ir/nodes";
import { complexPart, F32, I32, isComplex, isFloat, isNarrowInt, scalar, type ArrayType, type DType, type RecordType, type ScalarType } from "../ir/types";
import { f16Bits } from "../ir/f16";
import { extentThrough, viewOfArgument } from "../ir/views";
import { assignsVar, callsGridSync, forEachStmt, isPure, sameExpr } from "../ir/visit";
import { cElementType, cString, cType, literal } from "./literals";
import { usesComplex } from "./complex";
import { intrinsicRecord } from "../intrinsics";
import { isReserved, isReservedByRule, NameTable, sanitize } from "./names";
import { COMPLEX_FIELD_TYPES, hasComplexFields, recordMemberName, recordStructLines, recordStructName } from "./records";
import { preludeFor, type FloatMinMaxOp, type HelperName } from "./prelude";
import { RANDOM_CPP_FUNCTIONS } from "./random";
import { ARITH_PREC, bin, call, cast, COMPARE_PREC, operand, P, rightOperand, type Out } from "./precedence";
import { PRINTF_BYTES_SYMBOL, printfRecordLowerBound, type PrintfArgKind } from "./printf-bytes";
import { MAX_RAISE_VALUES, raiseSiteKey, raiseValueBits } from "./raise";
import { DEFAULT_RECURSION_DEPTH, recursiveFunctions } from "../ir/recursion";

/** Bumped whenever generated code changes meaning or shape (part of the compile cache key). */
export const CODEGEN_VERSION = "3";

export interface CudaParam {
  /** Source name of the parameter. */
  name: string;
  kind: "scalar" | "array";
  dtype: DType;
  /** 0 for scalars. */
  rank: number;
  /** The C parameter declarations this parameter becomes, in order (see docs/abi.md). */
  cParams: string[];
}

export interface CudaKernel {
  /** Source name (the exported `const`). */
  name: string;
  /** The `extern "C"` symbol in the PTX: the source name unless it collides with a C++/CUDA name. */
  symbol: string;
  params: CudaParam[];
  /** Whether the kernel uses `cuda.shared.array(0, …)` (the launch must give `sharedMem`). */
  dynamicShared: boolean;
  /** Kernel options from `cuda.jit(fn, { … })`. */
  options: IR.KernelOptions;
  /** Whether the kernel or a device function it calls uses console.log (printf). */
  prints: boolean;
  /** Whether the kernel or a device function it calls raises (throw, console.assert; raise.ts): its launches are followed by a read of the error record. */
  raises?: boolean;
  /** When it reaches a recursive device function: its recursion depth (option or default), which sizes the GPU's per-thread stack. */
  recursionDepth?: number;
  span: IR.Span;
  /**
   * Whether the kernel synchronises the grid (`g.sync()`): it takes one hidden last parameter, a pointer
   * to two zeroed u32 (the grid barrier's workspace), and must be launched cooperatively (docs/abi.md).
   */
  cooperative?: boolean;
}

export interface LineMapEntry {
  /** 1-based line in `source`. */
  generatedLine: number;
  /** Absolute path of the TypeScript file. */
  file: string;
  /** 1-based TypeScript line. */
  line: number;
}

export interface GeneratedCuda {
  source: string;
  kernels: CudaKernel[];
  lineMap: LineMapEntry[];
}

export interface GenerateCudaOptions {
  /** Emit `#line` directives (default true). The lineMap is produced either way. */
  lineDirectives?: boolean;
  /** Only these kernels (source names) and what they reach; default all. */
  kernels?: readonly string[];
  /**
   * Compute i32 `+ - *` inside array indices in plain signed `int` (overflow undefined) instead of
   * with wraparound. Default false; kept to measure what wraparound costs (bench/compile.mjs).
   */
  signedIndexArithmetic?: boolean;
}

/** The IR has something this backend cannot express (a front-end bug, or an IR made by hand). */
export class CudaGenError extends Error {
  constructor(
    message: string,
    readonly span?: IR.Span,
  ) {
    super(message);
    this.name = "CudaGenError";
  }
}

function dtypeOf(e: IR.Expr): DType {
  if (e.type.kind !== "scalar") throw new CudaGenError(`expected a scalar, got ${e.type.kind}`, e.span);
  return e.type.dtype;
}



/** i32 operations whose low 32 bits do not depend on signedness (computed in `unsigned`). */
function isRingOp(e: IR.Expr): boolean {
  if (e.type.kind !== "scalar" || e.type.dtype !== "i32") return false;
  if (e.k === "binary") return e.op === "+" || e.op === "-" || e.op === "*" || e.op === "<<" || e.op === "&" || e.op === "|" || e.op === "^";
  if (e.k === "unary") return e.op === "-" || e.op === "~";
  return false;
}
/** The ring operations that can overflow (the ones that must not be computed in signed `int`). */
/**
 * An integer / or % that needs the helper cs_div / cs_rem (prelude `intDivision`): the divisor may be 0
 * or -1, where C++'s / and % trap or are undefined. A constant divisor other than those divides plainly.
 */
function integerDivision(e: IR.BinaryExpr): boolean {
  if ((e.op !== "/" && e.op !== "%") || isFloat(e.type.dtype)) return false;
  const r = e.right;
  return !(r.k === "const" && (typeof r.value === "number" || typeof r.value === "bigint") && r.value != 0 && r.value != -1);
}

function wraps(e: IR.Expr): boolean {
  if (e.type.kind !== "scalar" || e.type.dtype !== "i32") return false;
  if (e.k === "binary") return e.op === "+" || e.op === "-" || e.op === "*" || e.op === "<<";
  return e.k === "unary" && e.op === "-";
}

// ───────────────────────── arrays ─────────────────────────

type ArrayInfo =
  /**
   * Kernel or device-function parameter: pointer, one `int` extent per dimension, then the ELEMENT
   * stride of each dimension (C expressions: a kernel's 1-D parameter is contiguous, stride "1").
   */
  | { kind: "pointer"; name: string; dtype: DType; rank: number; extents: string[]; strides: string[]; record?: RecordType }
  /** `__shared__` or local array with a static shape: a C array, indexed `a[i][j]`. */
  | { kind: "static"; name: string; dtype: DType; rank: number; shape: readonly number[] }
  /** Dynamic shared memory: a pointer into `cs_dynamic_smem`. */
  | { kind: "dynamic"; name: string; dtype: DType; rank: 1 }
  /** Module `__constant__` array, a C array of its shape (bit-pattern unions when it holds NaN/infinity). */
  | { kind: "const"; name: string; dtype: DType; rank: number; shape: readonly number[]; storage: ConstStorage };

// ───────────────────────── generated lines ─────────────────────────

interface Line {
  text: string;
  indent: number;
  span?: IR.Span;
}

interface ModuleNames {
  globals: NameTable;
  functions: Map<string, string>; // IR function id → C name
  consts: Map<string, { name: string; array: IR.ConstArray; storage: ConstStorage }>;
  helpers: Set<HelperName>;
  /** Declarations intrinsic records asked for (libdevice's extern "C" functions, their helpers): text → GPU only. */
  declarations: Map<string, boolean>;
  signedIndexArithmetic: boolean;
  /** raise.ts: the number of each raise of the module, by raiseSiteKey. */
  raiseSites: Map<string, number>;
  /** Ids of the device functions in a call cycle (recursion.ts), and their prototypes as generated. */
  recursive: ReadonlySet<string>;
  prototypes: string[];
  /** Record types of the module's arrays, by name: one struct each (records.ts). */
  records: Map<string, RecordType>;
}

// ───────────────────────── one function ─────────────────────────

class FunctionGen {
  readonly lines: Line[] = [];
  private indent = 0;
  private readonly scopes: Set<string>[] = [];
  private readonly vars = new Map<number, string>();
  private readonly arrays = new Map<number, ArrayInfo>();
  private readonly loops: { continueLabel?: string }[] = [];
  private labels = 0;
  usesDynamicShared = false;
  /** The kernel's hidden grid-barrier workspace parameter, when it calls g.sync(). */
  private gridWorkspace: string | undefined;
  /** The function itself calls printf (console.log). */
  prints = false;
  /** The function itself raises (throw, console.assert). */
  raises = false;
  readonly params: CudaParam[] = [];

  constructor(
    private readonly m: ModuleNames,
    private readonly fn: IR.IrFunction,
  ) {}

  generate(cName: string): void {
    const fn = this.fn;
    this.scopes.push(new Set());
    const decls: string[] = [];
    // Parameter names first, then the names derived from them (extents), so `x_len` never takes a
    // source name that a later parameter has.
    const baseNames = fn.params.map((p) => this.declareName(p));
    fn.params.forEach((p, i) => {
      const name = baseNames[i]!;
      if (p.type.kind === "array") {
        const at = p.type;
        const extents = at.rank === 1 ? [this.freshName(`${name}_len`)] : Array.from({ length: at.rank }, (_, d) => this.freshName(`${name}_shape${d}`));
        // N-D kernel parameters and every device-function array parameter take element strides (a
        // device function may get a row of a strided array); a kernel's 1-D parameter is contiguous.
        const strided = at.rank > 1 || fn.kind !== "kernel";
        const strideNames = strided ? Array.from({ length: at.rank }, (_, d) => this.freshName(`${name}_stride${d}`)) : [];
        this.arrays.set(p.id, { kind: "pointer", name, dtype: at.dtype, rank: at.rank, extents, strides: strided ? strideNames : ["1"], record: at.record });
        if (at.record) {
          this.m.records.set(at.record.name, at.record);
          if (hasComplexFields(at.record)) this.m.helpers.add("complex");
        }
        const ptr = `${cElementType(at.dtype)}*${fn.kind === "kernel" ? " __restrict__" : ""} ${name}`;
        const cParams = [ptr, ...extents.map((e) => `int ${e}`), ...strideNames.map((e) => `int ${e}`)];
        decls.push(...cParams);
        this.params.push({ name: p.name, kind: "array", dtype: at.dtype, rank: at.rank, cParams });
      } else if (p.type.kind === "scalar") {
        const decl = `${cType(p.type.dtype)} ${name}`;
        decls.push(decl);
        this.params.push({ name: p.name, kind: "scalar", dtype: p.type.dtype, rank: 0, cParams: [decl] });
      } else {
        throw new CudaGenError(`parameter '${p.name}' has unsupported type ${p.type.kind}`, p.span);
      }
    });
    if (fn.kind === "kernel" && callsGridSync(fn)) {
      this.gridWorkspace = this.freshName("cs_grid_ws");
      decls.push(`unsigned int* __restrict__ ${this.gridWorkspace}`);
      this.m.helpers.add("gridSync");
    }
    const ret = fn.kind === "kernel" ? "void" : this.returnType();
    // A recursive function (in a call cycle) is a real call with a stack frame: never inlined, and
    // declared before every body, since the functions of a cycle call each other (ir/recursion.ts).
    const recursive = this.m.recursive.has(fn.id);
    if (recursive) this.m.prototypes.push(`static __device__ __noinline__ ${ret} ${cName}(${decls.join(", ")});`);
    const head =
      fn.kind === "kernel"
        ? `extern "C" __global__ void${launchBoundsAttribute(fn.options.launchBounds)} ${cName}(${decls.join(", ")}) {`
        : `static __device__ ${recursive ? "__noinline__" : "__forceinline__"} ${ret} ${cName}(${decls.join(", ")}) {`;
    this.emit(head, fn.span);
    this.indent++;
    this.block(fn.body);
    this.indent--;
    this.emit("}");
    this.scopes.pop();
  }

  private returnType(): string {
    const t = this.fn.returnType;
    if (t.kind === "void") return "void";
    if (t.kind === "scalar") return cType(t.dtype);
    throw new CudaGenError(`device function '${this.fn.name}' returns ${t.kind}, which CUDA C++ code generation does not support`, this.fn.span);
  }

  // ── names ──

  private visible(name: string): boolean {
    return this.m.globals.has(name) || this.scopes.some((s) => s.has(name));
  }

  private freshName(wanted: string, suffix?: number): string {
    let name = sanitize(wanted);
    if (isReserved(name) || this.visible(name)) {
      const stem = isReservedByRule(`${name}_x`) ? `v${name}` : name; // reserved by prefix: suffixes would not help
      if (stem !== name && !isReserved(stem) && !this.visible(stem)) name = stem;
      else name = suffix !== undefined ? `${stem}_${suffix}` : `${stem}_2`;
      for (let n = 2; isReserved(name) || this.visible(name); n++) name = suffix !== undefined ? `${stem}_${suffix}_${n}` : `${stem}_${n}`;
    }
    this.scopes[this.scopes.length - 1]!.add(name);
    return name;
  }

  private declareName(v: IR.Var): string {
    const name = this.freshName(v.name, v.id);
    this.vars.set(v.id, name);
    return name;
  }

  private varName(v: IR.Var, span: IR.Span): string {
    const n = this.vars.get(v.id);
    if (n === undefined) throw new CudaGenError(`variable '${v.name}' is used before its declaration`, span);
    return n;
  }

  // ── lines ──

  private emit(text: string, span?: IR.Span): void {
    this.lines.push({ text, indent: this.indent, span });
  }

  private block(body: readonly IR.Stmt[]): void {
    for (const s of body) this.stmt(s);
  }

  private scoped(body: readonly IR.Stmt[]): void {
    this.scopes.push(new Set());
    this.indent++;
    this.block(body);
    this.indent--;
    this.scopes.pop();
  }

  // ── statements ──

  private stmt(s: IR.Stmt): void {
    switch (s.k) {
      case "decl":
        return this.emit(`${this.declText(s)};`, s.span);
      case "arrayDecl":
        return this.arrayDecl(s);
      case "constArrayDecl": {
        const c = this.m.consts.get(s.constName);
        if (!c) throw new CudaGenError(`unknown constant array '${s.constName}'`, s.span);
        const name = this.declareName(s.v);
        const shape = constShape(c.array);
        this.arrays.set(s.v.id, { kind: "const", name: c.name, dtype: c.array.dtype, rank: shape.length, shape, storage: c.storage });
        return this.emit(`/* ${name}: the __constant__ array ${c.name}${shape.map((n) => `[${n}]`).join("")} */`, s.span);
      }
      case "assign":
        return this.emit(`${this.assignText(s)};`, s.span);
      case "if":
        return this.ifStmt(s, false);
      case "loop":
        return this.loop(s);
      case "break":
        return this.emit("break;", s.span);
      case "continue": {
        const label = this.loops[this.loops.length - 1]?.continueLabel;
        return this.emit(label ? `goto ${label};` : "continue;", s.span);
      }
      case "return":
        return this.emit(s.value ? `return ${this.expr(s.value).t};` : "return;", s.span);
      case "expr": {
        const e = s.expr;
        const o = this.expr(e);
        const effect = e.k === "call" || e.k === "atomic" || e.k === "random" || e.k === "intrinsic";
        return this.emit(effect ? `${o.t};` : `(void)(${o.t});`, s.span);
      }
      case "raise": {
        // raise.ts: the first thread to raise fills the record; every raising thread stops.
        this.m.helpers.add("raise");
        this.raises = true;
        const site = this.m.raiseSites.get(raiseSiteKey(s.span));
        if (site === undefined) throw new CudaGenError(`internal: a raise at ${s.span.file}:${s.span.line} is not in the module's site table`);
        const values = s.args.map((a) => raiseValueBits((a.type as ScalarType).dtype, this.expr(a).t));
        while (values.length < MAX_RAISE_VALUES) values.push("0ull");
        this.emit(`cs_raise_record(${site}ull, ${s.args.length}, ${values.join(", ")});`, s.span);
        return this.emit(`cs_raise_exit();`, s.span);
      }
      case "print": {
        // A bool argument (its conversion is %s) prints as JavaScript prints it.
        const args = s.args.map((a) => (a.type.kind === "scalar" && a.type.dtype === "bool" ? `(${this.expr(a).t}) ? "true" : "false"` : this.expr(a).t));
        // Counted first, so the runtime can tell when the FIFO overwrote output (printf-bytes.ts).
        this.m.helpers.add("printfBytes");
        this.prints = true;
        this.emit(`atomicAdd(&${PRINTF_BYTES_SYMBOL}, ${printfRecordLowerBound(s.format, s.args.map(printfArgKind))}ull);`, s.span);
        return this.emit(`printf(${[cString(s.format), ...args].join(", ")});`, s.span);
      }
      case "block":
        this.emit("{", s.span);
        this.scoped(s.body);
        return this.emit("}");
    }
  }

  private declText(s: IR.DeclStmt): string {
    if (s.v.type.kind !== "scalar") throw new CudaGenError(`local '${s.v.name}' has type ${s.v.type.kind}; only scalars can be locals`, s.span);
    const init = s.init ? ` = ${this.expr(s.init).t}` : "";
    const name = this.declareName(s.v);
    return `${s.v.mutable ? "" : "const "}${cType(s.v.type.dtype)} ${name}${init}`;
  }

  private arrayDecl(s: IR.ArrayDeclStmt): void {
    const at: ArrayType = s.arrayType;
    const name = this.declareName(s.v);
    const et = cElementType(at.dtype);
    const shape = at.shape ?? [];
    if (at.space === "shared" && shape.length === 1 && shape[0] === 0) {
      this.usesDynamicShared = true;
      this.m.helpers.add("dynamicShared");
      this.arrays.set(s.v.id, { kind: "dynamic", name, dtype: at.dtype, rank: 1 });
      return this.emit(`${et}* ${name} = (${et}*)cs_dynamic_smem;`, s.span);
    }
    if ((at.space !== "shared" && at.space !== "local") || shape.length !== at.rank || shape.some((n) => !(n > 0))) {
      throw new CudaGenError(`array '${s.v.name}' (${at.space}, shape [${shape.join(", ")}]) cannot be declared in CUDA C++`, s.span);
    }
    this.arrays.set(s.v.id, { kind: "static", name, dtype: at.dtype, rank: at.rank, shape });
    const dims = shape.map((n) => `[${n}]`).join("");
    // Local arrays start zeroed, as in the simulator and in plain TypeScript (a new typed array): a C
    // array would hold whatever the thread's stack held (docs/kernel-language.md, "Local arrays").
    // Shared arrays cannot have initialisers; reading an unwritten shared element is the sanitizer's job.
    this.emit(at.space === "shared" ? `__shared__ ${et} ${name}${dims};` : `${et} ${name}${dims} = {};`, s.span);
  }

  private assignText(s: IR.AssignStmt): string {
    const target = s.target;
    const lv = target.k === "var" ? this.varName(target.v, target.span) : this.lvalue(target);
    const v = s.value;
    if (v.k === "binary" && sameExpr(v.left, target, true) && isPure(target)) {
      const compound = this.compound(v);
      if (compound) return `${lv} ${compound}`;
    }
    // u32 x = (i32 ring op on x): `s ^= s << 13` (the front end routes u32 bit operations through i32).
    if (v.k === "convert" && v.type.dtype === "u32" && v.value.k === "binary" && isRingOp(v.value) && isPure(target)) {
      const b = v.value;
      const left = b.left.k === "convert" && dtypeOf(b.left.value) === "u32" ? b.left.value : undefined;
      if (left && sameExpr(left, target, true)) {
        if (b.op === "<<") return `${lv} <<= ${this.shiftCount(b.right)}`;
        return `${lv} ${b.op}= ${operand(this.ring(b.right), P.assign)}`;
      }
    }
    return `${lv} = ${this.expr(v).t}`;
  }

  /** `op= rhs` for `x = x op rhs`, when C's compound assignment computes the same thing. */
  private compound(v: IR.BinaryExpr): string | undefined {
    const d = v.type.dtype;
    if (wraps(v)) return undefined; // i32 + - * <<: needs the unsigned detour
    if (isFloat(d) && v.op === "%") return undefined; // fmodf
    if (integerDivision(v)) return undefined; // cs_div / cs_rem
    // i64/u64: op= means the same only for & | ^, and u64's + - * (unsigned wrap-around); the rest take
    // binary64's path (shift counts 0…63, signed wrap-around).
    if ((d === "i64" || d === "u64") && !"&|^".includes(v.op) && !(d === "u64" && "+-*".includes(v.op))) return undefined;
    if (v.op === "<<" || v.op === ">>" || v.op === ">>>") return `${v.op === ">>>" ? ">>" : v.op}= ${this.shiftCount(v.right)}`;
    return `${v.op}= ${operand(this.expr(v.right), P.assign)}`;
  }

  private ifStmt(s: IR.IfStmt, isElseIf: boolean): void {
    const head = `if (${this.expr(s.cond).t}) {`;
    this.emit(isElseIf ? `} else ${head}` : head, s.span);
    this.scoped(s.then);
    if (s.else && s.else.length > 0) {
      const only = s.else.length === 1 ? s.else[0] : undefined;
      if (only && only.k === "if") {
        this.ifStmt(only, true);
        return;
      }
      this.emit("} else {");
      this.scoped(s.else);
    }
    this.emit("}");
  }

  private loop(s: IR.LoopStmt): void {
    const needsScope = s.init.length > 0 && (!s.testFirst || !this.forInitText(s.init, true));
    this.scopes.push(new Set());
    if (needsScope) {
      this.emit("{", s.span);
      this.indent++;
      this.block(s.init);
    }
    if (!s.testFirst) {
      const cond = s.cond ? this.expr(s.cond).t : "";
      // do … while: IR `update` is empty for source do-while loops; a non-empty one runs before the test.
      const frame: { continueLabel?: string } = {};
      if (s.update.length > 0) frame.continueLabel = `cs_continue_${++this.labels}`;
      this.loops.push(frame);
      this.emit("do {", s.span);
      this.loopBody(s, frame);
      this.loops.pop();
      this.emit(`} while (${cond || "true"});`);
    } else {
      const init = needsScope ? "" : (this.forInitText(s.init, false) ?? "");
      const cond = s.cond ? this.expr(s.cond).t : "";
      const update = this.updateText(s);
      const frame: { continueLabel?: string } = {};
      if (update === undefined) frame.continueLabel = `cs_continue_${++this.labels}`;
      this.loops.push(frame);
      if (!init && !update) this.emit(`while (${cond || "true"}) {`, s.span);
      else this.emit(`for (${init}; ${cond}; ${update ?? ""}) {`, s.span);
      this.loopBody(s, frame);
      this.loops.pop();
      this.emit("}");
    }
    if (needsScope) {
      this.indent--;
      this.emit("}");
    }
    this.scopes.pop();
  }

  /** Body plus, when `continue` has to be a goto, the label and the update statements after it. */
  private loopBody(s: IR.LoopStmt, frame: { continueLabel?: string }): void {
    if (!frame.continueLabel) {
      this.scoped(s.body);
      return;
    }
    this.indent++;
    this.emit("{");
    this.scoped(s.body);
    this.emit("}");
    this.emit(`${frame.continueLabel}:;`);
    this.scopes.push(new Set());
    this.block(s.update);
    this.scopes.pop();
    this.indent--;
  }

  /** The init clause of a `for` header, or undefined when it needs statements of its own. */
  private forInitText(init: readonly IR.Stmt[], dryRun: boolean): string | undefined {
    if (init.length === 0) return "";
    if (init.every((s) => s.k === "assign")) return dryRun ? "ok" : init.map((s) => this.assignText(s as IR.AssignStmt)).join(", ");
    if (init.every((s) => s.k === "decl")) {
      const decls = init as IR.DeclStmt[];
      const typeOf = (d: IR.DeclStmt) => (d.v.type.kind === "scalar" ? `${d.v.mutable ? "" : "const "}${cType(d.v.type.dtype)}` : "?");
      const t0 = typeOf(decls[0]!);
      if (!decls.every((d) => typeOf(d) === t0 && d.v.type.kind === "scalar")) return undefined;
      if (dryRun) return "ok";
      return decls.map((d, i) => (i === 0 ? this.declText(d) : this.declText(d).slice(t0.length + 1))).join(", ");
    }
    return undefined;
  }

  /** The update clause as comma-separated expressions, or undefined if it has other statements. */
  private updateText(s: IR.LoopStmt): string | undefined {
    if (s.update.length === 0) return "";
    if (!s.update.every((u) => u.k === "assign" || u.k === "expr")) return undefined;
    return s.update
      .map((u) => {
        if (u.k === "expr") return this.expr(u.expr).t;
        return this.inductionStep(u, s) ?? this.assignText(u);
      })
      .join(", ");
  }

  /**
   * `k++` / `k--` for a loop counter that provably cannot overflow: `k = k ± 1` where the loop
   * condition is `k < e` (for +1) or `k > e` (for -1) and the body never assigns k.
   */
  private inductionStep(u: IR.AssignStmt, s: IR.LoopStmt): string | undefined {
    const t = u.target, v = u.value;
    if (t.k !== "var" || v.k !== "binary" || v.type.dtype !== "i32" || (v.op !== "+" && v.op !== "-")) return undefined;
    if (!sameExpr(v.left, t, true) || v.right.k !== "const" || v.right.value !== 1) return undefined;
    const c = s.cond;
    if (!c || c.k !== "compare" || c.operandType.dtype !== "i32") return undefined;
    const counterLeft = c.left.k === "var" && c.left.v.id === t.v.id;
    const counterRight = c.right.k === "var" && c.right.v.id === t.v.id;
    const op = counterLeft ? c.op : counterRight ? flip(c.op) : undefined;
    const ok = v.op === "+" ? op === "<" : op === ">";
    if (!ok || assignsVar([...s.body, ...s.update.filter((x) => x !== u)], t.v)) return undefined;
    return `${this.varName(t.v, t.span)}${v.op === "+" ? "++" : "--"}`;
  }

  // ── expressions ──

  private expr(e: IR.Expr, signedIndex = false): Out {
    switch (e.k) {
      case "const": {
        const l = literal(e.type.dtype, e.value);
        return { t: l.text, p: l.negative ? P.unary : P.primary };
      }
      case "var":
        if (e.type.kind !== "scalar") throw new CudaGenError(`array '${e.v.name}' used as a value`, e.span);
        return { t: this.varName(e.v, e.span), p: P.primary };
      case "special":
        return this.special(e, false);
      case "unary":
        return this.unary(e, signedIndex);
      case "binary":
        return this.binary(e, signedIndex);
      case "compare": {
        const prec = COMPARE_PREC[e.op];
        return bin(this.expr(e.left), e.op, this.expr(e.right), prec);
      }
      case "logical": {
        const prec = e.op === "&&" ? P.land : P.lor;
        const l = this.expr(e.left), r = this.expr(e.right);
        return { t: `${operand(l, prec, prec)} ${e.op} ${operand(r, prec + 1, prec)}`, p: prec };
      }
      case "select": {
        const c = this.expr(e.cond), a = this.expr(e.then), b = this.expr(e.else);
        return { t: `${operand(c, P.lor)} ? ${operand(a, P.cond + 1)} : ${operand(b, P.cond + 1)}`, p: P.cond };
      }
      case "convert":
        return this.convert(e);
      case "truthy":
        return this.truthy(e);
      case "index":
        return this.index(e);
      case "shape":
        return this.extent(e.array, e.dim, e.span);
      case "call":
        return this.callExpr(e);
      case "intrinsic":
        return this.intrinsic(e);
      case "atomic":
        return this.atomic(e);
      case "random":
        return this.random(e);
    }
  }

  private special(e: IR.SpecialExpr, unsigned: boolean): Out {
    const a = e.axis;
    let u: Out;
    switch (e.reg) {
      case "threadIdx":
      case "blockIdx":
      case "blockDim":
      case "gridDim":
        u = { t: `${e.reg}.${a}`, p: P.primary };
        break;
      case "grid":
        u = { t: `blockIdx.${a} * blockDim.${a} + threadIdx.${a}`, p: P.add };
        break;
      case "gridsize":
        u = { t: `blockDim.${a} * gridDim.${a}`, p: P.mul };
        break;
      case "laneid":
        this.m.helpers.add("laneid");
        return unsigned ? { t: "(unsigned)cs_laneid()", p: P.unary } : { t: "cs_laneid()", p: P.primary };
      case "warpsize":
        return unsigned ? { t: "32u", p: P.primary } : { t: "32", p: P.primary };
    }
    return unsigned ? u : cast("int", u);
  }

  private unary(e: IR.UnaryExpr, signedIndex: boolean): Out {
    const x = e.operand;
    switch (e.op) {
      case "!":
        return { t: `!${operand(this.expr(x), P.unary)}`, p: P.unary };
      case "~":
        return { t: `~${operand(this.expr(x), P.unary)}`, p: P.unary };
      case "-": {
        if (e.type.dtype === "i64") {
          this.m.helpers.add("int64");
          return call("cs_wrap64", [`0ull - (unsigned long long)${operand(this.expr(x), P.unary)}`]);
        }
        if (e.type.dtype === "i32" && !signedIndex) return cast("int", this.ring(e));
        const o = operand(this.expr(x, signedIndex), P.unary);
        return { t: `-${o.startsWith("-") ? `(${o})` : o}`, p: P.unary };
      }
    }
  }

  private binary(e: IR.BinaryExpr, signedIndex: boolean): Out {
    const d = e.type.dtype;
    const prec = ARITH_PREC[e.op];
    if (integerDivision(e)) {
      this.m.helpers.add("intDivision");
      return call(`${e.op === "/" ? "cs_div" : "cs_rem"}<${cType(d)}>`, [this.expr(e.left).t, this.expr(e.right).t]);
    }
    if (d === "i64" || d === "u64") return this.binary64(e);
    if (wraps(e)) {
      if (signedIndex && e.op !== "<<") {
        return bin(this.expr(e.left, true), e.op, this.expr(e.right, true), prec);
      }
      return cast("int", this.ring(e));
    }
    // `x | 0` (JavaScript's truncation idiom) is x once x is already an i32.
    if ((e.op === "|" || e.op === "^") && e.right.k === "const" && e.right.value === 0 && dtypeOf(e.left) === d) return this.expr(e.left);
    switch (e.op) {
      case "<<":
      case ">>":
      case ">>>":
        return { t: `${operand(this.expr(e.left), P.shift)} ${e.op === "<<" ? "<<" : ">>"} ${this.shiftCount(e.right)}`, p: P.shift };
      case "%":
        if (d === "f16") return call("cs_half", [call("fmodf", [cast("float", this.expr(e.left)).t, cast("float", this.expr(e.right)).t]).t]);
        if (isFloat(d)) return call(d === "f32" ? "fmodf" : "fmod", [this.expr(e.left).t, this.expr(e.right).t]);
        break;
    }
    return bin(this.expr(e.left), e.op, this.expr(e.right), prec);
  }

  /** i64/u64 arithmetic (prelude `int64`): wrap-around made well defined, shifts clamped as PTX does. */
  private binary64(e: IR.BinaryExpr): Out {
    const l = this.expr(e.left), r = this.expr(e.right);
    if (e.op === "<<" || e.op === ">>") {
      this.m.helpers.add("int64");
      return call(`${e.op === "<<" ? "cs_shl64" : "cs_shr64"}<${cType(e.type.dtype)}>`, [l.t, r.t]);
    }
    if (e.type.dtype === "i64" && (e.op === "+" || e.op === "-" || e.op === "*")) {
      this.m.helpers.add("int64");
      const u = (o: Out) => `(unsigned long long)${operand(o, P.unary)}`;
      return call("cs_wrap64", [`${u(l)} ${e.op} ${u(r)}`]);
    }
    // & | ^, and / % by a constant other than 0 and -1 (binary handles the others).
    return bin(l, e.op, r, ARITH_PREC[e.op]);
  }

  /** A shift count: JavaScript uses its low 5 bits. */
  private shiftCount(e: IR.Expr): string {
    if (e.k === "const" && typeof e.value === "number" && e.value >= 0 && e.value <= 31) return String(e.value);
    const masked = e.k === "binary" && e.op === "&" && e.right.k === "const" && typeof e.right.value === "number" && e.right.value >= 0 && e.right.value <= 31;
    const o = this.expr(e);
    return masked ? operand(o, P.primary) : `(${operand(o, P.band, P.band)} & 31)`;
  }

  /** `e` (an i32 expression) computed as `unsigned`: same low 32 bits, wraparound well defined. */
  private ring(e: IR.Expr): Out {
    if (e.k === "const" && typeof e.value === "number") {
      const v = e.value | 0;
      return v >= 0 ? { t: `${v}u`, p: P.primary } : { t: `(unsigned)(${literal("i32", v).text})`, p: P.unary };
    }
    if (e.k === "special") return this.special(e, true);
    if (e.k === "convert" && dtypeOf(e.value) === "u32") return this.expr(e.value);
    // (unsigned)(int)small == (unsigned)small for every narrower integer (conversion is modular).
    if (e.k === "convert" && ["i8", "u8", "i16", "u16", "bool"].includes(dtypeOf(e.value))) return this.asUnsigned(this.expr(e.value));
    if (isRingOp(e)) {
      if (e.k === "unary") {
        if (e.op === "-") return { t: `0u - ${rightOperand(this.ring(e.operand), P.add)}`, p: P.add };
        return { t: `~${operand(this.ring(e.operand), P.unary)}`, p: P.unary };
      }
      const b = e as IR.BinaryExpr;
      const prec = ARITH_PREC[b.op];
      if (b.op === "<<") return { t: `${operand(this.ring(b.left), P.shift)} << ${this.shiftCount(b.right)}`, p: P.shift };
      // a + (-3) reads better as a - 3u
      if ((b.op === "+" || b.op === "-") && b.right.k === "const" && typeof b.right.value === "number" && (b.right.value | 0) < 0 && (b.right.value | 0) !== -2147483648) {
        const op = b.op === "+" ? "-" : "+";
        return bin(this.ring(b.left), op, { t: `${-(b.right.value | 0)}u`, p: P.primary }, P.add);
      }
      return bin(this.ring(b.left), b.op, this.ring(b.right), prec);
    }
    return this.asUnsigned(this.expr(e));
  }

  private asUnsigned(o: Out): Out {
    return /^\d+$/.test(o.t) ? { t: `${o.t}u`, p: P.primary } : cast("unsigned", o);
  }

  private convert(e: IR.ConvertExpr): Out {
    const to = e.type.dtype;
    const from = dtypeOf(e.value);
    const v = e.value;
    if (v.k === "const" && typeof v.value === "number" && (isFloat(to) || (!isFloat(from) && to !== "bool"))) {
      // Fold literal conversions (int → float, float → float, int → int).
      let value = v.value;
      if (!isFloat(to) && !isFloat(from)) value = wrapNumber(to, value);
      const l = literal(to, value);
      return { t: l.text, p: l.negative ? P.unary : P.primary };
    }
    if (to === "bool") return this.truthy({ k: "truthy", type: e.type, value: v, span: e.span });
    if (to === "u32" && isRingOp(v)) return this.ring(v);
    // cs_half converts to and from 32-bit integers only: a 64-bit one goes through float, exactly both
    // ways (an f16 is an f32; an integer an f16 holds is below 2^24, a larger one overflows either way).
    const wide = (t: DType) => t === "i64" || t === "u64";
    if ((from === "f16" && wide(to)) || (wide(from) && to === "f16")) return cast(cType(to), cast("float", this.expr(v)));
    // Narrowing keeps the low bits, so a wrapping i32 result can be narrowed straight from unsigned.
    if (isNarrowInt(to) && wraps(v)) return cast(cType(to), this.ring(v));
    return cast(cType(to), this.expr(v));
  }

  private truthy(e: IR.TruthyExpr): Out {
    const v = e.value;
    const d = dtypeOf(v);
    if (d === "bool") return this.expr(v);
    // An f16 is exactly an f32: test that (zero and NaN alike).
    if (d === "f16") return this.truthy({ ...e, value: { k: "convert", type: F32, value: v, span: e.span } });
    const o = this.expr(v);
    if (!isFloat(d)) return { t: `${operand(o, P.rel)} != ${d === "u32" ? "0u" : "0"}`, p: P.eq };
    if (isPure(v) && (v.k === "var" || v.k === "index")) {
      const zero = d === "f32" ? "0.0f" : "0.0";
      return { t: `${operand(o, P.rel)} != ${zero} && ${operand(o, P.rel)} == ${operand(o, P.rel)}`, p: P.land };
    }
    this.m.helpers.add("truthy");
    return call("cs_truthy", [o.t]);
  }

  // ── arrays ──

  private arrayOf(a: IR.VarExpr): ArrayInfo {
    const info = this.arrays.get(a.v.id);
    if (!info) throw new CudaGenError(`'${a.v.name}' is not an array in scope`, a.span);
    if (a.type.kind === "array" && a.type.rank !== info.rank) {
      throw new CudaGenError(`'${a.v.name}' is used as a ${a.type.rank}-D view of a ${info.rank}-D array (a row of an N-D array), which CUDA C++ code generation does not support`, a.span);
    }
    return info;
  }

  /** The element `a[i][j]…` as an lvalue (no bool-to-byte adjustment). */
  private lvalue(e: IR.IndexExpr): string {
    const info = this.arrayOf(e.array);
    const signed = this.m.signedIndexArithmetic;
    const idx = e.indices.map((i) => this.expr(i, signed));
    if (idx.length !== info.rank) throw new CudaGenError(`'${e.array.v.name}' has ${info.rank} dimensions but is indexed with ${idx.length}`, e.span);
    switch (info.kind) {
      case "static":
        return `${info.name}${idx.map((i) => `[${i.t}]`).join("")}`;
      case "dynamic":
        return `${info.name}[${idx[0]!.t}]`;
      case "const":
        return constElement(info.name + idx.map((i) => `[${i.t}]`).join(""), info.storage);
      case "pointer": {
        // i * s0 + j * s1 + k * s2 with the element strides. The products stay in int: an array spans
        // fewer than 2^31 elements (docs/abi.md).
        let lin: Out | undefined;
        idx.forEach((i, d) => {
          if (i.t === "0") return;
          // An N-D record array's strides count bytes, its last dimension contiguous (docs/abi.md): in records, stride / size and 1.
          const stride = info.record && info.rank > 1 ? (d === info.rank - 1 ? "1" : `(${info.strides[d]!} / ${info.record.layout.size})`) : info.strides[d]!;
          const term = stride === "1" ? i : bin(i, "*", { t: stride, p: P.primary }, P.mul);
          lin = lin ? bin(lin, "+", term, P.add) : term;
        });
        // A record array's pointer is to its bytes (docs/abi.md): cast to the struct to reach a field.
        if (info.record && e.field) return `reinterpret_cast<${recordStructName(info.record)}*>(${info.name})[${lin?.t ?? "0"}].${recordMemberName(e.field.name)}`;
        return `${info.name}[${lin?.t ?? "0"}]`;
      }
    }
  }

  private index(e: IR.IndexExpr): Out {
    const lv = { t: this.lvalue(e), p: P.primary };
    return e.type.dtype === "bool" ? { t: `${lv.t} != 0`, p: P.eq } : lv;
  }

  private extent(a: IR.VarExpr, dim: number, span: IR.Span): Out {
    const info = this.arrayOf(a);
    if (dim >= info.rank) throw new CudaGenError(`'${a.v.name}' has no dimension ${dim}`, span);
    switch (info.kind) {
      case "pointer":
        // A record array's extent arrives in bytes (docs/abi.md): the count of records is extent / size.
        if (info.record && dim === info.rank - 1) return { t: `(${info.extents[dim]!} / ${info.record.layout.size})`, p: P.primary };
        return { t: info.extents[dim]!, p: P.primary };
      case "static":
        return { t: String(info.shape[dim]), p: P.primary };
      case "const":
        return { t: String(info.shape[dim]), p: P.primary };
      case "dynamic":
        return cast("int", { t: `cs_dynamic_smem_size() / sizeof(${cElementType(info.dtype)})`, p: P.mul });
    }
  }

  /** The element stride of each dimension of an array in scope (C expressions). */
  private strides(info: ArrayInfo): string[] {
    switch (info.kind) {
      case "pointer":
        return info.strides;
      case "dynamic":
        return ["1"];
      case "static":
      case "const":
        // C arrays are row-major: the stride of dimension d is the product of the later extents.
        return info.shape.map((_, d) => String(info.shape.slice(d + 1).reduce((x, y) => x * y, 1)));
    }
  }

  /** An array argument of a device-function call: pointer, one extent per dimension, one stride per dimension. */
  private arrayArgs(a: IR.VarExpr): string[] {
    const info = this.arrayOf(a);
    // A record array's extent travels in bytes, as a kernel receives it (docs/abi.md): the callee counts records.
    const extents = info.kind === "pointer" && info.record ? info.extents : Array.from({ length: info.rank }, (_, d) => this.extent(a, d, a.span).t);
    const strides = this.strides(info);
    switch (info.kind) {
      case "pointer":
      case "dynamic":
        return [info.name, ...extents, ...strides];
      case "static":
        return [info.rank === 1 ? info.name : `&${info.name}${"[0]".repeat(info.rank)}`, ...extents, ...strides];
      case "const":
        return [info.storage === "plain" && info.rank === 1 ? info.name : `&${constElement(info.name + "[0]".repeat(info.rank), info.storage)}`, ...extents, ...strides];
    }
  }

  /**
   * A view passed to a device function (ir/views.ts): the address of its first element in the base,
   * then its extents and strides — the same (pointer, extents, strides) a whole array passes. A view
   * keeps the base's strides of the dimensions it keeps (a row of a column-major array is strided).
   */
  private viewArgs(e: IR.IntrinsicExpr): string[] {
    const view = viewOfArgument(e);
    const info = this.arrayOf(view.base);
    const first: IR.Expr[] = [...view.lead];
    if (view.sub) first.push(view.sub.offset);
    const zero: IR.Expr = { k: "const", type: I32, value: 0, span: e.span };
    while (first.length < info.rank) first.push(zero);
    const address = `&${this.lvalue({ k: "index", type: scalar(info.dtype), array: view.base, indices: first, span: e.span })}`;
    const rank = (e.type as ArrayType).rank;
    const extents = Array.from({ length: rank }, (_, d) => this.expr(extentThrough(view, d, e.span)).t);
    return [address, ...extents, ...this.strides(info).slice(info.rank - rank)];
  }

  private callExpr(e: IR.CallExpr): Out {
    const name = this.m.functions.get(e.fn);
    if (!name) throw new CudaGenError(`call of unknown device function '${e.fn}'`, e.span);
    const args = e.args.flatMap((a) =>
      a.k === "var" && a.type.kind === "array" ? this.arrayArgs(a) : a.k === "intrinsic" && a.name === "arrayView" ? this.viewArgs(a) : [this.expr(a).t],
    );
    return call(name, args);
  }

  private intrinsic(e: IR.IntrinsicExpr): Out {
    // Views (ir/views.ts): the element `offset + j` of the base; the simulator checks j against the view.
    if (e.name === "viewIndex") {
      const [j, , offset] = e.args;
      return offset!.k === "const" && offset!.value === 0 ? this.expr(j!) : bin(this.expr(offset!), "+", this.expr(j!), P.add);
    }
    if (e.name === "arrayView") throw new CudaGenError(`the view '${e.view?.name}' can only be passed to a device function here`, e.span);
    const record = intrinsicRecord(e.name);
    const dtype = e.type.kind === "scalar" ? e.type.dtype : "i32";
    // An f16 result of a libm function computes in f32 (which holds every f16 exactly) and rounds once
    // to f16 — correctly rounded for sqrt, within the documented tolerance for the transcendental ones
    // (docs/kernel-language.md). Records with half instructions (fma, abs) or that move an f16's bits
    // (shuffles, match) see the f16 types themselves.
    if (dtype === "f16" && record.half !== "native") {
      const args = e.args.map((a): IR.Expr => ({ k: "convert", type: F32, value: a, span: a.span }));
      return call("cs_half", [this.intrinsic({ ...e, type: F32, args }).t]);
    }
    const args = e.args.map((a) => this.expr(a));
    try {
      return record.cuda({
        args,
        t: args.map((a) => a.t),
        dtype,
        argDTypes: e.args.map((a) => (a.type.kind === "scalar" ? a.type.dtype : "i32")),
        helper: (name) => this.m.helpers.add(name as HelperName),
        declare: (text, gpuOnly = false) => {
          if (!this.m.declarations.has(text)) this.m.declarations.set(text, gpuOnly);
        },
        gridWorkspace: this.gridWorkspace,
      });
    } catch (err) {
      throw new CudaGenError(err instanceof Error ? err.message : String(err), e.span);
    }
  }

  private atomic(e: IR.AtomicExpr): Out {
    const d = e.type.dtype;
    const addr = `&${this.lvalue({ k: "index", type: e.type, array: e.array, indices: e.indices, field: e.field, span: e.span })}`;
    const value = this.expr(e.value);
    if (d === "i64" || d === "u64") return this.atomic64(e, addr, value);
    switch (e.op) {
      case "add":
        if (d === "f64") this.m.helpers.add("atomicAddF64");
        if (d === "f16") this.m.helpers.add("atomicAddF16");
        return call("atomicAdd", [addr, value.t]);
      case "sub":
        if (isFloat(d)) {
          if (d === "f16") this.m.helpers.add("atomicAddF16");
          // No float atomicSub in CUDA: add the negation.
          const v = operand(value, P.unary);
          return call("atomicAdd", [addr, `-${v.startsWith("-") ? `(${v})` : v}`]);
        }
        return call("atomicSub", [addr, value.t]);
      case "and":
        return call("atomicAnd", [addr, value.t]);
      case "or":
        return call("atomicOr", [addr, value.t]);
      case "xor":
        return call("atomicXor", [addr, value.t]);
      case "exch":
        return call("atomicExch", [addr, value.t]);
      case "inc":
        return call("atomicInc", [addr, value.t]);
      case "dec":
        return call("atomicDec", [addr, value.t]);
      case "max":
      case "min":
      case "nanmax":
      case "nanmin": {
        const max = e.op === "max" || e.op === "nanmax";
        if (isFloat(d)) {
          // Numba's NaN rule needs a CAS loop (compiler/src/cuda/prelude.ts).
          const op: FloatMinMaxOp = `${e.op.startsWith("nan") ? "Nan" : ""}${max ? "Max" : "Min"}`;
          this.m.helpers.add(`atomic${op}F${d === "f32" ? "32" : "64"}` as HelperName);
          return call(`cs_atomic${op}`, [addr, value.t]);
        }
        // Integers have no NaN: nanmax/nanmin are max/min, as in Numba.
        return call(max ? "atomicMax" : "atomicMin", [addr, value.t]);
      }
      case "compareAndSwap": {
        if (!e.expected) throw new CudaGenError("compareAndSwap without an expected value", e.span);
        return call("atomicCAS", [addr, this.expr(e.expected).t, value.t]);
      }
    }
  }

  /**
   * `cuda.random.<draw>(states, i)`: the prelude's generator (cuda/random.ts) on the address of row i,
   * `&states[i][0]`, so the row's place comes from the array's own layout.
   */
  private random(e: IR.RandomExpr): Out {
    this.m.helpers.add("xoroshiro128p");
    const zero: IR.Expr = { k: "const", type: scalar("i32"), value: 0, span: e.span };
    const row = this.lvalue({ k: "index", type: scalar("u64"), array: e.states, indices: [e.index, zero], span: e.span });
    return call(RANDOM_CPP_FUNCTIONS[e.draw], [`&${row}`, "0"]);
  }

  private atomic64(e: IR.AtomicExpr, addr: string, value: Out): Out {
    return atomic64Call(e, addr, value, e.expected ? this.expr(e.expected) : undefined);
  }
}

/**
 * CUDA's 64-bit atomics: add, and, or, xor, exch and CAS exist for `unsigned long long` only (an i64
 * goes through it: two's complement makes the bits the same), max/min for both; there is no 64-bit
 * atomicSub, so sub adds the negation.
 */
function atomic64Call(e: IR.AtomicExpr, addr: string, value: Out, expected: Out | undefined): Out {
  const signed = e.type.dtype === "i64";
  const ull = (o: Out) => (signed ? `(unsigned long long)${operand(o, P.unary)}` : o.t);
  const uaddr = signed ? `(unsigned long long*)${addr}` : addr;
  const back = (o: Out): Out => (signed ? cast("long long", o) : o);
  switch (e.op) {
    case "add":
      return back(call("atomicAdd", [uaddr, ull(value)]));
    case "sub":
      return back(call("atomicAdd", [uaddr, `0ull - ${signed ? ull(value) : operand(value, P.unary)}`]));
    case "and":
      return back(call("atomicAnd", [uaddr, ull(value)]));
    case "or":
      return back(call("atomicOr", [uaddr, ull(value)]));
    case "xor":
      return back(call("atomicXor", [uaddr, ull(value)]));
    case "exch":
      return back(call("atomicExch", [uaddr, ull(value)]));
    case "compareAndSwap":
      if (!expected) throw new CudaGenError("compareAndSwap without an expected value", e.span);
      return back(call("atomicCAS", [uaddr, ull(expected), ull(value)]));
    case "max":
    case "nanmax":
      return call("atomicMax", [addr, value.t]);
    case "min":
    case "nanmin":
      return call("atomicMin", [addr, value.t]);
    default:
      throw new CudaGenError(`cuda.atomic.${e.op} on ${e.type.dtype}`, e.span);
  }
}

/** The warp shuffles, by their CUDA names. */
function flip(op: IR.CompareOp): IR.CompareOp {
  return op === "<" ? ">" : op === ">" ? "<" : op === "<=" ? ">=" : op === ">=" ? "<=" : op;
}


// ───────────────────────── the module ─────────────────────────

function reachableDevices(module: IR.IrModule, kernels: readonly IR.IrFunction[]): IR.IrFunction[] {
  const byId = new Map(module.deviceFunctions.map((f) => [f.id, f]));
  const seen = new Set<string>();
  const visit = (f: IR.IrFunction) => {
    for (const c of f.callees) {
      if (seen.has(c)) continue;
      seen.add(c);
      const callee = byId.get(c);
      if (callee) visit(callee);
    }
  };
  kernels.forEach(visit);
  return module.deviceFunctions.filter((f) => seen.has(f.id));
}

function usedConstArrays(fns: readonly IR.IrFunction[]): Set<string> {
  const used = new Set<string>();
  const walk = (body: readonly IR.Stmt[]) => {
    for (const s of body) {
      if (s.k === "constArrayDecl") used.add(s.constName);
      else if (s.k === "if") {
        walk(s.then);
        if (s.else) walk(s.else);
      } else if (s.k === "loop") {
        walk(s.init);
        walk(s.body);
        walk(s.update);
      } else if (s.k === "block") walk(s.body);
    }
  };
  for (const f of fns) walk(f.body);
  return used;
}

/** File name used in `#line` directives: relative to the module's folder, with forward slashes. */
function displayName(moduleFile: string, file: string): string {
  const rel = path.relative(path.dirname(moduleFile), file) || path.basename(file);
  return rel.split(path.sep).join("/");
}

/** ` __launch_bounds__(max, minBlocks)` of a kernel that has `launchBounds` (NVRTC emits `.maxntid`, `.minnctapersm`). */
function launchBoundsAttribute(b: IR.LaunchBounds | undefined): string {
  if (!b) return "";
  return ` __launch_bounds__(${b.maxThreadsPerBlock}${b.minBlocksPerMultiprocessor !== undefined ? `, ${b.minBlocksPerMultiprocessor}` : ""})`;
}

/** Generates the CUDA C++ of a module's kernels (all, or `options.kernels`) and what they reach. */
export function generateCuda(module: IR.IrModule, options: GenerateCudaOptions = {}): GeneratedCuda {
  const directives = options.lineDirectives ?? true;
  const selected = options.kernels ? module.kernels.filter((k) => options.kernels!.includes(k.name)) : [...module.kernels];
  const devices = reachableDevices(module, selected);
  const allDevices = reachableDevices(module, module.kernels);

  // Global names are assigned over the whole module so that they do not depend on the selection.
  const globals = new NameTable(undefined, { moduleScope: true });
  const m: ModuleNames = {
    globals,
    functions: new Map(),
    consts: new Map(),
    helpers: new Set(),
    declarations: new Map(),
    records: new Map(),
    signedIndexArithmetic: options.signedIndexArithmetic ?? false,
    raiseSites: new Map(),
    recursive: recursiveFunctions(module),
    prototypes: [],
  };
  for (const f of [...module.kernels, ...module.deviceFunctions])
    forEachStmt(f.body, (s) => {
      if (s.k === "raise") m.raiseSites.set(raiseSiteKey(s.span), m.raiseSites.size);
    });
  for (const k of module.kernels) m.functions.set(k.id, globals.fresh(k.name, "kernel"));
  for (const c of module.constArrays) {
    m.consts.set(c.name, { name: globals.fresh(c.name), array: c, storage: constStorage(c) });
  }
  for (const f of [...allDevices, ...module.deviceFunctions.filter((f) => !allDevices.includes(f))]) m.functions.set(f.id, globals.fresh(f.name));

  // Functions first (they decide which helpers are needed), laid out after the prelude.
  const bodies: Line[][] = [];
  const kernels: CudaKernel[] = [];
  const printingDevices = new Set<string>();
  const raisingDevices = new Set<string>();
  for (const f of devices) {
    const g = new FunctionGen(m, f);
    g.generate(m.functions.get(f.id)!);
    bodies.push(g.lines);
    if (g.prints) printingDevices.add(f.id);
    if (g.raises) raisingDevices.add(f.id);
  }
  for (const k of selected) {
    const g = new FunctionGen(m, k);
    const symbol = m.functions.get(k.id)!;
    g.generate(symbol);
    bodies.push(g.lines);
    const prints = g.prints || reachableDevices(module, [k]).some((f) => printingDevices.has(f.id));
    const raises = g.raises || reachableDevices(module, [k]).some((f) => raisingDevices.has(f.id));
    const recursionDepth = reachableDevices(module, [k]).some((f) => m.recursive.has(f.id)) ? (k.options.recursionDepth ?? DEFAULT_RECURSION_DEPTH) : undefined;
    kernels.push({ name: k.name, symbol, params: g.params, dynamicShared: g.usesDynamicShared, options: { ...k.options }, prints, span: k.span, ...(raises ? { raises: true } : {}), ...(recursionDepth !== undefined ? { recursionDepth } : {}), ...(callsGridSync(k) ? { cooperative: true } : {}) });
  }

  // Any mention of a complex type (a parameter, a local, an array, a function) needs the structs.
  if (bodies.some((b) => b.some((l) => usesComplex(l.text)))) m.helpers.add("complex");
  const usedConsts = usedConstArrays([...devices, ...selected]);
  const constLines: Line[] = [];
  for (const [constName, c] of m.consts) {
    if (!usedConsts.has(constName)) continue;
    constLines.push(...constArrayLines(c.name, c.array, c.storage, m.helpers));
  }

  // Layout, with #line directives only where the preprocessor's own count would be wrong.
  const out: string[] = [];
  const lineMap: LineMapEntry[] = [];
  let ppFile: string | undefined;
  let ppLine: number | undefined;
  const push = (text: string, span?: IR.Span) => {
    if (span && directives) {
      const shown = displayName(module.file, span.file);
      if (ppFile !== shown || ppLine !== span.line) {
        out.push(`#line ${span.line} ${cString(shown)}`);
        ppFile = shown;
        ppLine = span.line;
      }
    }
    out.push(text);
    if (span) lineMap.push({ generatedLine: out.length, file: span.file, line: span.line });
    if (ppLine !== undefined) ppLine++;
  };
  const sourceName = path.basename(module.file);
  push(`// CUDA C++ generated by CudaScript (codegen ${CODEGEN_VERSION}) from ${sourceName}: edit the TypeScript, not this file.`);
  push(`// Kernel arguments follow docs/abi.md: arrays are a pointer plus one int extent per dimension.`);
  // The half type is defined only for modules that use f16 (in a declaration, a conversion or a literal).
  if ([...bodies.flat(), ...constLines].some((l) => l.text.includes("cs_half"))) m.helpers.add("half");
  for (const helper of preludeFor(m.helpers)) {
    push("");
    for (const l of helper.split("\n")) push(l);
  }
  // What intrinsic records declared (libdevice): the extern functions only for the GPU, whose
  // toolchain links them; the g++ emulation defines them (test/emulation/libdevice_emulation.hpp).
  const declared = [...m.declarations];
  if (declared.some(([, gpuOnly]) => gpuOnly)) {
    push("");
    push("#ifndef CUDASCRIPT_EMULATION");
    for (const [text, gpuOnly] of declared) if (gpuOnly) push(text);
    push("#endif");
  }
  const helpers = declared.filter(([, gpuOnly]) => !gpuOnly);
  if (helpers.length) push("");
  for (const [text] of helpers) push(text);
  if ([...m.records.values()].some(hasComplexFields)) {
    push("");
    for (const t of COMPLEX_FIELD_TYPES) for (const l of t.split("\n")) push(l);
  }
  for (const r of m.records.values()) {
    push("");
    for (const l of recordStructLines(r)) push(l);
  }
  if (constLines.length) push("");
  for (const l of constLines) push(l.text, l.span);
  if (m.prototypes.length) push("");
  for (const p of m.prototypes) push(p);
  for (const body of bodies) {
    push("");
    for (const l of body) push(`${"  ".repeat(l.indent)}${l.text}`, l.span);
  }
  return { source: out.join("\n") + "\n", kernels, lineMap };
}

/** How a console.log argument reaches printf: bools as "true"/"false" (%s), floats promoted to double. */
function printfArgKind(e: IR.Expr): PrintfArgKind {
  if (e.type.kind !== "scalar") return "int";
  // An i64/u64 takes 8 bytes, as a double does.
  return e.type.dtype === "bool" ? "string" : isFloat(e.type.dtype) || e.type.dtype === "i64" || e.type.dtype === "u64" ? "double" : "int";
}

/** The shape of a constant array (IR from before N-D constants has none: it is 1-D). */
function constShape(c: IR.ConstArray): readonly number[] {
  return c.shape ?? [c.values.length];
}

/**
 * How a constant array is stored. `plain`: C++ literals of its type. `union`: f32/f64/c64/c128 arrays
 * holding NaN or infinity, whose literals would need a function call (`__int_as_float`), which a
 * `__constant__` initialiser cannot have: bit patterns in a union read through `.value`. `half`: f16
 * arrays are their exact bits (`unsigned short`), read through a `cs_half` lvalue at the same address,
 * since cs_half's constructors run PTX and so cannot initialise constant memory either.
 */
type ConstStorage = "plain" | "union" | "half";

/** A constant value as a number (serialized IR spells NaN/infinity and bigints as strings, js/artifact.ts). */
function constNumber(v: number | bigint | string): number {
  return Number(v);
}

function constStorage(c: IR.ConstArray): ConstStorage {
  if (c.dtype === "f16") return "half";
  const float = c.dtype === "f32" || c.dtype === "f64" || isComplex(c.dtype);
  return float && c.values.some((v) => !Number.isFinite(constNumber(v))) ? "union" : "plain";
}

/** The element lvalue `element` (e.g. `K[i][j]`) of a constant array stored as `storage`. */
function constElement(element: string, storage: ConstStorage): string {
  if (storage === "union") return `${element}.value`;
  if (storage === "half") return `(*(cs_half*)&${element})`;
  return element;
}

function f32BitsHex(v: number): string {
  const dv = new DataView(new ArrayBuffer(4));
  dv.setFloat32(0, v);
  return dv.getUint32(0).toString(16);
}
function f64BitsHex(v: number): string {
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, v);
  return dv.getBigUint64(0).toString(16);
}
function f16BitsHex(v: number): string {
  return f16Bits(v).toString(16);
}

/** One initialiser per element (a complex element is one, of its two parts). */
function constItems(c: IR.ConstArray, storage: ConstStorage, helpers: Set<HelperName>): { type: string; items: string[] } {
  const values = c.values as readonly (number | bigint | string)[];
  if (storage === "half") return { type: "unsigned short", items: values.map((v) => `0x${f16BitsHex(constNumber(v))}`) };
  if (isComplex(c.dtype)) {
    helpers.add("complex");
    const c64 = c.dtype === "c64";
    const items: string[] = [];
    for (let k = 0; k < values.length; k += 2) {
      const re = constNumber(values[k]!), im = constNumber(values[k + 1]!);
      if (storage === "plain") items.push(`{${literal(complexPart(c.dtype), re).text}, ${literal(complexPart(c.dtype), im).text}}`);
      // c64: one 64-bit word, re in its low 32 bits (little-endian, as the struct lies in memory).
      else if (c64) items.push(`{0x${f32BitsHex(im)}${f32BitsHex(re).padStart(8, "0")}ull}`);
      else items.push(`{{0x${f64BitsHex(re)}ull, 0x${f64BitsHex(im)}ull}}`);
    }
    if (storage === "union") helpers.add("complexBits");
    return { type: storage === "union" ? `cs_${c.dtype}_bits` : `cs_${c.dtype}`, items };
  }
  if (storage === "union") {
    const f32 = c.dtype === "f32";
    helpers.add(f32 ? "f32Bits" : "f64Bits");
    return { type: f32 ? "cs_f32_bits" : "cs_f64_bits", items: values.map((v) => (f32 ? `{0x${f32BitsHex(constNumber(v))}u}` : `{0x${f64BitsHex(constNumber(v))}ull}`)) };
  }
  return { type: cElementType(c.dtype), items: values.map((v) => literal(c.dtype === "bool" ? "u8" : c.dtype, v as number | bigint).text) };
}

function constArrayLines(name: string, c: IR.ConstArray, storage: ConstStorage, helpers: Set<HelperName>): Line[] {
  let { type, items } = constItems(c, storage, helpers);
  const n = items.length;
  // C++ has no zero-length arrays (NVRTC refuses `E[0]`): an empty constant array gets one padding
  // element of storage. Its length stays 0 everywhere (`.length` and bounds come from the value count,
  // see the constArrayDecl case), so a correct kernel never reads the padding.
  // An N-D constant is a C array of its shape, initialised row by row ({{…}, {…}}).
  const shape = constShape(c);
  for (let d = shape.length - 1; d > 0; d--) {
    const rows: string[] = [];
    for (let i = 0; i < items.length; i += shape[d]!) rows.push(`{${items.slice(i, i + shape[d]!).join(", ")}}`);
    items = rows;
  }
  const dims = shape.length === 1 ? `[${Math.max(n, 1)}]` : shape.map((k) => `[${k}]`).join("");
  const head = `__constant__ ${type} ${name}${dims} = {`;
  const one = `${head}${items.join(", ")}};`;
  if (one.length <= 120) return [{ text: one, indent: 0, span: c.span }];
  const lines: Line[] = [{ text: head, indent: 0, span: c.span }];
  let cur = "";
  for (const it of items) {
    if (cur.length + it.length + 2 > 110) {
      lines.push({ text: `  ${cur.trimEnd()}`, indent: 0 });
      cur = "";
    }
    cur += `${it}, `;
  }
  if (cur) lines.push({ text: `  ${cur.trimEnd().replace(/,$/, "")}`, indent: 0 });
  lines.push({ text: "};", indent: 0 });
  return lines;
}
