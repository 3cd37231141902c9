/**
 * Grid synchronisation in kernels (docs/kernel-language.md#grid-synchronisation): `const g =
 * cuda.cg.thisGrid(); g.sync()` lowers to the gridSync intrinsic; every other use of a grid group is
 * CS1024 with what to write; a g.sync() that not every thread of the grid reaches is CS5007.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkKernel, codes } from "../../../test/dist/support/check-sources";
import { callsGridSync } from "../ir/visit";

test("const g = cuda.cg.thisGrid(); g.sync() and cuda.cg.thisGrid().sync() lower to the grid barrier with no diagnostic", () => {
  const r = checkKernel(`export const k = cuda.jit((a: Float32Array, steps: i32) => {
  const g = cuda.cg.thisGrid();
  const i = cuda.grid(1);
  for (let t = 0; t < steps; t++) {
    if (i < a.length) a[i] += 1;
    g.sync();
  }
  cuda.cg.thisGrid().sync();
});
`);
  assert.deepEqual(codes(r), []);
  const k = r.module!.kernels[0]!;
  assert.equal(callsGridSync(k), true);
});

test("a grid group used as a value, reassigned, with another member, or in a device function is CS1024 saying what to write", () => {
  const r = checkKernel(`const helper = cuda.device((a: Float32Array): void => {
  const g = cuda.cg.thisGrid();
  g.sync();
});
export const k = cuda.jit((a: Float32Array) => {
  const g = cuda.cg.thisGrid();
  let h = cuda.cg.thisGrid();
  const x = g;
  const r = g.thread_rank();
  cuda.cg.thisGrid();
  helper(a);
  g.sync();
});
`);
  assert.deepEqual(codes(r), ["CS1024@2", "CS1024@7", "CS1024@8", "CS1024@9", "CS1024@10"]);
  const msgs = r.diagnostics.map((d) => d.message);
  assert.match(msgs[0]!, /kernel's own body, not in the device function 'helper'/);
  assert.match(msgs[1]!, /cannot be reassigned: write const h = cuda\.cg\.thisGrid\(\)/);
  assert.match(msgs[2]!, /'g' is a grid group: its only use is g\.sync\(\)/);
  assert.match(msgs[3]!, /'thread_rank' is not available on a grid group: .*cuda\.grid\(1\)/);
  assert.match(msgs[4]!, /not a value: write const g = cuda\.cg\.thisGrid\(\)/);
});

test("g.sync() under a condition on the thread or block index, or after a block-dependent return, is CS5007", () => {
  const r = checkKernel(`export const k = cuda.jit((a: Float32Array) => {
  const g = cuda.cg.thisGrid();
  if (cuda.threadIdx.x < 16) g.sync();
  if (cuda.blockIdx.x === 0) g.sync();
  const b = cuda.blockIdx.x;
  if (b > 2) return;
  g.sync();
});
`);
  assert.deepEqual(codes(r), ["CS5007@3", "CS5007@4", "CS5007@7"]);
  assert.match(r.diagnostics[0]!.message, /not be reached by every thread of the grid.*Call g\.sync\(\) unconditionally/);
});

test("g.sync() in a loop whose trip count is uniform across the grid is not CS5007", () => {
  const r = checkKernel(`export const k = cuda.jit((a: Float32Array, steps: i32) => {
  const g = cuda.cg.thisGrid();
  for (let t = 0; t < steps; t++) {
    const i = cuda.grid(1);
    if (i < a.length) a[i] = a[i] * 0.5;
    g.sync();
  }
});
`);
  assert.deepEqual(codes(r), []);
});
