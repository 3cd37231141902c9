import { cuda, c64, type Array1D } from "cudascript";

/** A complex element is written whole: no part assignment, no atomics (CUDA has none for float2). */
export const parts = cuda.jit((z: Array1D<c64>, sum: Array1D<c64>) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  z[i].re = 1; // @expect CS2024
  cuda.atomic.add(sum, 0, z[i]); // @expect CS2024
  const tile = cuda.shared.array(32, c64);
  tile[0] = z[i];
  cuda.atomic.exch(tile, 0, z[i]); // @expect CS2024
});
