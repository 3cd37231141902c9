/**
 * The compiler's list of `cuda` names (compiler/src/frontend/cuda-names.ts, which cannot import the
 * runtime) against the runtime's `cuda` object: a host name added to one and not the other would be
 * reported as unknown at check time, or missed. The kernel side is generated from the intrinsic records.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as path from "node:path";
import { HOST_CUDA_NAMES, KERNEL_ROOTS } from "@cudascript/compiler";
import { cuda } from "cudascript";

test("the checker's host cuda names are the runtime's host API", () => {
  assert.deepEqual([...HOST_CUDA_NAMES].sort(), Object.keys(cuda).sort());
});

test("the runtime's kernel declarations and kernel-only members are generated from the intrinsic records, and current", () => {
  // runtime/src/kernel-intrinsics.ts is written by scripts/gen-kernel-intrinsics.mjs (Warp's export_stubs).
  const repo = path.resolve(__dirname, "..", "..", "..");
  const r = spawnSync(process.execPath, [path.join(repo, "scripts", "gen-kernel-intrinsics.mjs"), "--check"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const kernelOnly = Object.getOwnPropertyNames(cuda).filter((n) => !Object.keys(cuda).includes(n));
  assert.deepEqual([...KERNEL_ROOTS].sort(), kernelOnly.sort());
});
