/**
 * Array layouts in ELEMENT strides (the kernel ABI's unit, docs/abi.md): C order (row-major, the last
 * index varies fastest), Fortran order (column-major, the first index varies fastest), or any positive
 * strides (a transpose, a step). The host API speaks in byte strides, as Numba does; these helpers are
 * shared by the host arrays, the simulator and the GPU packer.
 */

/** The element strides of a C-contiguous array of `shape`. */
export function rowMajorStrides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  let s = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    out[d] = s;
    s *= shape[d]!;
  }
  return out;
}

/** The element strides of a Fortran-contiguous array of `shape`. */
export function columnMajorStrides(shape: readonly number[]): number[] {
  const out = new Array<number>(shape.length);
  let s = 1;
  for (let d = 0; d < shape.length; d++) {
    out[d] = s;
    s *= shape[d]!;
  }
  return out;
}

/** Elements from the first element to one past the last one the layout reaches (0 for an empty array). */
export function spanElements(shape: readonly number[], strides: readonly number[]): number {
  if (shape.some((n) => n === 0)) return 0;
  return 1 + shape.reduce((last, n, d) => last + (n - 1) * strides[d]!, 0);
}

/** Kernels index arrays in 32-bit `int` (docs/abi.md): the elements an argument spans must be fewer than 2^31. */
export const MAX_KERNEL_SPAN = 0x7fffffff;

/**
 * Why a kernel cannot index an array of this layout ("spans 2147483648 elements (shape […])"), or
 * undefined when it can. Every backend checks kernel arguments with it at launch, so the simulator
 * refuses what the GPU's 32-bit indexing would wrap.
 */
export function kernelSpanProblem(shape: readonly number[], strides: readonly number[]): string | undefined {
  const span = spanElements(shape, strides);
  if (span <= MAX_KERNEL_SPAN) return undefined;
  const dense = isContiguousIn("C", shape, strides);
  return `spans ${span} elements (shape [${shape.join(", ")}]${dense ? "" : `, element strides [${strides.join(", ")}]`})`;
}

/**
 * Whether the layout is contiguous in that order. As in NumPy, a dimension of extent 1 may have any
 * stride (it is never stepped over), so a [1, n] array is both C- and F-contiguous.
 */
export function isContiguousIn(order: "C" | "F", shape: readonly number[], strides: readonly number[]): boolean {
  const want = order === "C" ? rowMajorStrides(shape) : columnMajorStrides(shape);
  return shape.every((n, d) => n <= 1 || strides[d] === want[d]);
}

/** The flat element offset of `indices` under `strides`. */
export function elementOffset(indices: readonly number[], strides: readonly number[]): number {
  let o = 0;
  for (let d = 0; d < indices.length; d++) o += indices[d]! * strides[d]!;
  return o;
}
