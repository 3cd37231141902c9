/**
 * Deep and huge generated inputs: each gets CS1021 ("nested too deeply") on its own line instead of a
 * stack overflow (CS9001, a crash, or a raw RangeError), and the code just under the limit compiles.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { KernelChecker } from "../checker/checker";
import { generateCuda } from "../cuda/generate";
import { makeArtifact } from "../js/artifact";
import { MAX_NESTING_DEPTH } from "./nesting";

const HEAD = 'import { cuda, f32, i32 } from "cudascript";\n';
/** A kernel whose body is `body`, starting on line 5, and a launch after it. */
const kernel = (body: string) => `${HEAD}export const k = cuda.jit((a: Float32Array, x: f32) => {\n  const i = cuda.grid(1);\n  const b = cuda.local.array(4, i32);\n${body}\n});\nk.launch(1, 32)(new Float32Array(32), 2);\n`;

const deep: Record<string, (n: number) => string> = {
  "nested parentheses": (n) => `  a[0] = ${"(".repeat(n)}x${")".repeat(n)};`,
  "nested ifs": (n) => `${"  if (i < a.length) {\n".repeat(n)}  a[i] = x;\n${"  }\n".repeat(n)}`,
  "a long sum": (n) => `  a[0] = ${Array.from({ length: n }, () => "x").join(" + ")};`,
  "a long else-if chain": (n) => `  if (i === 0) a[0] = 0;\n${Array.from({ length: n }, (_, j) => `  else if (i === ${j + 1}) a[i] = ${j};`).join("\n")}`,
  "a deep ?: chain": (n) => `  a[0] = ${Array.from({ length: n }, (_, j) => `i === ${j} ? ${j} : `).join("")}x;`,
  "deep array index nesting": (n) => `  a[${"b[".repeat(n)}0${"]".repeat(n)}] = x;`,
};

function check(text: string, file = "/virtual/deep/k.ts") {
  const checker = new KernelChecker();
  checker.setFileText(file, text);
  return checker.checkFile(file);
}

for (const [what, body] of Object.entries(deep)) {
  for (const n of [1000, 4000]) {
    test(`${what} (${n}): CS1021 on its line, no CS9001, nothing else`, () => {
      const text = kernel(body(n));
      const r = check(text);
      const codes = r.diagnostics.map((d) => d.code);
      assert.deepEqual(codes, ["CS1021"], r.diagnostics.map((d) => `${d.code}@${d.span.line}: ${d.message.slice(0, 200)}`).join("\n"));
      const d = r.diagnostics[0]!;
      const lineText = text.split("\n")[d.span.line - 1]!;
      assert.ok(d.span.line >= 5 && d.span.line < text.split("\n").length - 2, `inside the kernel body, at line ${d.span.line}`);
      assert.ok(lineText.trim().length > 0, "on a line with code");
    });
  }
  test(`${what} just under the limit checks clean and compiles to CUDA C++ and JavaScript`, () => {
    // Each construct costs a few syntax levels per repetition; a quarter of the limit stays under it.
    const r = check(kernel(body(Math.floor(MAX_NESTING_DEPTH / 4))));
    assert.deepEqual(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code), []);
    assert.ok(generateCuda(r.module).source.includes("k("));
    assert.ok(makeArtifact(r.module, { staticSharedBytes: r.staticSharedBytes }).kernels.k);
  });
}

test("nesting in host code is reported too, and the launches elsewhere in the file are still checked", () => {
  const text = `${HEAD}export const k = cuda.jit((a: Float32Array) => {\n  a[0] = 1;\n});\nconst y = 1;\n${"if (y > 0) {\n".repeat(1000)}k.launch(1, 32)(new Float32Array(4));\n${"}\n".repeat(1000)}k.launch(1, 2000)(new Float32Array(4));\n`;
  const r = check(text);
  assert.deepEqual(r.diagnostics.map((d) => d.code), ["CS1021", "CS4001"]);
});

test("a device function too deep to lower gives CS1021 at its body, not cascades at its callers", () => {
  const text = `${HEAD}export const f = cuda.device((x: f32): f32 => ${Array.from({ length: 2000 }, () => "x").join(" + ")});\nexport const k = cuda.jit((a: Float32Array) => {\n  a[0] = f(a[0]);\n});\n`;
  const r = check(text);
  assert.deepEqual(r.diagnostics.map((d) => `${d.code}@${d.span.line}`), ["CS1021@2"]);
});
