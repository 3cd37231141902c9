/**
 * Layouts of device-array views (Numba's `reshape`, `ravel`, `d[a:b]`, `d[i]`, `d.T`): pure functions
 * from a shape and its ELEMENT strides (layout.ts) to the view's shape, strides and element offset, or
 * a coded error where a view is impossible.
 *
 * Arrays are C-contiguous, F-contiguous or strided (a transpose, a row of an F array); kernels index
 * N-D arrays through their strides (docs/abi.md). A reshape or ravel is a view only in an order the
 * array is contiguous in (as in Numba); a slice with a step is a strided view (a negative step is CSR057).
 */
import { CudaScriptError } from "../errors";
import { columnMajorStrides, isContiguousIn, rowMajorStrides } from "../layout";

/** A view: its shape, element strides and the element offset of its first element from the array's. */
export interface ViewLayout {
  readonly shape: number[];
  readonly strides: number[];
  readonly offset: number;
}

/**
 * Numba's `reshape` as a view: in C order of a C-contiguous array or in F order of an F-contiguous
 * one; anything else would need a copy (CSR057).
 */
export function reshapedLayout(shape: readonly number[], strides: readonly number[], requested: readonly unknown[], order: unknown): ViewLayout {
  checkOrder(order, "reshape");
  const out = newShape(shape, requested);
  const o: Order = order === "F" ? "F" : "C";
  if (!isContiguousIn(o, shape, strides)) {
    const other = isContiguousIn(o === "C" ? "F" : "C", shape, strides);
    throw new CudaScriptError(
      "CSR057",
      `reshape(${requested.map(String).join(", ")}) in ${o === "C" ? "C" : "Fortran"} order of a [${shape.join(", ")}] array that is not ${o}-contiguous would need a copy: ${
        other ? `reshape it with { order: "${o === "C" ? "F" : "C"}" } (the order it is contiguous in), or ` : ""
      }copy it into a ${o}-order array first (cuda.deviceArray(shape, dtype, { order: "${o}" }) and copyToDevice)`,
    );
  }
  return { shape: out, strides: o === "C" ? rowMajorStrides(out) : columnMajorStrides(out), offset: 0 };
}

/** Numba's `ravel` as a view: a 1-D reshape in that order. */
export function raveledLayout(shape: readonly number[], strides: readonly number[], order: unknown): ViewLayout {
  checkOrder(order, "ravel");
  const size = shape.reduce((a, b) => a * b, 1);
  const o: Order = order === "F" ? "F" : "C";
  if (!isContiguousIn(o, shape, strides))
    throw new CudaScriptError(
      "CSR057",
      `ravel(${order === undefined ? "" : `"${o}"`}) of a [${shape.join(", ")}] array that is not ${o}-contiguous would need a copy: ${
        isContiguousIn(o === "C" ? "F" : "C", shape, strides) ? `use ravel("${o === "C" ? "F" : "C"}") (the order it is contiguous in), or ` : ""
      }copy it into a ${o}-order array first (cuda.deviceArray(shape, dtype, { order: "${o}" }) and copyToDevice)`,
    );
  return { shape: [size], strides: [1], offset: 0 };
}

/** Numba's `transpose(axes)` / `.T` (axes reversed): a view with the dimensions permuted. */
export function transposedLayout(shape: readonly number[], strides: readonly number[], axes: unknown): ViewLayout {
  const n = shape.length;
  const perm = axes === undefined ? shape.map((_, d) => n - 1 - d) : axes;
  if (!Array.isArray(perm) || perm.length !== n || !perm.every((a) => Number.isInteger(a) && a >= 0 && a < n) || new Set(perm).size !== n)
    throw new CudaScriptError("CSR013", `transpose(${JSON.stringify(axes)}): give a permutation of the ${n} axes, e.g. [${shape.map((_, d) => n - 1 - d).join(", ")}]`);
  return { shape: perm.map((a: number) => shape[a]!), strides: perm.map((a: number) => strides[a]!), offset: 0 };
}

export type Order = "C" | "F";

