/**
 * `cuda.random` draws in simulator modules: each calls the runtime's generator (`rt.xoroshiro128p`,
 * runtime/src/simulator/random.ts, the tested algorithm of runtime/src/random/xoroshiro128p.ts) on the
 * state array and the row drawn from; the emitter (emit.ts) adds the bounds check of the row, the
 * check that rows are two words, and the sanitizer's read and write of both words.
 */
import type { RandomDraw } from "../ir/random";

/** The `rt.xoroshiro128p` function of each draw. */
const RT_FUNCTIONS: Readonly<Record<RandomDraw, string>> = {
  xoroshiro128pUniformFloat32: "uniformFloat32",
  xoroshiro128pUniformFloat64: "uniformFloat64",
  xoroshiro128pNormalFloat32: "normalFloat32",
  xoroshiro128pNormalFloat64: "normalFloat64",
};

/** The call drawing from row `row` of the state array `data` (a BigUint64Array). */
export function randomDrawCall(draw: RandomDraw, data: string, row: string): string {
  return `rt.xoroshiro128p.${RT_FUNCTIONS[draw]}(${data}, ${row})`;
}

/**
 * The check that the state array's rows (of `cols` elements) hold one state each, and, where the array
 * has element strides (a kernel parameter), that it is C-contiguous: CSR033 otherwise.
 */
export function stateRowCheck(cols: string, site: number, strides: readonly string[] = []): string {
  const layout = strides.length === 2 ? ` && ${strides[0]} === 2 && ${strides[1]} === 1` : "";
  return `((${cols} === 2${layout}) || $throw(rt.xoroshiro128p.notStates($sites[${site}], ${cols}${strides.length === 2 ? `, ${strides[0]}, ${strides[1]}` : ""})))`;
}
