import { cuda, f32 } from "cudascript";

export const fastExp = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = Math.exp(x[i]);
}, { fastmath: "yes" }); // @expect CS2014

export const heavy = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = Math.sin(x[i]) * Math.cos(x[i]);
}, { maxRegisters: 300 }); // @expect CS2014

export const tuned = cuda.jit((x: Float32Array, s: f32) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] *= s;
}, { blockSize: 256 }); // @expect CS2014

/** Valid options. */
export const fastExpOk = cuda.jit((x: Float32Array, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = Math.exp(x[i]);
}, { fastmath: true, maxRegisters: 64, lineinfo: true });
