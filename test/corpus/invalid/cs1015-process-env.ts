import { cuda, i32 } from "cudascript";

/** Debug printing toggled by an environment variable read inside the kernel. */
export const debugCopy = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  if (process.env.CUDASCRIPT_DEBUG && i === 0) { // @expect CS1015
    console.log("first element", x[0]);
  }
  out[i] = x[i];
});

/** Pass the flag in. */
export const debugCopyOk = cuda.jit((x: Float32Array, debug: i32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  if (debug !== 0 && i === 0) {
    console.log("first element", x[0]);
  }
  out[i] = x[i];
});

export function run(x: Float32Array): Float32Array {
  const out = new Float32Array(x.length);
  const debug = process.env.CUDASCRIPT_DEBUG ? 1 : 0;
  debugCopyOk.launch(Math.ceil(x.length / 128), 128)(x, debug, out);
  return out;
}
