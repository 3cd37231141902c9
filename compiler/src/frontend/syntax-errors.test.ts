/** TypeScript syntax errors in a CudaScript file are reported like tsc reports them, as CS1020, without cascades. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkSources } from "../../../test/dist/support/check-sources";

const HEAD = 'import { cuda, f32 } from "cudascript";\n';
const KERNEL = `${HEAD}
export const k = cuda.jit((a: Float32Array, x: f32) => {
  const i = cuda.grid(1);
  if (i < a.length) {
    a[i] = a[i] * x;
  }
});
`;

function check(text: string) {
  return checkSources({ "k.ts": text }).diagnostics.map((d) => `${d.code}@${d.span.line}:${d.span.col} ${d.message}`);
}

test("a missing ')' is CS1020 with tsc's TS1005 message, on the user's line", () => {
  assert.deepEqual(check(KERNEL.replace("cuda.grid(1);", "cuda.grid(1;")), ["CS1020@4:24 TS1005: ')' expected."]);
});

test("a missing '}' is CS1020, not a clean check", () => {
  assert.deepEqual(check(KERNEL.replace("a[i] * x;\n  }", "a[i] * x;\n")), ["CS1020@8:2 TS1128: Declaration or statement expected."]);
});

test("a missing operand is one CS1020, not CS1015 for the identifier the parser invented", () => {
  assert.deepEqual(check(KERNEL.replace("a[i] * x;", "a[i] * ;")), ["CS1020@6:19 TS1109: Expression expected."]);
});

test("binary garbage after the import is reported as CS1020 only (tsc: 'File appears to be binary')", () => {
  // Bytes 0..255 in a fixed scrambled order, decoded as UTF-8 like a file read from disk.
  const garbage = Buffer.from(Array.from({ length: 256 }, (_, i) => (i * 167 + 13) % 256)).toString("utf8");
  const got = check(HEAD + garbage);
  assert.ok(got.includes("CS1020@1:1 TS1490: File appears to be binary."), got.join("\n"));
  assert.ok(got.every((d) => d.startsWith("CS1020@")), got.join("\n"));
});

test("a syntax error silences only its own statement: other kernels keep their diagnostics", () => {
  const other = `export const s = cuda.jit((a: Float32Array) => {\n  a[0] = "x".length;\n});\n`;
  const got = check(KERNEL.replace("a[i] * x;", "a[i] * ;") + other);
  assert.deepEqual(got.map((d) => d.split(" ")[0]), ["CS1020@6:19", "CS1001@10:10"]);
});
