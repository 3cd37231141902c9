import { cuda, f32 } from "cudascript";

/** A module const, but computed at run time on the host: not a compile-time constant. */
const GAIN = Number(process.env.GAIN ?? "2");
/** These are compile-time constants. */
const OFFSET = 0.25;
const TPB = 128;

export const amplify = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] * GAIN + OFFSET; // @expect CS1010
  }
});

export const amplifyOk = cuda.jit((x: Float32Array, gain: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = x[i] * gain + OFFSET;
  }
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  amplifyOk.launch(Math.ceil(x.length / TPB), TPB)(x, GAIN, out);
  return out;
}
