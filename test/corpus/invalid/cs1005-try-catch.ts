import { cuda, f32 } from "cudascript";

/** Safe reciprocal; the author guarded the division with try/catch as on the host. */
export const reciprocal = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  try { // @expect CS1005
    out[i] = 1 / x[i];
  } catch (e) {
    out[i] = 0;
  }
});

/** On the GPU nothing throws: 1 / 0 is Infinity. Test the value instead. */
export const reciprocalSafe = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const v: f32 = x[i];
  out[i] = v !== 0 ? 1 / v : 0;
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  try {
    reciprocalSafe.launch(Math.ceil(x.length / 128), 128)(x, out);
  } catch (e) {
    console.error("launch failed", e);
  }
  return out;
}
