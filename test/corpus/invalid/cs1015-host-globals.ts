import { cuda, f32, u32 } from "cudascript";

/** Random init, seeded from the clock inside the kernel. */
export const randomInit = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let s: u32 = (Date.now() + i) >>> 0; // @expect CS1015
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  const top: f32 = s >>> 8;
  out[i] = top / 16777216;
});

/** Seed passed as a parameter; the rest is the same xorshift. */
export const randomInitOk = cuda.jit((seed: u32, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  let s: u32 = (seed + i) >>> 0;
  s ^= s << 13;
  s ^= s >>> 17;
  s ^= s << 5;
  const top: f32 = s >>> 8;
  out[i] = top / 16777216;
});

export function run(n: number): Float32Array {
  const out = new Float32Array(n);
  randomInitOk.launch(Math.ceil(n / 256), 256)(Date.now() >>> 0, out);
  return out;
}
