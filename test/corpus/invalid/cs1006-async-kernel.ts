import { cuda, f32 } from "cudascript";

/** A kernel declared async out of habit (the host code that launches it is async). */
export const scale = cuda.jit(async (x: Float32Array, s: f32) => { // @expect CS1006
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
});

export const scaleOk = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
});

// Host code may be async.
export async function run(x: Float32Array): Promise<Float32Array> {
  await Promise.resolve();
  scaleOk.launch(Math.ceil(x.length / 256), 256)(x, 2);
  return x;
}
