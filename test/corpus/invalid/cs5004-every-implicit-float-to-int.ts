import { cuda, f32, i32, i64 } from "cudascript";

/** Every place a float meets an integer without a word: each truncates, so each is CS5004. */
export const half = cuda.device((n: i32): i32 => n / 2); // @expect CS5004

export const scaleIndex = cuda.device((k: i32, dim: i32): i32 => k * dim);

export const everyStore = cuda.jit((x: Float32Array, big: BigInt64Array, counts: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const f: f32 = x[i] * 3;
  const k: i32 = f; // @expect CS5004
  let m: i32 = 0;
  m = f * 2; // @expect CS5004
  m += f; // @expect CS5004
  out[i] += f; // @expect CS5004
  out[i] = scaleIndex(f, 4) + half(m); // @expect CS5004
  const low: i32 = Number(big[i]); // @expect CS5004
  cuda.atomic.add(counts, 0, f); // @expect CS5004
  out[i] += k + m + low;
});

/** The same, said explicitly: no warning. */
export const everyStoreOk = cuda.jit((x: Float32Array, big: BigInt64Array, counts: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const f: f32 = x[i] * 3;
  const k: i32 = Math.trunc(f);
  let m: i32 = 0;
  m = (f * 2) | 0;
  m += Math.floor(f) | 0; // m + Math.floor(f) alone is computed in f32, which loses digits past 2^24
  out[i] = Math.round(f);
  out[i] = scaleIndex(f | 0, 4) + ((m / 2) | 0);
  const low: i32 = Number(big[i]) | 0;
  const wide: i64 = big[i];
  cuda.atomic.add(counts, 0, Math.trunc(f));
  out[i] = Number(wide); // a typed-array store keeps the low bits, as JavaScript's does
  out[i] += k + m + low;
});
