/**
 * The arithmetic conformance matrix (issue 28): every operator, compound assignment and conversion on
 * every numeric dtype, over edge values. The tables below are data; `matrixKernels` turns them into
 * one kernel per (operation, dtype) — all in ONE source file, so the g++ emulation builds once — and
 * `matrixInputs` gives each kernel its operands: every pair of the dtype's edge values (shift counts
 * 0…70 and -1 for the right operand of a shift). matrix.test.ts runs them on the simulator and in the
 * g++ emulation of the generated C++ and compares the bits.
 */
import { Float16Array } from "cudascript";

export type Dtype = "i32" | "u32" | "i64" | "u64" | "f16" | "f32" | "f64";
export type Value = number | bigint;

const I32 = ["i32", "u32"] as const;
const I64 = ["i64", "u64"] as const;
const INTS = [...I32, ...I64] as const;
const FLOATS = ["f16", "f32", "f64"] as const;
export const DTYPES: readonly Dtype[] = [...INTS, ...FLOATS];

/** How a kernel parameter of each dtype is declared, and the host array holding it. */
export const ARRAY_TYPE: Record<Dtype, string> = {
  i32: "Int32Array", u32: "Uint32Array", i64: "BigInt64Array", u64: "BigUint64Array", f16: "Float16Array", f32: "Float32Array", f64: "Float64Array",
};
const ARRAYS = { Int32Array, Uint32Array, BigInt64Array, BigUint64Array, Float16Array, Float32Array, Float64Array } as const;

const MAX64 = 2n ** 63n - 1n, MIN64 = -(2n ** 63n);
/** Edge values per dtype (stored into the dtype's array, so a value it cannot hold arrives rounded). */
export const EDGES: Record<Dtype, readonly Value[]> = {
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
export const CONVERSIONS: Record<Dtype, Record<Kind, string>> = {
  i32: { int: "x", float: "Math.trunc(x)", big: "Number(x)" },
  u32: { int: "x", float: "Math.trunc(x)", big: "Number(x)" },
  i64: { int: "BigInt(x)", float: "BigInt(Math.trunc(x))", big: "BigInt.asIntN(64, x)" },
  u64: { int: "BigInt.asUintN(64, BigInt(x))", float: "BigInt.asUintN(64, BigInt(Math.trunc(x)))", big: "BigInt.asUintN(64, x)" },
  f16: { int: "x", float: "x", big: "Number(x)" },
  f32: { int: "x", float: "x", big: "Number(x)" },
  f64: { int: "x", float: "x", big: "Number(x)" },
};

/** One generated kernel: `a` and `b` hold its operands, `out` its results. */
export interface MatrixKernel {
  readonly name: string;
  readonly op: string;
  readonly dtype: Dtype;
  readonly out: Dtype;
  readonly shift: boolean;
  readonly unary: boolean;
}

export function matrixKernels(): MatrixKernel[] {
  const kernels: MatrixKernel[] = [];
  for (const op of OPS)
    for (const d of op.on) kernels.push({ name: `${op.name}_${d}`, op: op.name, dtype: d, out: op.out ?? d, shift: !!op.shift, unary: !!op.unary });
  for (const to of DTYPES)
    for (const from of DTYPES) if (from !== to) kernels.push({ name: `to_${to}_from_${from}`, op: `to_${to}`, dtype: from, out: to, shift: false, unary: true });
  return kernels;
}

function body(k: MatrixKernel): string {
  if (k.op.startsWith("to_")) return `out[i] = ${CONVERSIONS[k.out][kindOf(k.dtype)]};`;
  const op = OPS.find((o) => o.name === k.op)!;
  return op.update ? `let r = x;\n    ${op.update};\n    out[i] = r;` : `out[i] = ${op.expr};`;
}

/** The kernel source file: every kernel of the matrix. */
export function matrixSource(kernels: readonly MatrixKernel[]): string {
  const parts = [`import { cuda, Float16Array } from "cudascript";\n`];
  for (const k of kernels) {
    const T = ARRAY_TYPE[k.dtype];
    parts.push(`export const ${k.name} = cuda.jit((a: ${T}, b: ${T}, out: ${ARRAY_TYPE[k.out]}) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const x = a[i]${k.unary ? "" : ", y = b[i]"};
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
  out: HostArray;
}

function hostArray(d: Dtype, values: readonly Value[]): HostArray {
  const big = d === "i64" || d === "u64";
  const wrapped = values.map((v) => (big ? (d === "i64" ? BigInt.asIntN(64, BigInt(v)) : BigInt.asUintN(64, BigInt(v))) : Number(v)));
  return (ARRAYS[ARRAY_TYPE[d] as keyof typeof ARRAYS] as unknown as { from(v: readonly Value[]): HostArray }).from(wrapped);
}

/** The operand pairs of a kernel: every (edge, edge), or (edge, count) for a shift, or the edges alone for a unary operation. */
export function matrixInputs(k: MatrixKernel): MatrixInputs {
  const edges = EDGES[k.dtype];
  const right = k.shift ? COUNTS.map((c) => (k.dtype === "i64" || k.dtype === "u64" ? BigInt(c) : c)) : edges;
  const a = k.unary ? [...edges] : edges.flatMap((x) => right.map(() => x));
  const b = k.unary ? [...edges] : edges.flatMap(() => right);
  return { a: hostArray(k.dtype, a), b: hostArray(k.dtype, b), out: hostArray(k.out, a.map(() => 0)) };
}
