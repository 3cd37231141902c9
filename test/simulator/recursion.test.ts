/**
 * Recursion on the simulator (issue 31 item 3): the depth limit (a kernel's recursionDepth, default 64)
 * is enforced with CSR086 naming the function and the depth; an invalid option is CS2014.
 */
import * as assert from "node:assert/strict";
import { test } from "node:test";
import { CudaScriptError } from "cudascript";
import { checkKernel, codes } from "../support/check-sources";
import { compileSource, kernel } from "./helpers";

const SOURCE = `import { cuda, i32 } from "cudascript";
const down = cuda.device((n: i32): i32 => (n <= 0 ? 0 : 1 + down(n - 1)));
export const byDefault = cuda.jit((n: i32, out: Int32Array) => {
  out[cuda.grid(1)] = down(n);
});
export const deeper = cuda.jit((n: i32, out: Int32Array) => {
  out[cuda.grid(1)] = down(n);
}, { recursionDepth: 1000 });
`;

test("64 nested calls by default; the 65th is CSR086 naming the function, the depth and the option; recursionDepth raises it; the next launch starts at depth 0", () => {
  const a = compileSource(SOURCE);
  const out = new Int32Array(1);
  kernel(a, "byDefault").launch(1, 1)(63, out);
  assert.equal(out[0], 63);
  assert.throws(
    () => kernel(a, "byDefault").launch(1, 1)(64, out),
    (e: unknown) =>
      e instanceof CudaScriptError &&
      e.code === "CSR086" &&
      e.details?.kind === "recursion-depth" &&
      /recursion too deep at .*:2:\d+ in kernel 'byDefault' \(device function 'down'\), block \(0, 0, 0\), thread \(0, 0, 0\): device function 'down' was called 65 deep, past the kernel's recursionDepth of 64 .*cuda\.jit\(fn, \{ recursionDepth: 256 \}\)/.test(e.message),
  );
  kernel(a, "deeper").launch(1, 1)(900, out);
  assert.equal(out[0], 900);
  kernel(a, "byDefault").launch(1, 1)(10, out);
  assert.equal(out[0], 10);
});

test("recursionDepth takes a constant whole number from 1 to 100000 (CS2014); a recursive function that synchronises is CS1027", () => {
  const r = checkKernel(`const f: (n: i32) => i32 = cuda.device((n: i32): i32 => {
  cuda.syncthreads();
  return n <= 0 ? 0 : f(n - 1);
});
export const k = cuda.jit((out: Int32Array) => {
  out[0] = f(2);
}, { recursionDepth: 0 });
`);
  assert.deepEqual(codes(r), ["CS1027@2", "CS2014@7"]);
});
