import { cuda, i32 } from "cudascript";

/** Each thread sorts a segment whose length is read from an array. */
export const sortSegments = cuda.jit((data: Int32Array, starts: Int32Array, sizes: Int32Array) => {
  const s = cuda.grid(1);
  if (s >= sizes.length) return;
  const tmp = cuda.local.array(sizes[s], i32); // @expect CS3001
  const n = sizes[s];
  const base = starts[s];
  for (let k = 0; k < n; k++) tmp[k] = data[base + k];
  for (let a = 1; a < n; a++) {
    const v = tmp[a];
    let b = a - 1;
    while (b >= 0 && tmp[b] > v) {
      tmp[b + 1] = tmp[b];
      b--;
    }
    tmp[b + 1] = v;
  }
  for (let k = 0; k < n; k++) data[base + k] = tmp[k];
});
