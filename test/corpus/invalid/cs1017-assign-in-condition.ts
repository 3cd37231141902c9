import { cuda, i32 } from "cudascript";

/** Length of each linked list (next[k] = -1 ends a list), following the links from heads[i]. */
export const listLength = cuda.jit((heads: Int32Array, next: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= heads.length) return;
  let len = 0;
  let j: i32 = heads[i];
  if (j < 0) {
    out[i] = 0;
    return;
  }
  len = 1;
  while ((j = next[j]) >= 0) { // @expect CS1017
    len++;
  }
  out[i] = len;
});

export const listLengthOk = cuda.jit((heads: Int32Array, next: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i >= heads.length) return;
  let len: i32 = 0;
  let j: i32 = heads[i];
  while (j >= 0) {
    len++;
    j = next[j];
  }
  out[i] = len;
});
