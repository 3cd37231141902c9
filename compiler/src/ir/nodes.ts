/**
 * The typed kernel IR: one tree per kernel or device function, produced once by the front end and read
 * by every backend (CUDA C++, the simulator's JavaScript) and by the checker. No backend re-reads
 * TypeScript. Every node has a source span; every expression has a resolved type, and the front end has
 * already made all implicit conversions explicit (`convert` / `truthy` nodes), so operand types of a
 * `binary` node always equal its result type.
 */
import type { ArrayType, DType, IntDType, ScalarType, Type } from "./types";
import type { RecordField } from "../dtypes/records";

/** A source range: file path, [start, end) character offsets, and 1-based line/column of start. */
export interface Span {
  readonly file: string;
  readonly start: number;
  readonly end: number;
  readonly line: number;
  readonly col: number;
}

/** A local variable or parameter. `id` is unique within its function; `name` is the source name. */
export interface Var {
  readonly id: number;
  readonly name: string;
  type: Type;
  readonly isParam: boolean;
  /** `let` (or a parameter that is assigned); `const` locals are immutable. */
  readonly mutable: boolean;
  readonly span: Span;
}

export type SpecialRegister = "threadIdx" | "blockIdx" | "blockDim" | "gridDim" | "grid" | "gridsize" | "laneid" | "warpsize";
export type Axis = "x" | "y" | "z";

export type UnaryOp = "-" | "~" | "!";
export type ArithOp = "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" | "<<" | ">>" | ">>>";
export type CompareOp = "<" | "<=" | ">" | ">=" | "==" | "!=";

interface ExprBase {
  readonly span: Span;
}

export interface ConstExpr extends ExprBase {
  readonly k: "const";
  readonly type: ScalarType;
  /** A bigint for i64/u64 (exact), a number or boolean otherwise. */
  readonly value: number | boolean | bigint;
}
export interface VarExpr extends ExprBase {
  readonly k: "var";
  readonly type: Type;
  readonly v: Var;
}
export interface SpecialExpr extends ExprBase {
  readonly k: "special";
  readonly type: ScalarType;
  readonly reg: SpecialRegister;
  /** Axis for the Dim3 registers and for `grid`/`gridsize` components; `x` for laneid/warpsize. */
  readonly axis: Axis;
}
export interface UnaryExpr extends ExprBase {
  readonly k: "unary";
  readonly type: ScalarType;
  readonly op: UnaryOp;
  readonly operand: Expr;
}
/**
 * Arithmetic and bitwise operations; both operands have exactly `type`. `/` on an integer type is
 * truncating division (from `(a / b) | 0` or `Math.trunc(a / b)`); on a float type, IEEE division.
 * Shifts use only the low 5 bits of the right operand, as JavaScript and PTX's `shl/shr` with clamp do.
 */
export interface BinaryExpr extends ExprBase {
  readonly k: "binary";
  readonly type: ScalarType;
  readonly op: ArithOp;
  readonly left: Expr;
  readonly right: Expr;
}
/** A comparison; both operands have `operandType`, the result is bool. */
export interface CompareExpr extends ExprBase {
  readonly k: "compare";
  readonly type: ScalarType;
  readonly op: CompareOp;
  readonly operandType: ScalarType;
  readonly left: Expr;
  readonly right: Expr;
}
/** Short-circuit `&&` / `||` on bools. */
export interface LogicalExpr extends ExprBase {
  readonly k: "logical";
  readonly type: ScalarType;
  readonly op: "&&" | "||";
  readonly left: Expr;
  readonly right: Expr;
}
export interface SelectExpr extends ExprBase {
  readonly k: "select";
  readonly type: ScalarType;
  readonly cond: Expr;
  readonly then: Expr;
  readonly else: Expr;
}
/**
 * A numeric conversion to `type`. Float to integer truncates toward zero (out-of-range values are
 * undefined on the GPU; the simulator wraps like JavaScript's ToInt32). Integer to narrower integer wraps.
 */
export interface ConvertExpr extends ExprBase {
  readonly k: "convert";
  readonly type: ScalarType;
  readonly value: Expr;
}
/** JavaScript truthiness of a number: not zero and not NaN. */
export interface TruthyExpr extends ExprBase {
  readonly k: "truthy";
  readonly type: ScalarType;
  readonly value: Expr;
}
/**
 * An element read `a[i]`, `a[i][j]`, … with one index per dimension (all i32/u32). On an array of
 * records (ArrayType.record) it is always a field, `a[i].x`: `field` is set and `type` is the field's.
 */
