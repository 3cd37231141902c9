/**
 * One mistake, one diagnostic: a kernel or device-function parameter of a type kernels cannot take
 * (`Rec[]`, `string`, `number[]`) is CS2004 on the parameter, and the body lines that use it — indexing,
 * `.length`, arithmetic, passing it on, the bounds guard rule — say nothing more.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkKernel } from "../../../test/dist/support/check-sources";

for (const type of ["Rec[]", "string", "number[]"]) {
  test(`a parameter of type ${type} is one CS2004 on the parameter and nothing on the lines that use it`, () => {
    const r = checkKernel(`interface Rec { a: f32; b: f32 }
const first = cuda.device((xs: ${type}, i: i32): f32 => xs[i] + xs.length);
export const k = cuda.jit((xs: ${type}, out: Float32Array) => {
  const i = cuda.grid(1);
  if (i >= out.length) return;
  const v = xs[i];
  const n = xs.length;
  out[i] = v + n + first(xs, i);
  if (xs[i] > 0) out[0] = xs[i] * 2;
});`);
    const found = r.diagnostics.map((d) => `${d.code}@${d.span.line - 1}:${d.span.col}`);
    // Line 2: the device function's parameter; line 3: the kernel's. Column of the type annotation.
    const col = (line: string) => line.indexOf(`xs: ${type}`) + 5;
    assert.deepEqual(found, [`CS2004@2:${col(`const first = cuda.device((xs: ${type}`)}`, `CS2004@3:${col(`export const k = cuda.jit((xs: ${type}`)}`], r.diagnostics.map((d) => d.message).join("\n"));
  });
}
