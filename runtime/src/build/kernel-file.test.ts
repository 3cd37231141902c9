import { test } from "node:test";
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { buildKernelFile, loadCompiler, rewriteCompiledKernels, rewriteKernels } from "./kernel-file";

const SOURCE = `import { cuda, f32, type Array1D } from "cudascript";
export const scale = cuda.jit((a: f32, x: Array1D<f32>) => {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = a * x[i];
});
export const twice = cuda.jit(function twice(x: Array1D<f32>) {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = 2 * x[i];
}, { fastmath: false });
`;

function artifactOf(text: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kernel-file-"));
  const file = path.join(dir, "kernels.ts");
  fs.writeFileSync(file, text);
  const compiler = loadCompiler();
  const built = buildKernelFile(new compiler.KernelChecker(), file, text);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(built.errors, []);
  return { file, artifact: built.artifact! };
}

for (const module of ["CommonJS", "ESNext"] as const) {
  test(`tsc's ${module} output of a kernel file gets each kernel's artifact, with a "use strict" prologue kept first`, () => {
    const { file, artifact } = artifactOf(SOURCE);
    const { ts } = loadCompiler();
    const js = ts.transpileModule(SOURCE, { compilerOptions: { module: ts.ModuleKind[module], target: ts.ScriptTarget.ES2022, alwaysStrict: true } }).outputText;
    const out = rewriteCompiledKernels(js, file, artifact);
    // A directive prologue stays first (CommonJS); an ES module has none and gets none.
    assert.ok(out.startsWith('"use strict";') === js.startsWith('"use strict";'), "the directive prologue is kept");
    assert.match(out, /=> \{[\s\S]*?\}, undefined, __cudascript_artifact, "scale"\)/);
    assert.match(out, /\{ fastmath: false \}, __cudascript_artifact, "twice"\)/);
    assert.equal(out.split("\n").length, js.split("\n").length, "lines keep their numbers");
    // The artifact is declared before the calls that use it.
    assert.ok(out.indexOf("var __cudascript_artifact") < out.indexOf('"scale")'));
  });
}

test("JavaScript with no kernel call of the artifact's names is left as it is", () => {
  const { file, artifact } = artifactOf(SOURCE);
  const js = 'const other = something.jit(() => {});\n';
  assert.equal(rewriteCompiledKernels(js, file, artifact), js);
});

test("cuda.guvectorize(fn, layout) gets its artifact after the layout, in the TypeScript the bundlers rewrite and in tsc's output", () => {
  const text = `import { cuda, f32, type Array1D } from "cudascript";
export const dot = cuda.guvectorize((a: Array1D<f32>, b: Array1D<f32>, out: Array1D<f32>): void => {
  out[0] = a[0] * b[0];
}, "(n),(n)->()");
`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kernel-file-"));
  const file = path.join(dir, "kernels.ts");
  fs.writeFileSync(file, text);
  const compiler = loadCompiler();
  const checker = new compiler.KernelChecker();
  const built = buildKernelFile(checker, file, text);
  fs.rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(built.errors, []);
  assert.deepEqual(Object.keys(built.artifact!.kernels), ["dot_guvectorize"]);
  const ts = rewriteKernels(text, built.check, checker, built.artifact!);
  assert.match(ts, /\}, "\(n\),\(n\)->\(\)", __cudascript_artifact, "dot_guvectorize"\);/);
  const js = loadCompiler().ts.transpileModule(text, { compilerOptions: { module: loadCompiler().ts.ModuleKind.CommonJS } }).outputText;
  assert.match(rewriteCompiledKernels(js, file, built.artifact!), /\}, "\(n\),\(n\)->\(\)", __cudascript_artifact, "dot_guvectorize"\);/);
});