export interface IndexExpr extends ExprBase {
  readonly k: "index";
  readonly type: ScalarType;
  readonly array: VarExpr;
  readonly indices: readonly Expr[];
  readonly field?: RecordField;
}
/** `a.length` (dim 0) or `a.shape[dim]`; i32. */
export interface ShapeExpr extends ExprBase {
  readonly k: "shape";
  readonly type: ScalarType;
  readonly array: VarExpr;
  readonly dim: number;
}
/** A call of a device function by its id (see `IrFunction.id`). */
export interface CallExpr extends ExprBase {
  readonly k: "call";
  readonly type: Type;
  readonly fn: string;
  readonly args: readonly Expr[];
}

export type MathFunction =
  | "sqrt" | "cbrt" | "exp" | "expm1" | "log" | "log2" | "log10" | "log1p" | "sin" | "cos" | "tan" | "asin" | "acos"
  | "atan" | "atan2" | "sinh" | "cosh" | "tanh" | "asinh" | "acosh" | "atanh" | "pow" | "hypot" | "floor" | "ceil"
  | "round" | "trunc" | "abs" | "min" | "max" | "sign" | "fma"
  /** Round half to even (C's rint in the default rounding mode): cuda.fp16.hrint. */
  | "rint";
export type BitFunction = "popc" | "brev" | "clz" | "ffs";
export type BarrierFunction = "syncthreads" | "syncthreadsCount" | "syncthreadsAnd" | "syncthreadsOr" | "syncwarp";
export type FenceFunction = "threadfence" | "threadfenceBlock" | "threadfenceSystem";
export type WarpFunction = "shflSync" | "shflUpSync" | "shflDownSync" | "shflXorSync" | "allSync" | "anySync" | "ballotSync" | "activemask"
  | "eqSync" | "matchAnySync" | "matchAllSync" | "lanemaskLt";

/**
 * Complex numbers (docs/kernel-language.md#complex-numbers-c64-c128): `complex` builds one from its two
 * parts (already of the part type), `complexRe`/`complexIm` read them, `complexConvert` is c64 <-> c128;
 * the rest are `cuda.complex.<name>` with every operand already of the result's complex dtype
 * (`complexAbs`/`complexArg` return the part type, `complexEq` bool, `complexRect` takes two reals).
 */
export type ComplexFunction =
  | "complex" | "complexRe" | "complexIm" | "complexConvert" | "complexAdd" | "complexSub" | "complexMul" | "complexDiv"
  | "complexNeg" | "complexConj" | "complexAbs" | "complexArg" | "complexExp" | "complexLog" | "complexSqrt" | "complexSin"
  | "complexCos" | "complexRect" | "complexEq";

/**
 * `g.sync()` of `const g = cuda.cg.thisGrid()` (docs/kernel-language.md#grid-synchronisation): a barrier
 * of every thread of the grid. Only in a kernel's own body; its kernel is launched cooperatively.
 */
export type GridFunction = "gridSync";

/**
 * Array views (docs/kernel-language.md#views), lowered by the front end (frontend/lower-views.ts) to
 * the base array plus element offsets, so every backend indexes the base storage (and the sanitizer's
 * shadow of it) directly:
 * - `viewIndex(j, length, offset)`: the element index `offset + j` of the base's last dimension, after
 *   checking `0 <= j < length` against the VIEW's length (the simulator reports the view's name);
 *   i32. Only ever an index of an `index`/`atomic` node.
 * - `arrayView(base, ...lead, offset?, length?)`: a view passed to a device function (its `type` is the
 *   view's ArrayType): the rows `lead` of `base` (one index per leading dimension), then, when
 *   `view.sub` is set, the elements [offset, offset + length) of that 1-D row. Only ever a call argument.
 */
export type ViewFunction = "viewIndex" | "arrayView";

/** Numba's `cuda.libdevice.<name>`, and one element of a tuple result: `libdevice.sincos[1]` (intrinsics/libdevice.ts). */
export type LibdeviceFunctionName = `libdevice.${string}`;

export type IntrinsicName = MathFunction | BitFunction | BarrierFunction | FenceFunction | WarpFunction | ComplexFunction | GridFunction | ViewFunction | LibdeviceFunctionName;

/** What a view intrinsic needs beyond its arguments (see ViewFunction). */
export interface ViewOf {
  /** The view's source name, for out-of-bounds reports. */
  readonly name: string;
  /** arrayView: the leading indices taken (rows) and whether offset/length follow. */
  readonly lead?: number;
  readonly sub?: boolean;
}

/** A built-in operation with value arguments; operand types already converted to what it takes. */
export interface IntrinsicExpr extends ExprBase {
  readonly k: "intrinsic";
  readonly type: Type;
  readonly name: IntrinsicName;
  readonly args: readonly Expr[];
  /** Only on the view intrinsics. */
  readonly view?: ViewOf;
}

