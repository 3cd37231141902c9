/**
 * Recursion on the simulator (issue 31 item 3): the depth limit (a kernel's recursionDepth, default 64)
 * is enforced with CSR086 naming the function and the depth; an invalid option is CS2014.
 */
import * as assert from "node:assert/strict";
import { test } from "node:test";
import * as path from "node:path";
import { CudaScriptError } from "cudascript";
import { generateCuda, KernelChecker, makeArtifact } from "@cudascript/compiler";
import { checkKernel, codes } from "../support/check-sources";
import { compileSource, kernel, REPO } from "./helpers";

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

test("mutual recursion across files (isEven in one, isOdd in the other) compiles when the results are written and runs", () => {
  const dir = path.join(REPO, "test", "simulator");
  const even = path.join(dir, `__rec_even_${process.pid}.ts`), odd = path.join(dir, `__rec_odd_${process.pid}.ts`);
  const checker = new KernelChecker();
  checker.setFileText(
    even,
    `import { cuda, i32 } from "cudascript";
import { isOdd } from "./__rec_odd_${process.pid}";
export const isEven: (n: i32) => i32 = cuda.device((n: i32): i32 => (n === 0 ? 1 : isOdd(n - 1)));
export const parity = cuda.jit((out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < out.length) out[i] = isEven(i);
});
`,
  );
  checker.setFileText(odd, `import { cuda, i32 } from "cudascript";
import { isEven } from "./__rec_even_${process.pid}";
export const isOdd: (n: i32) => i32 = cuda.device((n: i32): i32 => (n === 0 ? 0 : isEven(n - 1)));
`);
  assert.deepEqual(checker.checkFile(odd).diagnostics.map((d) => d.code), []);
  const r = checker.checkFile(even);
  assert.deepEqual(r.diagnostics.map((d) => d.code), []);
  const out = new Int32Array(40);
  kernel(makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes }), "parity").launch(1, 64)(out);
  assert.deepEqual([...out], Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 1 : 0)));
  assert.match(generateCuda(r.module).source, /static __device__ __noinline__ int isOdd\(int n\);/);
});
