import { cuda, i32 } from "cudascript";

/** Depth of an implicit binary tree stored as child flags (1 = node present). */
const depth: (tree: Int32Array, node: i32) => i32 = cuda.device((tree: Int32Array, node: i32) => {
  if (node >= tree.length || tree[node] === 0) return 0;
  const l = depth(tree, 2 * node + 1); // @expect CS1007
  const r = depth(tree, 2 * node + 2); // @expect CS1007
  return 1 + Math.max(l, r);
});

export const subtreeDepths = cuda.jit((tree: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) {
    out[i] = depth(tree, i);
  }
});