export type AtomicOp = "add" | "sub" | "and" | "or" | "xor" | "inc" | "dec" | "exch" | "max" | "min" | "nanmax" | "nanmin" | "compareAndSwap";

/** `cuda.atomic.op(array, index, value)`; returns the old value. `expected` only for compareAndSwap. */
export interface AtomicExpr extends ExprBase {
  readonly k: "atomic";
  readonly type: ScalarType;
  readonly op: AtomicOp;
  readonly array: VarExpr;
  readonly indices: readonly Expr[];
  readonly value: Expr;
  readonly expected?: Expr;
  /** An atomic on a numeric field of a record array element: `cuda.atomic.add(ps, [i, "x"], v)`. */
  readonly field?: RecordField;
}

/** The `cuda.random` draws (ir/random.ts lists them); declared here because the runtime's public types reach this file only. */
export type RandomDraw = "xoroshiro128pUniformFloat32" | "xoroshiro128pUniformFloat64" | "xoroshiro128pNormalFloat32" | "xoroshiro128pNormalFloat64";

/**
 * `cuda.random.<draw>(states, index)` (ir/random.ts): the next draw of state `index` of `states`, a
 * `[n, 2]` u64 array. Not a pure intrinsic: like an atomic it reads and writes memory (the row
 * `states[index][0..1]`), so it is never merged, hoisted, duplicated or treated as uniform. `index` is
 * i32, u32 or i64.
 */
export interface RandomExpr extends ExprBase {
  readonly k: "random";
  readonly type: ScalarType;
  readonly draw: RandomDraw;
  readonly states: VarExpr;
  readonly index: Expr;
}

export type Expr =
  | ConstExpr
  | VarExpr
  | SpecialExpr
  | UnaryExpr
  | BinaryExpr
  | CompareExpr
  | LogicalExpr
  | SelectExpr
  | ConvertExpr
  | TruthyExpr
  | IndexExpr
  | ShapeExpr
  | CallExpr
  | IntrinsicExpr
  | AtomicExpr
  | RandomExpr;

interface StmtBase {
  readonly span: Span;
}

/** A scalar local: `let x = …` / `const x = …`. */
export interface DeclStmt extends StmtBase {
  readonly k: "decl";
  readonly v: Var;
  readonly init?: Expr;
}
/** `cuda.shared.array(shape, dtype)` / `cuda.local.array(...)` bound to `v` (whose type is the ArrayType). */
export interface ArrayDeclStmt extends StmtBase {
  readonly k: "arrayDecl";
  readonly v: Var;
  readonly arrayType: ArrayType;
}
/** `cuda.const.arrayLike(NAME)`: `v` views the module constant array `constName` of the IrModule. */
export interface ConstArrayDeclStmt extends StmtBase {
  readonly k: "constArrayDecl";
  readonly v: Var;
  readonly constName: string;
}
export interface AssignStmt extends StmtBase {
  readonly k: "assign";
  readonly target: VarExpr | IndexExpr;
  readonly value: Expr;
}
export interface IfStmt extends StmtBase {
  readonly k: "if";
  readonly cond: Expr;
  readonly then: readonly Stmt[];
  readonly else?: readonly Stmt[];
}
/**
 * Every loop: `for` (init; cond; update), `while` (cond), `do … while` (`testFirst` false).
 * A missing `cond` loops until `break`/`return`. `continue` runs `update` before the next test.
 */
export interface LoopStmt extends StmtBase {
  readonly k: "loop";
  readonly init: readonly Stmt[];
  readonly cond?: Expr;
  readonly update: readonly Stmt[];
  readonly body: readonly Stmt[];
  readonly testFirst: boolean;
}
export interface BreakStmt extends StmtBase {
  readonly k: "break";
}
export interface ContinueStmt extends StmtBase {
  readonly k: "continue";
}
export interface ReturnStmt extends StmtBase {
  readonly k: "return";
  readonly value?: Expr;
}
export interface ExprStmt extends StmtBase {
  readonly k: "expr";
  readonly expr: Expr;
}
/** `console.log(...)` → CUDA printf. `format` uses printf conversions matching each arg's type. */
export interface PrintStmt extends StmtBase {
  readonly k: "print";
  readonly format: string;
  readonly args: readonly Expr[];
}
/**
 * `throw new Error(…)`, or a failed `console.assert(cond, …)`: the thread stops and the launch fails on the
 * host with CSR085 carrying the message (its `format` printf-like as a PrintStmt's, with `args`), the
 * kernel, the place, block and thread. The first thread to raise is the one reported.
 */
