/**
 * The checker against the corpus: every valid kernel file gets no diagnostic at all, and every invalid
 * file gets exactly the codes marked on its lines (`// @expect CS1234 [CS…]`) and nothing else.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { KernelChecker } from "@cudascript/compiler";

const corpus = path.resolve(__dirname, "../../corpus");

function kernelFiles(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".ref.ts"))
    .sort()
    .map((f) => path.join(dir, f));
}

/** Expected `code@line` pairs from the markers. */
export function expectedMarkers(text: string): string[] {
  const out: string[] = [];
  text.split("\n").forEach((line, i) => {
    const m = /\/\/\s*@expect\s+((?:CS\d{4}\s*)+)/.exec(line);
    if (m) for (const code of m[1]!.trim().split(/\s+/)) out.push(`${code}@${i + 1}`);
  });
  return out.sort();
}

test("every valid corpus kernel file checks clean", () => {
  const checker = new KernelChecker();
  const files = kernelFiles(path.join(corpus, "valid"));
  assert.ok(files.length >= 20, `expected at least 20 valid corpus files, found ${files.length}`);
  let kernels = 0;
  for (const f of files) {
    const r = checker.checkFile(f);
    kernels += r.module.kernels.length;
    assert.deepEqual(
      r.diagnostics.map((d) => `${d.code}@${d.span.line}: ${d.message}`),
      [],
      path.basename(f),
    );
  }
  assert.ok(kernels >= 20, `expected at least 20 kernels, found ${kernels}`);
});

const invalidDir = path.join(corpus, "invalid");
const invalidFiles = fs.existsSync(invalidDir) ? kernelFiles(invalidDir) : [];

test("the invalid corpus has at least 60 files", () => {
  assert.ok(invalidFiles.length >= 60, `found ${invalidFiles.length}`);
});

for (const f of invalidFiles) {
  test(`invalid/${path.basename(f)}: exactly the marked diagnostics`, () => {
    const checker = new KernelChecker();
    const r = checker.checkFile(f);
    const actual = r.diagnostics.map((d) => `${d.code}@${d.span.line}`).sort();
    const expected = expectedMarkers(fs.readFileSync(f, "utf8"));
    assert.deepEqual(actual, expected, r.diagnostics.map((d) => `  ${d.code}@${d.span.line}: ${d.message}`).join("\n"));
  });
}

test("the sanitizer corpus's out-of-bounds bugs on global arrays are CS5005 on their @bug line, and no other file of it gets CS5005", () => {
  const buggy = path.join(corpus, "buggy");
  const checker = new KernelChecker();
  const found: string[] = [];
  const expected: string[] = [];
  for (const f of kernelFiles(buggy).filter((f) => path.basename(f) !== "case.ts")) {
    const lines = fs.readFileSync(f, "utf8").split("\n");
    const bugLine = lines.findIndex((l) => l.includes("@bug")) + 1;
    if (path.basename(f).startsWith("oob_global")) expected.push(`${path.basename(f)}@${bugLine}`);
    for (const d of checker.checkFile(f).diagnostics) if (d.code === "CS5005") found.push(`${path.basename(f)}@${d.span.line}`);
  }
  assert.ok(expected.length >= 2);
  assert.deepEqual(found.sort(), expected.sort());
});
