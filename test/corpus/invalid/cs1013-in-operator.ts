import { cuda } from "cudascript";

/** Shifts by one, with a host-style "is this index present" check. */
export const shiftLeft = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  if (i + 1 in x) { // @expect CS1013
    out[i] = x[i + 1];
  } else {
    out[i] = 0;
  }
});

/** Compare with the length instead. */
export const shiftLeftOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  out[i] = i + 1 < x.length ? x[i + 1] : 0;
});
