import { cuda, bool, i32 } from "cudascript";

/** A `function` kernel that reports whether it found the key, instead of writing the answer. */
export const contains = cuda.jit(function (keys: Int32Array, key: i32, found: Int32Array) {
  const i = cuda.grid(1);
  if (i < keys.length && keys[i] === key) {
    found[0] = 1;
    return true; // @expect CS2001
  }
});

/** Device functions may return values: put the logic there. */
const matches = cuda.device((keys: Int32Array, i: i32, key: i32): bool => i < keys.length && keys[i] === key);

export const containsOk = cuda.jit(function (keys: Int32Array, key: i32, found: Int32Array) {
  const i = cuda.grid(1);
  if (matches(keys, i, key)) {
    found[0] = 1;
  }
});
