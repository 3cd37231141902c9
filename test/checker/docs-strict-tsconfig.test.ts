/**
 * Kernels as the docs show them type-check under TypeScript's strictest defaults — the tsconfig that the
 * repository's own `tsc --init` writes (strict, noUncheckedIndexedAccess, exactOptionalPropertyTypes,
 * verbatimModuleSyntax, isolatedModules, module nodenext) in the ES module project it implies — with no
 * `!`, and the CudaScript checker accepts the same files. Covers the TypeScript blocks of README.md,
 * docs/kernel-language.md and docs/host-api.md, and every program in examples/.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { KernelChecker } from "@cudascript/compiler";
import { REPO } from "../simulator/helpers";

const TSC = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
const DOCS = ["README.md", "docs/kernel-language.md", "docs/host-api.md"];

function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```/gm)].map((m) => m[1]!);
}

/** A project made by `tsc --init`, as an ES module package; "cudascript" resolves to the repository's. */
function initProject(dir: string): Record<string, unknown> {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: path.basename(dir), private: true, type: "module" }));
  const init = spawnSync(process.execPath, [TSC, "--init"], { cwd: dir, encoding: "utf8" });
  assert.equal(init.status, 0, init.stdout + init.stderr);
  // tsconfig.json is JSONC: drop the comment lines and trailing commas to read the options it set.
  const text = fs.readFileSync(path.join(dir, "tsconfig.json"), "utf8").replace(/^\s*\/\/.*$/gm, "").replace(/,(\s*[}\]])/g, "$1");
  return (JSON.parse(text) as { compilerOptions: Record<string, unknown> }).compilerOptions;
}

function tsc(dir: string, extra: readonly string[] = []): string {
  const r = spawnSync(process.execPath, [TSC, "-p", ".", "--noEmit", ...extra], { cwd: dir, encoding: "utf8" });
  return r.status === 0 ? "" : `${r.stdout}${r.stderr}` || `tsc exited with ${r.status ?? r.signal}`;
}

function checkerErrors(files: readonly string[]): string[] {
  const checker = new KernelChecker();
  return files.flatMap((f) =>
    checker
      .checkFile(f)
      .diagnostics.filter((d) => d.severity === "error")
      .map((d) => `${path.basename(f)}:${d.span.line}: ${d.code} ${d.message}`),
  );
}

describe("kernels as documented, under tsc --init's strictest defaults", { timeout: 300_000 }, () => {
  let root = "";
  before(() => {
    // Inside the repository, so that the projects resolve "cudascript" from its node_modules.
    root = fs.mkdtempSync(path.join(REPO, "test", "dist", "strict-tsconfig-"));
  });
  after(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it("tsc --init turns on the settings this test is about", () => {
    const options = initProject(path.join(root, "defaults"));
    for (const flag of ["strict", "noUncheckedIndexedAccess", "exactOptionalPropertyTypes", "verbatimModuleSyntax", "isolatedModules"]) assert.equal(options[flag], true, flag);
    assert.equal(options.module, "nodenext");
  });

  it("README's and the docs' TypeScript blocks pass tsc and the CudaScript checker", () => {
    const dir = path.join(root, "docs");
    initProject(dir);
    const files: string[] = [];
    for (const doc of DOCS) {
      const blocks = tsBlocks(fs.readFileSync(path.join(REPO, doc), "utf8"));
      assert.ok(blocks.length > 0, `${doc} has no ts block`);
      blocks.forEach((code, i) => {
        const file = path.join(dir, `${doc.replace(/[/.]/g, "_")}_${i + 1}.ts`);
        fs.writeFileSync(file, code);
        files.push(file);
      });
    }
    assert.equal(tsc(dir), "", "tsc --noEmit under tsc --init's tsconfig");
    assert.deepEqual(checkerErrors(files), []);
  });

  it("examples/ pass tsc and the CudaScript checker", () => {
    const dir = path.join(root, "examples");
    initProject(dir);
    const files = fs
      .readdirSync(path.join(REPO, "examples"))
      .filter((f) => f.endsWith(".ts"))
      .map((f) => {
        fs.copyFileSync(path.join(REPO, "examples", f), path.join(dir, f));
        return path.join(dir, f);
      });
    assert.ok(files.length >= 5);
    // The examples are Node programs (process.exitCode): the one addition tsc --init's comments suggest.
    assert.equal(tsc(dir, ["--types", "node"]), "", "tsc --noEmit under tsc --init's tsconfig, with @types/node");
    assert.deepEqual(checkerErrors(files), []);
  });
});
