import { cuda, f32 } from "cudascript";

/** Not called by any kernel yet: still checked, so the mistake shows while it is being written. */
export const softsign = cuda.device((v: f32): f32 => {
  const label = "softsign"; // @expect CS1001
  return v / (1 + Math.abs(v));
});

export const softsignNoKernelOk = cuda.device((v: f32): f32 => v / (1 + Math.abs(v)));
