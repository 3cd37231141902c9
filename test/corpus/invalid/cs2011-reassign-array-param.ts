import { cuda, i32 } from "cudascript";

/** Ping-pong smoothing that swaps the two buffers inside the kernel. */
export const smoothSteps = cuda.jit((a: Float32Array, b: Float32Array, steps: i32) => {
  const i = cuda.grid(1);
  if (i < 1 || i >= a.length - 1) return;
  for (let s = 0; s < steps; s++) {
    b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
    a = b; // @expect CS2011
  }
});

/** One step per launch; the host swaps the buffers between launches. */
export const smoothStep = cuda.jit((src: Float32Array, dst: Float32Array) => {
  const i = cuda.grid(1);
  if (i < 1 || i >= src.length - 1) return;
  dst[i] = (src[i - 1] + src[i] + src[i + 1]) / 3;
});

export function smooth(x: Float32Array, steps: number): Float32Array {
  let a: Float32Array = x;
  let b: Float32Array = new Float32Array(x.length);
  for (let s = 0; s < steps; s++) {
    smoothStep.launch(Math.ceil(x.length / 256), 256)(a, b);
    const t = a;
    a = b;
    b = t;
  }
  return a;
}
