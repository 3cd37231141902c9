import { cuda, f32 } from "cudascript";

/** A module `let`: could change after the kernel is compiled. */
let weights: Float32Array = new Float32Array([0.2, 0.6, 0.2]);
export function setWeights(w: Float32Array): void {
  weights = w;
}

/** A const, but filled at run time. */
const TABLE = new Float32Array(64);
for (let k = 0; k < 64; k++) TABLE[k] = Math.sin(k / 10);

/** A const built from a computed list. */
const RAMP = Float32Array.from({ length: 8 }, (_, k) => k / 8);

export const weighted = cuda.jit((x: Float32Array, out: Float32Array) => {
  const w = cuda.const.arrayLike(weights); // @expect CS3007
  const t = cuda.const.arrayLike(TABLE); // @expect CS3007
  const r = cuda.const.arrayLike(RAMP); // @expect CS3007
  const i = cuda.grid(1);
  if (i < 1 || i >= x.length - 1) return;
  out[i] = w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1] + t[i & 63] + r[i & 7];
});

const WEIGHTS = new Float32Array([0.2, 0.6, 0.2]);
const DEGREES = new Int32Array([0, 90, 180, 270]);

export const weightedOk = cuda.jit((x: Float32Array, quadrant: Int32Array, out: Float32Array) => {
  const w = cuda.const.arrayLike(WEIGHTS);
  const d = cuda.const.arrayLike(DEGREES);
  const i = cuda.grid(1);
  if (i < 1 || i >= x.length - 1) return;
  const v: f32 = w[0] * x[i - 1] + w[1] * x[i] + w[2] * x[i + 1];
  out[i] = v + d[quadrant[i] & 3];
});
