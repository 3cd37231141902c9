/**
 * A kernel launch written inside a kernel or device function (CUDA's dynamic parallelism, which neither
 * CudaScript nor Numba compiles) is CS1023 with what to write instead, not the generic CS1012/CS1008.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkKernel, checkSources, codes } from "../../../test/dist/support/check-sources";

const CHILD = `export const child = cuda.jit((out: Float32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = 1;
});
`;

test("child.launch(grid, block)(…) in a kernel is one CS1023 that says to launch from the host or call a device function", () => {
  const r = checkKernel(`${CHILD}export const parent = cuda.jit((out: Float32Array) => {
  if (cuda.grid(1) === 0) child.launch(1, 256)(out);
});
`);
  assert.deepEqual(codes(r), ["CS1023@6"]);
  const m = r.diagnostics[0]!.message;
  assert.match(m, /dynamic parallelism/);
  assert.match(m, /from the host after 'parent' finishes/);
  assert.match(m, /parent\.launch\(grid, block\)\(…\); child\.launch\(grid2, block2\)\(…\)/);
  assert.match(m, /cuda\.device function/);
});

test("a launch with options, a launch never invoked, and Numba's forall are CS1023 too", () => {
  const r = checkKernel(`${CHILD}export const parent = cuda.jit((out: Float32Array) => {
  child.launch([1, 1], [256, 1], { sharedMem: 0 })(out);
  child.launch(1, 256);
  child.forall(out.length)(out);
});
`);
  assert.deepEqual(codes(r), ["CS1023@6", "CS1023@7", "CS1023@8"]);
  assert.match(r.diagnostics[2]!.message, /CudaScript has no forall/);
});

test("a launch in a device function is CS1023 and names the device function", () => {
  const r = checkKernel(`${CHILD}const helper = cuda.device((out: Float32Array): void => {
  child.launch(1, 32)(out);
});
export const parent = cuda.jit((out: Float32Array) => {
  helper(out);
});
`);
  assert.ok(codes(r).includes("CS1023@6"), codes(r).join(", "));
  assert.match(r.diagnostics.find((d) => d.code === "CS1023")!.message, /after the kernel that calls 'helper' finishes/);
});

test("a launch of a kernel imported from another file is CS1023", () => {
  const r = checkSources({
    "parent.ts": `import { cuda } from "cudascript";
import { child } from "./child";
export const parent = cuda.jit((out: Float32Array) => {
  child.launch(1, 256)(out);
});
`,
    "child.ts": `import { cuda } from "cudascript";\n${CHILD}`,
  });
  assert.deepEqual(r.diagnostics.map((d) => `${d.code}@${d.span.line}`), ["CS1023@4"]);
});

test("a local that shadows a kernel's name is not a launch, and calling a kernel directly stays CS1008", () => {
  const r = checkKernel(`${CHILD}export const parent = cuda.jit((out: Float32Array) => {
  const child = out;
  child.launch(1, 256)(out);
  child(out);
});
`);
  assert.ok(!codes(r).some((c) => c.startsWith("CS1023")), codes(r).join(", "));
  const direct = checkKernel(`${CHILD}export const parent = cuda.jit((out: Float32Array) => {
  child(out);
});
`);
  assert.deepEqual(codes(direct), ["CS1008@6"]);
});
