import { cuda, f32 } from "cudascript";
import type { BugCase } from "./case";

const TPB = 64;

const scaled = cuda.device((v: f32, s: f32): f32 => v * s);

/** Block sums of a tile the last thread never fills: the undefined value crosses a device function and a branch uses it. */
export const clampTile = cuda.jit((x: Float32Array, out: Float32Array) => {
  const tile = cuda.shared.array(TPB, f32);
  const t = cuda.threadIdx.x;
  if (t < TPB - 1) tile[t] = x[t];
  cuda.syncthreads();
  const v = scaled(tile[t], 2);
  let r: f32 = 0;
  if (v > 1) r = 1; // @bug undefined-value
  out[t] = r;
});

export const bug: BugCase = { kernel: "clampTile", grid: 1, block: TPB, args: () => [new Float32Array(TPB).fill(0.25), new Float32Array(TPB)], needsSanitizer: true };
