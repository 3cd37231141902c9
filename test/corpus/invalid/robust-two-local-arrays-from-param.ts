import { cuda, f32, i32 } from "cudascript";

/** Two local arrays sized by the same parameter: each declaration gets its own diagnostic. */
export const pairSort = cuda.jit((keys: Float32Array, vals: Float32Array, n: i32) => {
  const chunk = cuda.grid(1);
  const base = chunk * n;
  if (base + n > keys.length) return;
  const k = cuda.local.array(n, f32); // @expect CS3001
  const v = cuda.local.array(n, f32); // @expect CS3001
  for (let a = 0; a < n; a++) {
    k[a] = keys[base + a];
    v[a] = vals[base + a];
  }
  for (let a = 1; a < n; a++) {
    const kk = k[a];
    const vv = v[a];
    let b = a - 1;
    while (b >= 0 && k[b] > kk) {
      k[b + 1] = k[b];
      v[b + 1] = v[b];
      b--;
    }
    k[b + 1] = kk;
    v[b + 1] = vv;
  }
  for (let a = 0; a < n; a++) {
    keys[base + a] = k[a];
    vals[base + a] = v[a];
  }
});
