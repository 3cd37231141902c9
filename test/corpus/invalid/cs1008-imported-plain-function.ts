import { cuda } from "cudascript";
import { safeDiv, safeDivHost, square } from "./cs1008-helpers";

/** Element-wise ratio; imports the host helper by mistake. */
export const ratio = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = safeDivHost(a[i], b[i]); // @expect CS1008
  }
});

export const ratioSquared = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const r = safeDiv(a[i], b[i]);
    out[i] = square(r); // @expect CS1008
  }
});

export const ratioOk = cuda.jit((a: Float32Array, b: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    const r = safeDiv(a[i], b[i]);
    out[i] = r * r;
  }
});
