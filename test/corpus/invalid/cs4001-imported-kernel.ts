import { cuda } from "cudascript";
import { BLOCK, fill, iota } from "./cs4001-helpers";

const BIG_BLOCK = BLOCK * 8;

export const addOne = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] += 1;
});

export function prepare(n: number): [Float32Array, Int32Array] {
  const a = new Float32Array(n);
  const b = new Int32Array(n);
  fill.launch(Math.ceil(n / BIG_BLOCK), BIG_BLOCK)(a, 1); // @expect CS4001
  iota.launch(Math.ceil(n / BLOCK), BLOCK)(b, 0);
  addOne.launch(Math.ceil(n / BLOCK), BIG_BLOCK)(a); // @expect CS4001
  return [a, b];
}
