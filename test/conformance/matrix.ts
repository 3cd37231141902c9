/**
 * The conformance matrix (issues 28 and 30): every operator, compound assignment and conversion on
 * every numeric dtype, and every intrinsic record with a signature (compiler/src/intrinsics/: Math.*,
 * cuda.popc …, all of cuda.libdevice) on every dtype its signature takes, over edge values. The tables
 * below are data and the records are the compiler's own; `matrixKernels` turns them into one kernel per
 * (operation, dtype) — all in ONE source file, so the g++ emulation builds once — and `matrixInputs`
 * gives each kernel its operands: every pair (or, for three operands, every triple of the first edges)
 * of the edge values (shift counts 0…70 and -1 for the right operand of a shift). matrix.test.ts runs
 * them on the simulator and in the g++ emulation of the generated C++ and compares the bits.
 */
import { INTRINSIC_RECORDS, LIBDEVICE_BY_NAME, type IntrinsicRecord } from "@cudascript/compiler/intrinsics";
import { Float16Array } from "cudascript";

export type Dtype = "i16" | "i32" | "u32" | "i64" | "u64" | "f16" | "f32" | "f64";
export type Value = number | bigint;

const I32 = ["i32", "u32"] as const;
const I64 = ["i64", "u64"] as const;
const INTS = [...I32, ...I64] as const;
const FLOATS = ["f16", "f32", "f64"] as const;
export const DTYPES: readonly Dtype[] = [...INTS, ...FLOATS];

/** How a kernel parameter of each dtype is declared, and the host array holding it. */
export const ARRAY_TYPE: Record<Dtype, string> = {
  i16: "Int16Array", i32: "Int32Array", u32: "Uint32Array", i64: "BigInt64Array", u64: "BigUint64Array", f16: "Float16Array", f32: "Float32Array", f64: "Float64Array",
};
const ARRAYS = { Int16Array, Int32Array, Uint32Array, BigInt64Array, BigUint64Array, Float16Array, Float32Array, Float64Array } as const;

const MAX64 = 2n ** 63n - 1n, MIN64 = -(2n ** 63n);
/** Edge values per dtype (stored into the dtype's array, so a value it cannot hold arrives rounded). */
export const EDGES: Record<Dtype, readonly Value[]> = {
  i16: [0, 1, -1, 2, 7, 255, 256, 0x3c00, 0x7bff, 0x7c00, 0x7e00, -0x400, 32767, -32768],
  i32: [0, 1, -1, 2, -2, 7, -7, 2 ** 31 - 1, -(2 ** 31), 2 ** 31 - 2, -(2 ** 31) + 1, 2 ** 24 + 1, -(2 ** 24 + 1), 0x55555555, 46341, 65536],
  u32: [0, 1, 2, 7, 2 ** 32 - 1, 2 ** 32 - 2, 2 ** 31, 2 ** 31 - 1, 2 ** 24 + 1, 0xaaaaaaaa, 65536],
  i64: [0n, 1n, -1n, 2n, -2n, 7n, MAX64, MIN64, MAX64 - 1n, MIN64 + 1n, 2n ** 53n + 1n, -(2n ** 53n + 1n), 2n ** 32n, 2n ** 31n, -(2n ** 31n), 2n ** 24n + 1n, 3037000500n],
  u64: [0n, 1n, 2n, 7n, 2n ** 64n - 1n, 2n ** 63n, MAX64, 2n ** 53n + 1n, 2n ** 32n, 2n ** 32n - 1n, 2n ** 24n + 1n],
  f16: [0, -0, 1, -1, 0.5, -1.5, 3, 0.1, 2048, 65504, -65504, 2 ** -24, -(2 ** -24), 2 ** -14, NaN, Infinity, -Infinity],
  f32: [0, -0, 1, -1, 0.5, -2.5, 3, 0.1, 2 ** 24 - 1, 2 ** 24 + 2, 2 ** 31, -(2 ** 31), 2 ** 32, 3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, 1.1754943508222875e-38, NaN, Infinity, -Infinity],
  f64: [0, -0, 1, -1, 0.5, -2.5, 3, 0.1, 2 ** 24 + 1, 2 ** 53 - 1, 2 ** 53 + 2, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 63, -(2 ** 63), 2 ** 64, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, NaN, Infinity, -Infinity],
};
/** Right operands of a shift: every count 0…70, and -1. */
const COUNTS = [...Array(71).keys(), -1];