/** Numba's `reshape`: the new shape with at most one `-1` inferred; CSR011 when the sizes differ. */
function newShape(shape: readonly number[], requested: readonly unknown[]): number[] {
  const what = `reshape(${requested.map(String).join(", ")})`;
  if (requested.length < 1 || requested.length > 3 || !requested.every((n) => typeof n === "number" && Number.isInteger(n) && n >= -1))
    throw new CudaScriptError("CSR013", `${what}: give 1 to 3 whole numbers ≥ 0 (one of them may be -1, inferred from the size)`);
  const dims = requested as number[];
  const size = shape.reduce((a, b) => a * b, 1);
  const unknowns = dims.filter((n) => n === -1).length;
  if (unknowns > 1) throw new CudaScriptError("CSR013", `${what}: only one dimension can be -1`);
  const known = dims.reduce((a, n) => (n === -1 ? a : a * n), 1);
  const out = dims.map((n) => (n === -1 ? (known === 0 ? 0 : size / known) : n));
  if (!out.every(Number.isInteger) || out.reduce((a, b) => a * b, 1) !== size)
    throw new CudaScriptError("CSR011", `${what}: the array has ${size} elements (shape [${shape.join(", ")}]), which shape [${dims.join(", ")}] cannot hold`);
  return out;
}

/**
 * `d.slice(begin, end, step)`: every `step`-th index of the first dimension from `begin` up to `end`
 * (exclusive), with `Array.prototype.slice`'s rules for negative and out-of-range bounds (NumPy's
 * `d[begin:end:step]` for a positive step). Returns the first index, the step and the view's shape.
 */
export function slicedRange(shape: readonly number[], begin: unknown, end: unknown, step: unknown): { first: number; step: number; shape: number[] } {
  const n = shape[0]!;
  for (const [name, v] of [["begin", begin], ["end", end]] as const)
    if (v !== undefined && !(typeof v === "number" && Number.isInteger(v)))
      throw new CudaScriptError("CSR013", `slice: ${name} is a whole number (negative counts from the end), got ${String(v)}`);
  if (step !== undefined && !(typeof step === "number" && Number.isInteger(step) && step !== 0))
    throw new CudaScriptError("CSR013", `slice: step is a whole number ≥ 1, got ${String(step)}`);
  if (typeof step === "number" && step < 0)
    throw new CudaScriptError(
      "CSR057",
      `slice with a negative step (${step}) would need a negative stride, which CudaScript arrays do not have: slice with a positive step and index it backwards in the kernel (a[n - 1 - k])`,
    );
  const by = (step as number | undefined) ?? 1;
  const clamp = (v: number | undefined, dflt: number) => (v === undefined ? dflt : v < 0 ? Math.max(n + v, 0) : Math.min(v, n));
  const first = clamp(begin as number | undefined, 0);
  const last = Math.max(clamp(end as number | undefined, n), first);
  return { first, step: by, shape: [Math.ceil((last - first) / by), ...shape.slice(1)] };
}

/** `d.row(i)`: row `i` of a 2-D or 3-D array as an array of one dimension less. */
export function rowShape(shape: readonly number[], i: unknown): { first: number; shape: number[] } {
  if (shape.length < 2)
    throw new CudaScriptError("CSR006", `row(${String(i)}) needs a 2-D or 3-D array; this one is 1-D: copy it to the host to read an element, or use slice(i, i + 1)`);
  const n = shape[0]!;
  if (typeof i !== "number" || !Number.isInteger(i) || i < -n || i >= n)
    throw new CudaScriptError("CSR013", `row(${String(i)}): the index is a whole number in [${-n}, ${n}) for a [${shape.join(", ")}] array`);
  return { first: i < 0 ? n + i : i, shape: shape.slice(1) };
}

function checkOrder(order: unknown, what: string): void {
  if (order !== undefined && order !== "C" && order !== "F")
    throw new CudaScriptError("CSR013", `${what}: order is "C" or "F", got ${JSON.stringify(order) ?? String(order)}`);
}
