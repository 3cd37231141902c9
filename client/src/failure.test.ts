import { test } from "node:test";
import * as assert from "node:assert/strict";
import { failureLine } from "./failure";

test("a kernel fault: the CSR020 line, not the '(from the host program at …)' line after it", () => {
  const output = [
    "before",
    "main.ts:10:3 - warning CS5005: threads whose index i + 1 is ≥ out.length would access past the end of 'out'",
    "cudascript: running on the simulator: no GPU driver — cudascript doctor",
    "cudascript: error CSR020: out-of-bounds write of array 'out' at main.ts:10:3 in kernel 'bad', block (0, 0, 0), thread (31, 0, 0): index 32 is outside 0..31",
    "  (from the host program at main.ts:16:19)",
    "",
  ].join("\n");
  assert.equal(failureLine(output), "error CSR020: out-of-bounds write of array 'out' at main.ts:10:3 in kernel 'bad', block (0, 0, 0), thread (31, 0, 0): index 32 is outside 0..31");
});

test("a build that fails: its first checker error, not the summary line", () => {
  const output = "main.ts:3:14 - error CS1001: strings are not supported in kernels\nmain.ts:4:1 - error CS1002: …\ncudascript: main.ts was not run: 2 errors.\n";
  assert.equal(failureLine(output), "main.ts:3:14 - error CS1001: strings are not supported in kernels");
});

test("an uncaught JavaScript error: its message line, not the stack under it", () => {
  const output = "file:///w/main.ts:5\nk(2.5, out);\n^\n\nTypeError: k is not a function\n    at main (/w/main.ts:5:1)\n    at node:internal/main:1:1\n\nNode.js v20.20.2\n";
  assert.equal(failureLine(output), "TypeError: k is not a function");
});

test("anything else: the last line", () => {
  assert.equal(failureLine("a\nsomething went wrong\n"), "something went wrong");
  assert.equal(failureLine(""), "");
});
