/**
 * `cuda.random` draws (Numba's numba.cuda.random, camelCased): the IR's `random` node names one of these.
 * Each draws from state `index` of a `[n, 2]` u64 state array and advances it (docs/kernel-language.md#random-numbers).
 */
import type { RandomDraw } from "./nodes";
import type { DType } from "./types";

export type { RandomDraw };

export const RANDOM_DRAWS: readonly RandomDraw[] = ["xoroshiro128pUniformFloat32", "xoroshiro128pUniformFloat64", "xoroshiro128pNormalFloat32", "xoroshiro128pNormalFloat64"];

/** The dtype each draw returns. */
export function randomDrawType(draw: RandomDraw): DType {
  return draw.endsWith("Float32") ? "f32" : "f64";
}
