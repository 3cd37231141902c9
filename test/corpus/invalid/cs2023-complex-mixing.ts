import { cuda, c128, c64, type Array1D } from "cudascript";

/** c64 with c128, and complex with real, without a written conversion. */
export const mixing = cuda.jit((z: Array1D<c64>, acc: Array1D<c128>, re: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= z.length) return;
  acc[i] = cuda.complex.add(acc[i], z[i]); // @expect CS2023
  acc[i] = z[i]; // @expect CS2023
  re[i] = z[i]; // @expect CS2023
  z[i] = re[i]; // @expect CS2023
  re[i] = Math.sqrt(z[i]); // @expect CS2023
  if (z[i]) re[i] = 1; // @expect CS2023
  z[i] = cuda.complex.exp(re[i]); // @expect CS2023
  z[i] = cuda.complex.c64(z[i], 1); // @expect CS2023
  z[i] = cuda.shflSync(0xffffffff, z[i], 0); // @expect CS2023
});