/**
 * An operation: `expr` computes the result from `x` and `y` (the operands, `const`s of the dtype), or
 * `update` changes `let r = x` (a compound assignment, ++, --). `out` is the result array's dtype when it
 * is not the operands' (a store into it converts, by the kernel language's rules).
 */
interface Op {
  readonly name: string;
  readonly on: readonly Dtype[];
  readonly expr?: string;
  readonly update?: string;
  readonly out?: Dtype;
  readonly unary?: boolean;
  readonly shift?: boolean;
}
const ALL = DTYPES;
export const OPS: readonly Op[] = [
  { name: "add", expr: "x + y", on: ALL },
  { name: "sub", expr: "x - y", on: ALL },
  { name: "mul", expr: "x * y", on: ALL },
  { name: "div", expr: "x / y", on: [...I64, ...FLOATS] },
  { name: "truediv", expr: "x / y", on: I32, out: "f64" },
  { name: "idiv", expr: "(x / y) | 0", on: ["i32"] },
  { name: "udiv", expr: "Math.trunc(x / y)", on: ["u32"] },
  { name: "rem", expr: "x % y", on: ALL },
  { name: "and", expr: "x & y", on: INTS },
  { name: "or", expr: "x | y", on: INTS },
  { name: "xor", expr: "x ^ y", on: INTS },
  { name: "shl", expr: "x << y", on: INTS, shift: true },
  { name: "shr", expr: "x >> y", on: INTS, shift: true },
  { name: "ushr", expr: "x >>> y", on: I32, shift: true },
  { name: "lt", expr: "x < y ? 1 : 0", on: ALL, out: "i32" },
  { name: "le", expr: "x <= y ? 1 : 0", on: ALL, out: "i32" },
  { name: "gt", expr: "x > y ? 1 : 0", on: ALL, out: "i32" },
  { name: "ge", expr: "x >= y ? 1 : 0", on: ALL, out: "i32" },
  { name: "eq", expr: "x === y ? 1 : 0", on: ALL, out: "i32" },
  { name: "ne", expr: "x !== y ? 1 : 0", on: ALL, out: "i32" },
  { name: "min", expr: "Math.min(x, y)", on: FLOATS },
  { name: "max", expr: "Math.max(x, y)", on: FLOATS },
  { name: "pow", expr: "Math.pow(x, y)", on: FLOATS },
  { name: "neg", expr: "-x", on: ALL, unary: true },
  { name: "bnot", expr: "~x", on: INTS, unary: true },
  { name: "lnot", expr: "!x ? 1 : 0", on: ALL, unary: true, out: "i32" },
  { name: "add_assign", update: "r += y", on: ALL },
  { name: "sub_assign", update: "r -= y", on: ALL },
  { name: "mul_assign", update: "r *= y", on: ALL },
  { name: "div_assign", update: "r /= y", on: [...I64, ...FLOATS] },
  { name: "rem_assign", update: "r %= y", on: ALL },
  { name: "and_assign", update: "r &= y", on: INTS },
  { name: "or_assign", update: "r |= y", on: INTS },
  { name: "xor_assign", update: "r ^= y", on: INTS },
  { name: "shl_assign", update: "r <<= y", on: INTS, shift: true },
  { name: "shr_assign", update: "r >>= y", on: INTS, shift: true },
  { name: "ushr_assign", update: "r >>>= y", on: I32, shift: true },
  { name: "increment", update: "r++", on: ALL, unary: true },
  { name: "decrement", update: "r--", on: ALL, unary: true },
];

/** Conversions: the expression making a value of `to` from `x` by the kind of `x`; the store into the `to` array finishes it. */
type Kind = "int" | "float" | "big";
const kindOf = (d: Dtype): Kind => (d === "i64" || d === "u64" ? "big" : d.startsWith("f") ? "float" : "int");
export const CONVERSIONS: Partial<Record<Dtype, Record<Kind, string>>> = {
  i32: { int: "x", float: "Math.trunc(x)", big: "Number(x)" },
  u32: { int: "x", float: "Math.trunc(x)", big: "Number(x)" },
  i64: { int: "BigInt(x)", float: "BigInt(Math.trunc(x))", big: "BigInt.asIntN(64, x)" },
  u64: { int: "BigInt.asUintN(64, BigInt(x))", float: "BigInt.asUintN(64, BigInt(Math.trunc(x)))", big: "BigInt.asUintN(64, x)" },
  f16: { int: "x", float: "x", big: "Number(x)" },
  f32: { int: "x", float: "x", big: "Number(x)" },
  f64: { int: "x", float: "x", big: "Number(x)" },
};

