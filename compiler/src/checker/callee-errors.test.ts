/**
 * A device function of another file that cannot be compiled is an error at the call in the calling
 * file too: above all recursion across files without written result types (CS1007), which used to
 * compile the recursive call as `0`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { KernelChecker } from "./checker";
import { VIRTUAL_ROOT } from "../../../test/dist/support/check-sources";

const A = `import { cuda, i32 } from "cudascript";
import { odd } from "./b";
export const even = cuda.device((n: i32) => {
  if (n === 0) return 1;
  return odd(n - 1);
});
export const parity = cuda.jit((x: Int32Array, out: Int32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) out[i] = even(x[i]);
});
`;
const B = `import { cuda, i32 } from "cudascript";
import { even } from "./a";
export const odd = cuda.device((n: i32) => {
  if (n === 0) return 0;
  return even(n - 1);
});
`;

function checker(files: Record<string, string>): KernelChecker {
  const c = new KernelChecker();
  for (const [name, text] of Object.entries(files)) c.setFileText(`${VIRTUAL_ROOT}/${name}`, text);
  return c;
}
const at = (c: KernelChecker, name: string) => c.checkFile(`${VIRTUAL_ROOT}/${name}`).diagnostics.map((d) => `${d.code}@${d.span.line}`);

for (const order of [["a.ts", "b.ts"], ["b.ts", "a.ts"]]) {
  test(`recursion across files is CS1007 in each file at its call into the cycle (checked ${order.join(", then ")})`, () => {
    const c = checker({ "a.ts": A, "b.ts": B });
    const got = Object.fromEntries(order.map((f) => [f, at(c, f)]));
    assert.deepEqual(got, { "a.ts": ["CS1007@5"], "b.ts": ["CS1007@5"] });
    // And again, from the caches.
    assert.deepEqual(at(c, "a.ts"), ["CS1007@5"]);
    assert.deepEqual(at(c, "b.ts"), ["CS1007@5"]);
  });
}

test("recursion across files compiles when the result types are written (both orders, and from the caches)", () => {
  const typed = (src: string) => src.replace("(n: i32) =>", "(n: i32): i32 =>");
  for (const order of [["a.ts", "b.ts"], ["b.ts", "a.ts"]]) {
    const c = checker({ "a.ts": typed(A), "b.ts": typed(B) });
    for (const f of [...order, ...order]) assert.deepEqual(at(c, f), [], f);
  }
});

test("the cross-file CS1007 names the callee and points at the recursive call in the other file", () => {
  const d = checker({ "a.ts": A, "b.ts": B }).checkFile(`${VIRTUAL_ROOT}/a.ts`).diagnostics[0]!;
  assert.match(d.message, /^'odd' cannot be compiled: b\.ts:5:10: 'even' is called recursively, so its result type must be written/);
  assert.deepEqual(d.related.map((r) => `${r.span.file.slice(VIRTUAL_ROOT.length + 1)}:${r.span.line}`), ["b.ts:5"]);
});

test("any error in an imported device function (also one reached through it) is reported at the call", () => {
  const lib = `import { cuda, f32 } from "cudascript";
import { inner } from "./deep";
export const scale = cuda.device((x: f32): f32 => inner(x) * 2);
`;
  const deep = `import { cuda, f32 } from "cudascript";
export const inner = cuda.device((x: f32): f32 => x ** 2);
`;
  const main = `import { cuda } from "cudascript";
import { scale } from "./lib";
export const k = cuda.jit((x: Float32Array) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = scale(x[i]);
});
`;
  const c = checker({ "main.ts": main, "lib.ts": lib, "deep.ts": deep });
  assert.deepEqual(at(c, "main.ts"), ["CS1013@5"]);
  assert.deepEqual(at(c, "lib.ts"), ["CS1013@3"]);
  assert.deepEqual(at(c, "deep.ts"), ["CS1013@2"]);
});
