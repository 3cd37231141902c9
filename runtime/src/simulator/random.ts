/**
 * `cuda.random` draws for simulator modules (`rt.xoroshiro128p`, see compiler/src/js/random.ts): the
 * tested generator of runtime/src/random/xoroshiro128p.ts on a 32-bit view of the state array, so that
 * the simulator draws exactly what the host initialisation, Numba and the generated CUDA C++ draw.
 */
import { normalFloat32, normalFloat64, uniformFloat32, uniformFloat64 } from "../random/xoroshiro128p";

export interface RandomDraws {
  uniformFloat32(states: BigUint64Array, row: number): number;
  uniformFloat64(states: BigUint64Array, row: number): number;
  normalFloat32(states: BigUint64Array, row: number): number;
  normalFloat64(states: BigUint64Array, row: number): number;
}

let lastStates: BigUint64Array | null = null;
let lastWords: Uint32Array | null = null;

/** The state array's words as 32-bit halves (cached for the last array: a kernel draws from one). */
function words(a: BigUint64Array): Uint32Array {
  if (a !== lastStates || !lastWords) {
    lastStates = a;
    lastWords = new Uint32Array(a.buffer, a.byteOffset, a.length * 2);
  }
  return lastWords;
}

export const RANDOM_DRAWS: RandomDraws = {
  uniformFloat32: (a, i) => uniformFloat32(words(a), i),
  uniformFloat64: (a, i) => uniformFloat64(words(a), i),
  normalFloat32: (a, i) => normalFloat32(words(a), i),
  normalFloat64: (a, i) => normalFloat64(words(a), i),
};