/** One generated kernel: `a`, `b` and `c` hold its operands, `out` its results. */
export interface MatrixKernel {
  readonly name: string;
  readonly op: string;
  /** The first operand's dtype (`a`). */
  readonly dtype: Dtype;
  readonly out: Dtype;
  readonly shift: boolean;
  readonly unary: boolean;
  /** An intrinsic record's kernel: the call (`Math.sqrt`, `cuda.libdevice.sincos`), every operand's dtype, and the tuple element it stores. */
  readonly record?: { readonly record: IntrinsicRecord; readonly path: string; readonly params: readonly Dtype[]; readonly element?: number };
}

const FLOAT_DTYPES: readonly Dtype[] = FLOATS;

/**
 * The kernels of the intrinsic records: every record with a signature and a JavaScript lowering (a pure
 * function the simulator computes per thread; the warp and barrier operations are held to their
 * semantics by test/simulator/sync-semantics.test.ts), on every dtype its parameter rules take.
 */
export function recordKernels(): MatrixKernel[] {
  const out: MatrixKernel[] = [];
  for (const r of INTRINSIC_RECORDS) {
    if (r.effect !== "pure" || !r.js || r.uniformity === "lane") continue;
    const path = r.paths[0];
    const fn = r.name.startsWith("libdevice.") ? LIBDEVICE_BY_NAME.get(r.name.slice("libdevice.".length)) : undefined;
    if (fn && fn.results.length > 1) continue; // the element records below
    const elementOf = /^libdevice\.(\w+)\[(\d)\]$/.exec(r.name);
    const tuple = elementOf ? LIBDEVICE_BY_NAME.get(elementOf[1]!) : undefined;
    const call = tuple ? `cuda.libdevice.${tuple.name}` : path;
    const sig = r.signatures?.[0];
    if (!call || !sig || sig.params.length === 0) continue;
    const rules = sig.params.map((p) => p.rule);
    let instances: Dtype[][];
    if (rules.every((x) => x === "float")) instances = FLOAT_DTYPES.map((d) => rules.map(() => d));
    else if (rules.every((x) => x === "bits")) instances = (["i32", "u32", "i64", "u64"] as Dtype[]).map((d) => [d]);
    else if (rules.every((x): x is Dtype => x in ARRAY_TYPE)) instances = [rules as Dtype[]];
    else continue;
    for (const params of instances) {
      const result = sig.result === "T" ? (rules[0] === "bits" ? (params[0] === "i64" || params[0] === "u64" ? "u64" : "u32") : params[0]!) : sig.result;
      if (result === "void" || !(result in ARRAY_TYPE)) continue;
      const element = elementOf ? Number(elementOf[2]) : undefined;
      const name = `${call.replace(/\W/g, "_")}${element === undefined ? "" : `_${element}`}_${params.join("_")}`;
      out.push({ name, op: call, dtype: params[0]!, out: result as Dtype, shift: false, unary: params.length === 1, record: { record: r, path: call, params, element } });
    }
  }
  return out;
}

export function matrixKernels(): MatrixKernel[] {
  const kernels: MatrixKernel[] = [];
  for (const op of OPS)
    for (const d of op.on) kernels.push({ name: `${op.name}_${d}`, op: op.name, dtype: d, out: op.out ?? d, shift: !!op.shift, unary: !!op.unary });
  for (const to of DTYPES)
    for (const from of DTYPES) if (from !== to) kernels.push({ name: `to_${to}_from_${from}`, op: `to_${to}`, dtype: from, out: to, shift: false, unary: true });
  kernels.push(...recordKernels());
  return kernels;
}

/** The operand dtypes of a kernel (a, b, c). */
export function operandDtypes(k: MatrixKernel): readonly [Dtype, Dtype, Dtype] {
  const p = k.record?.params ?? [k.dtype, k.dtype];
  return [p[0]!, p[1] ?? p[0]!, p[2] ?? p[0]!];
}

