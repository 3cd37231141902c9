import { cuda, f32 } from "cudascript";

/** Threads per block, tuned on a desktop GPU... in a typo. */
const TPB = 2560;
const TILE = 48;

export const scale = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
});

export function run(x: Float32Array): void {
  const blocks = Math.ceil(x.length / TPB);
  scale.launch(blocks, TPB)(x, 0.5); // @expect CS4001
  scale.launch(blocks, [TILE, TILE])(x, 0.5); // @expect CS4001
}