export interface RaiseStmt extends StmtBase {
  readonly k: "raise";
  readonly format: string;
  readonly args: readonly Expr[];
}
/** A nested `{ … }` scope. */
export interface BlockStmt extends StmtBase {
  readonly k: "block";
  readonly body: readonly Stmt[];
}

export type Stmt =
  | DeclStmt
  | ArrayDeclStmt
  | ConstArrayDeclStmt
  | AssignStmt
  | IfStmt
  | LoopStmt
  | BreakStmt
  | ContinueStmt
  | ReturnStmt
  | ExprStmt
  | PrintStmt
  | RaiseStmt
  | BlockStmt;

export interface KernelOptions {
  fastmath?: boolean;
  /** Let the compiler contract `a * b + c` into fused multiply-adds (implied by fastmath; off by default). */
  fma?: boolean;
  maxRegisters?: number;
  /** `__launch_bounds__`: no launch may have more threads per block than this bound (CUDA refuses it). */
  launchBounds?: LaunchBounds;
  lineinfo?: boolean;
  debug?: boolean;
  cache?: boolean;
  /** How many nested calls of recursive device functions a thread may make (ir/recursion.ts; default 64). */
  recursionDepth?: number;
}

/** `cuda.jit(fn, { launchBounds: max | [max, minBlocks] })`, like Numba's `launch_bounds`. */
export interface LaunchBounds {
  readonly maxThreadsPerBlock: number;
  /** Blocks the compiler should keep resident per multiprocessor (it limits registers to fit them). */
  readonly minBlocksPerMultiprocessor?: number;
}

/** What the host runtime needs to check and pack one kernel argument. */
export interface ParamSignature {
  readonly name: string;
  readonly kind: "scalar" | "array";
  readonly dtype: DType;
  /** 0 for scalars. */
  readonly rank: 0 | 1 | 2 | 3;
  /**
   * An array of records: its name and fields (dtype is then "u8": the array is passed as its bytes).
   * The host checks a record array's fields against these at launch (CSR080).
   */
  readonly record?: { readonly name: string; readonly fields: readonly { readonly name: string; readonly dtype: DType }[]; readonly size: number; readonly byValue?: true };
}

export interface IrFunction {
  readonly kind: "kernel" | "device";
  /** Unique across a program: `<file>#<name>`. */
  readonly id: string;
  /** Source name (the `const` it is bound to). */
  readonly name: string;
  readonly params: readonly Var[];
  readonly returnType: Type;
  readonly body: readonly Stmt[];
  readonly span: Span;
  /** Kernel options from `cuda.jit(fn, { … })`. */
  readonly options: KernelOptions;
  /** Ids of the device functions this one calls directly. */
  readonly callees: readonly string[];
  /** Float type that unsuffixed float literals take where nothing else decides (see docs/kernel-language.md). */
  readonly defaultFloat: "f32" | "f64";
}

/** A module-level constant array used through `cuda.const.arrayLike`. */
export interface ConstArray {
  readonly name: string;
  readonly dtype: DType;
  /**
   * Row-major elements: numbers (f16 ones already rounded to f16), bigints for i64/u64 (decimal strings
   * in serialized IR, js/artifact.ts), and for c64/c128 the interleaved parts (re, im), two per element.
   */
  readonly values: readonly (number | bigint)[];
  /** `[element count]`, or the 2-D/3-D shape of a `cuda.ndarray` constant. */
  readonly shape: readonly number[];
  readonly span: Span;
}

/**
 * Everything needed to compile the kernels of one source file: its kernels, and every device
 * function they reach (from this or imported files), callees before callers.
 */
export interface IrModule {
  readonly file: string;
  readonly kernels: readonly IrFunction[];
  readonly deviceFunctions: readonly IrFunction[];
  readonly constArrays: readonly ConstArray[];
}

export function kernelSignature(fn: IrFunction): ParamSignature[] {
  return fn.params.map((p) =>
    p.type.kind === "array"
      ? p.type.record
        ? { name: p.name, kind: "array", dtype: p.type.dtype, rank: p.type.rank, record: { name: p.type.record.name, fields: p.type.record.layout.fields.map((f) => ({ name: f.name, dtype: f.dtype })), size: p.type.record.layout.size, ...(p.type.byValue ? { byValue: true as const } : {}) } }
        : { name: p.name, kind: "array", dtype: p.type.dtype, rank: p.type.rank }
      : { name: p.name, kind: "scalar", dtype: p.type.kind === "scalar" ? p.type.dtype : "i32", rank: 0 },
  );
}

export type { ArrayType, DType, IntDType, ScalarType, Type };