function body(k: MatrixKernel): string {
  if (k.record) {
    const args = ["x", "y", "z"].slice(0, k.record.params.length).join(", ");
    if (k.record.element === undefined) return `out[i] = ${k.record.path}(${args});`;
    const names = LIBDEVICE_BY_NAME.get(k.record.path.slice("cuda.libdevice.".length))!.results.map((_, j) => `r${j}`);
    return `const [${names.join(", ")}] = ${k.record.path}(${args});\n    out[i] = r${k.record.element};`;
  }
  if (k.op.startsWith("to_")) return `out[i] = ${CONVERSIONS[k.out]![kindOf(k.dtype)]};`;
  const op = OPS.find((o) => o.name === k.op)!;
  return op.update ? `let r = x;\n    ${op.update};\n    out[i] = r;` : `out[i] = ${op.expr};`;
}

/** The kernel source file: every kernel of the matrix. */
export function matrixSource(kernels: readonly MatrixKernel[]): string {
  const parts = [`import { cuda, Float16Array } from "cudascript";\n`];
  for (const k of kernels) {
    const [A, B, C] = operandDtypes(k).map((d) => ARRAY_TYPE[d]);
    const n = k.record ? k.record.params.length : k.unary ? 1 : 2;
    const operands = ["x = a[i]", "y = b[i]", "z = c[i]"].slice(0, n).join(", ");
    parts.push(`export const ${k.name} = cuda.jit((a: ${A}, b: ${B}, c: ${C}, out: ${ARRAY_TYPE[k.out]}) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const ${operands};
    ${body(k)}
  }
});
`);
  }
  return parts.join("\n");
}

type HostArray = InstanceType<(typeof ARRAYS)[keyof typeof ARRAYS]>;
export interface MatrixInputs {
  a: HostArray;
  b: HostArray;
  c: HostArray;
  out: HostArray;
}

function hostArray(d: Dtype, values: readonly Value[]): HostArray {
  const big = d === "i64" || d === "u64";
  const wrapped = values.map((v) => (big ? (d === "i64" ? BigInt.asIntN(64, BigInt(v)) : BigInt.asUintN(64, BigInt(v))) : Number(v)));
  return (ARRAYS[ARRAY_TYPE[d] as keyof typeof ARRAYS] as unknown as { from(v: readonly Value[]): HostArray }).from(wrapped);
}

/** The operand pairs of a kernel: every (edge, edge), or (edge, count) for a shift, or the edges alone for a unary operation. */
export function matrixInputs(k: MatrixKernel): MatrixInputs {
  if (k.record) return recordInputs(k);
  const edges = EDGES[k.dtype];
  const right = k.shift ? COUNTS.map((c) => (k.dtype === "i64" || k.dtype === "u64" ? BigInt(c) : c)) : edges;
  const a = k.unary ? [...edges] : edges.flatMap((x) => right.map(() => x));
  const b = k.unary ? [...edges] : edges.flatMap(() => right);
  return { a: hostArray(k.dtype, a), b: hostArray(k.dtype, b), c: hostArray(k.dtype, a), out: hostArray(k.out, a.map(() => 0)) };
}

/** A record's operands: its dtypes' edges, every pair for two, every triple of the first 9 edges for three. */
function recordInputs(k: MatrixKernel): MatrixInputs {
  const params = k.record!.params;
  const [da, db, dc] = operandDtypes(k);
  let rows: Value[][] = EDGES[params[0]!].map((v) => [v]);
  for (let p = 1; p < params.length; p++) {
    const edges = params.length === 3 ? EDGES[params[p]!].slice(0, 9) : EDGES[params[p]!];
    rows = (params.length === 3 ? rows.slice(0, 9 ** p) : rows).flatMap((row) => edges.map((v) => [...row, v]));
  }
  const col = (j: number, d: Dtype) => hostArray(d, rows.map((r) => r[j] ?? r[0]!).map((v) => (typeof v === "bigint" && d !== "i64" && d !== "u64" ? Number(v) : v)));
  return { a: col(0, da), b: col(1, db), c: col(2, dc), out: hostArray(k.out, rows.map(() => 0)) };
}
