/**
 * The compiler's list of `cuda` names (compiler/src/frontend/cuda-names.ts, which cannot import the
 * runtime) against the runtime's `cuda` object: a host name added to one and not the other would be
 * reported as unknown at check time, or missed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { HOST_CUDA_NAMES, KERNEL_ROOTS } from "@cudascript/compiler";
import { cuda } from "cudascript";

test("the checker's host cuda names are the runtime's host API", () => {
  assert.deepEqual([...HOST_CUDA_NAMES].sort(), Object.keys(cuda).sort());
});

test("the checker's kernel cuda roots are the runtime's kernel-only members", () => {
  const kernelOnly = Object.getOwnPropertyNames(cuda).filter((n) => !Object.keys(cuda).includes(n));
  assert.deepEqual([...KERNEL_ROOTS].sort(), kernelOnly.sort());
});
