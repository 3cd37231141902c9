/**
 * Shapes of device-array views (Numba's `reshape`, `ravel`, `d[a:b]`, `d[i]`): pure functions from a
 * shape to the view's shape and element offset, or a coded error where a view is impossible.
 *
 * Every CudaScript array is C-contiguous (row-major, no gaps): kernels index them by their shape alone.
 * So a view must be C-contiguous too: a reshape in C order, a range of the first dimension, a row.
 * What would need strides (Fortran order, a step, a column) is CSR057, saying how to get the data instead.
 */
import { CudaScriptError } from "../errors";

export type Order = "C" | "F";

/** Numba's `reshape`: the new shape with at most one `-1` inferred; CSR011 when the sizes differ. */
export function reshapedShape(shape: readonly number[], requested: readonly unknown[], order: unknown): number[] {
  checkOrder(order, "reshape");
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
  if (order === "F" && !sameInFOrder(shape, out))
    throw new CudaScriptError(
      "CSR057",
      `${what} in Fortran order would need a copy (CudaScript arrays are C-ordered): copy the data to the host (copyToHost), rearrange it there, and copy it back`,
    );
  return out;
}

/** Numba's `ravel`: the 1-D shape; in F order only where it is the same as C order. */
export function raveledShape(shape: readonly number[], order: unknown): number[] {
  checkOrder(order, "ravel");
  const size = shape.reduce((a, b) => a * b, 1);
  if (order === "F" && !sameInFOrder(shape, [size]))
    throw new CudaScriptError("CSR057", `ravel("F") of a [${shape.join(", ")}] array would need a copy (CudaScript arrays are C-ordered): use ravel() (C order), or copy the data to the host and rearrange it there`);
  return [size];
}

/**
 * `d.slice(begin, end)`: a range of the first dimension, with `Array.prototype.slice`'s rules for
 * negative and out-of-range bounds. Returns the first index and the view's shape.
 */
export function slicedRange(shape: readonly number[], begin: unknown, end: unknown, step: unknown): { first: number; shape: number[] } {
  const n = shape[0]!;
  for (const [name, v] of [["begin", begin], ["end", end]] as const)
    if (v !== undefined && !(typeof v === "number" && Number.isInteger(v)))
      throw new CudaScriptError("CSR013", `slice: ${name} is a whole number (negative counts from the end), got ${String(v)}`);
  if (step !== undefined && step !== 1)
    throw new CudaScriptError(
      "CSR057",
      `slice with a step of ${String(step)} is not contiguous, and CudaScript views must be (kernels index arrays by their shape): copy the elements you need into a new array, or index with the step inside the kernel (a[begin + k * step])`,
    );
  const clamp = (v: number | undefined, dflt: number) => (v === undefined ? dflt : v < 0 ? Math.max(n + v, 0) : Math.min(v, n));
  const first = clamp(begin as number | undefined, 0);
  const last = Math.max(clamp(end as number | undefined, n), first);
  return { first, shape: [last - first, ...shape.slice(1)] };
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

/** Numba's `is_f_contiguous` for an array that is C-contiguous: true when at most one dimension exceeds 1. */
export function isFContiguousShape(shape: readonly number[]): boolean {
  return shape.filter((n) => n > 1).length <= 1 || shape.some((n) => n === 0);
}

/** Reading both shapes in F order gives the same elements in the same order as in C order. */
function sameInFOrder(from: readonly number[], to: readonly number[]): boolean {
  return isFContiguousShape(from) && isFContiguousShape(to);
}

function checkOrder(order: unknown, what: string): void {
  if (order !== undefined && order !== "C" && order !== "F")
    throw new CudaScriptError("CSR013", `${what}: order is "C" or "F", got ${JSON.stringify(order) ?? String(order)}`);
}
