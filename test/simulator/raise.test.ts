/**
 * Exceptions in kernels on the simulator (issue 31 item 2): Numba's test_exceptions kernels, ported
 * (test/corpus/valid/raise_numba_ports.ts), launched with a thread that throws. The launch fails with
 * CSR085 naming the message, kernel, device function, file:line, block and thread; the host catches it.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { test } from "node:test";
import { cuda, CudaScriptError } from "cudascript";
import { checkKernel, codes } from "../support/check-sources";
import { compileFile, compileSource, kernel, REPO } from "./helpers";

const PORTS = path.join(REPO, "test", "corpus", "valid", "raise_numba_ports.ts");

function raised(f: () => void): CudaScriptError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof CudaScriptError, String(e));
    assert.equal(e.code, "CSR085", e.message);
    return e;
  }
  assert.fail("the launch did not fail");
}

test("test_user_raise: foo(false) runs, foo(true) fails with the kernel's message, catchable around launch + synchronize", () => {
  const a = compileFile(PORTS);
  const out = new Int32Array(1);
  kernel(a, "userRaise").launch(1, 1)(false, out);
  cuda.synchronize();
  assert.equal(out[0], 1);
  const e = raised(() => {
    kernel(a, "userRaise").launch(1, 1)(true, out);
    cuda.synchronize();
  });
  assert.match(e.message, /^CSR085: kernel raised an error at .*raise_numba_ports\.ts:9:16 in kernel 'userRaise', block \(0, 0, 0\), thread \(0, 0, 0\): ValueError$/);
  assert.deepEqual({ ...e.details, file: undefined }, { kind: "exception", kernel: "userRaise", file: undefined, line: 9, col: 16, block: [0, 0, 0], thread: [0, 0, 0], message: "ValueError", array: undefined, index: undefined });
});

test("test_raise_in_device_function: the device function's throw names it, and the thread that called it", () => {
  const a = compileFile(PORTS);
  const e = raised(() => kernel(a, "callsRaising").launch(2, 4)(Int32Array.from([1, 2, 3, 4, 5, -6, 7, 8]), new Int32Array(8)));
  assert.match(e.message, /in kernel 'callsRaising' \(device function 'checked'\), block \(1, 0, 0\), thread \(1, 0, 0\): RangeError: Device Function Error: -6 is negative$/);
});

test("test_raise_causing_warp_diverge: one thread of a warp raises, the first thrower is reported", () => {
  const a = compileFile(PORTS);
  const e = raised(() => kernel(a, "divergeRaise").launch(2, 64)(70, new Int32Array(128)));
  assert.equal(e.details?.message, "thread 70 raised");
  assert.deepEqual([e.details?.block, e.details?.thread], [[1, 0, 0], [6, 0, 0]]);
});

test("console.assert fails as Node prints it: 'Assertion failed: ' and the message formatted as console.log formats it", () => {
  const a = compileFile(PORTS);
  const e = raised(() => kernel(a, "asserted").launch(1, 4)(Float32Array.from([1, 2, 3.5, 4]), 3));
  assert.equal(e.details?.message, "Assertion failed: x[2] = 3.5 exceeds 3: true");
});

test("Numba's debug: true kernel option is accepted; a kernel that raises nothing runs as before", () => {
  const a = compileSource(`import { cuda, i32 } from "cudascript";
export const k = cuda.jit((x: Int32Array, n: i32) => {
  const i = cuda.grid(1);
  console.assert(n >= 0);
  if (i < x.length) x[i] = n;
}, { debug: true });
`);
  const x = new Int32Array(3);
  kernel(a, "k").launch(1, 3)(x, 7);
  assert.deepEqual([...x], [7, 7, 7]);
  assert.equal(raised(() => kernel(a, "k").launch(1, 3)(x, -1)).details?.message, "Assertion failed");
});

test("what a kernel cannot throw is CS2045 saying what to write; try/catch stays CS1005; a throw ends a device function's paths (no CS2013)", () => {
  const r = checkKernel(`const f = cuda.device((x: i32): i32 => {
  if (x > 0) return x;
  throw new Error("not positive");
});
export const k = cuda.jit((x: Int32Array) => {
  const i = cuda.grid(1);
  if (i === 0) throw 42;
  if (i === 1) throw new Error(x);
  if (i === 2) throw new Error("a", { cause: 1 });
  if (i === 3) console.assert();
  try { x[0] = f(i); } catch { x[0] = 0; }
});
`);
  assert.deepEqual(codes(r), ["CS2045@7", "CS2045@8", "CS2045@9", "CS2045@10", "CS1005@11"]);
  assert.match(r.diagnostics[0]!.message, /write throw new Error\("…"\)/);
});
