import { cuda, i32 } from "cudascript";

/** Gathers out[i] = x[idx[i]]; an out-of-range index was meant to abort the kernel. */
export const gather = cuda.jit((x: Float32Array, idx: Int32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const j: i32 = idx[i];
  if (j < 0 || j >= x.length) {
    throw new RangeError("gather index out of range"); // @expect CS1005
  }
  out[i] = x[j];
});

/** Instead: record the error in a flag array the host checks after the launch. */
export const gatherChecked = cuda.jit((x: Float32Array, idx: Int32Array, out: Float32Array, err: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const j: i32 = idx[i];
  if (j < 0 || j >= x.length) {
    err[0] = 1;
    return;
  }
  out[i] = x[j];
});
