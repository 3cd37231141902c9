import { cuda, f32 } from "cudascript";

/** Numba's "Kernel launch configuration was not specified": a kernel is launched, not called. */
export const scale = cuda.jit((a: f32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] *= a;
});

const out = new Float32Array(1024);
scale(2.5, out); // @expect CS4009
scale.launch(4, 256)(2.5, out);
scale.forall(out.length)(2.5, out);
