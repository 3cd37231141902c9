import { cuda, i32 } from "cudascript";

/** Gathers out[i] = x[idx[i]]; a bad index was meant to be caught in the kernel. */
export const gather = cuda.jit((x: Float32Array, idx: Int32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  try { // @expect CS1005
    out[i] = x[idx[i]];
  } catch {
    out[i] = 0;
  }
});

/** Instead: throw, which fails the launch with CSR085 (the host catches it), or record a flag. */
export const gatherChecked = cuda.jit((x: Float32Array, idx: Int32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const j: i32 = idx[i];
  if (j < 0 || j >= x.length) throw new RangeError(`gather index ${j} out of range`);
  out[i] = x[j];
});
