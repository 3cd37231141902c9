import { cuda, f32, Array2D } from "cudascript";

/**
 * TypeScript's strictest settings (noUncheckedIndexedAccess) make code say `!` after an index; TypeScript
 * erases it and so does CudaScript: this kernel is out[r][c] = m[r][c] * x[c] + m[r][c], with `!` on reads,
 * writes, compound assignments, rows (`m[r]![c]`), parentheses, local arrays and scalars.
 */
export const nonNull = cuda.jit((m: Array2D<f32>, x: Float32Array, out: Array2D<f32>) => {
  const [r, c] = cuda.grid(2);
  if (r < m.shape[0] && c < m.shape[1] && c < x.length) {
    const acc = cuda.local.array(2, f32);
    const v = x[c]!;
    acc[0]! = v!;
    acc[1]! = m[r]![c]!;
    out[r]![c]! = acc[0]! * acc[1]!;
    out[r]![c]! += (m[r]!)[c]!;
  }
});
