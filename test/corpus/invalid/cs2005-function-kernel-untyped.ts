import { cuda, i32 } from "cudascript";

/** A `function` kernel converted from JavaScript: the count parameter kept no type. */
export const iotaUpTo = cuda.jit(function (n, out: Int32Array) { // @expect CS2005
  const i = cuda.grid(1);
  if (i < out.length) out[i] = i;
});

export const iotaUpToOk = cuda.jit(function (n: i32, out: Int32Array) {
  const i = cuda.grid(1);
  if (i < n && i < out.length) out[i] = i;
});
