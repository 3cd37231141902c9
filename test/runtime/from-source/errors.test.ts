/**
 * When a kernel cannot be compiled from source, its first launch says why and what to do: CSR051 when
 * the source cannot be found (eval'd code, JavaScript with no map and no .ts beside it, a bundle built
 * without the plugin, naming the bundler when it shows), CSR052 with each checker error as
 * `file:line:col - error CSxxxx: message`, CSR053 when no declaration of the file is the kernel.
 */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { describe, it } from "node:test";
import { makeProject, REPO, type Project } from "./project";

const TSX_CLI = path.join(REPO, "node_modules", "tsx", "dist", "cli.mjs");

/** A launch that prints the error it threw as { code, message }. */
const LAUNCH_AND_REPORT = `
try {
  k.launch(1, 1)(new Float32Array(1));
  console.log(JSON.stringify({ code: "none" }));
} catch (e) {
  console.log(JSON.stringify({ code: e.code, message: e.message }));
}
`;

function launchError(p: Project, args: readonly string[]): { code: string; message: string } {
  return p.runJson(args) as { code: string; message: string };
}

describe("compile-from-source errors", () => {
  it("CSR051: a kernel made by eval has no source file", () => {
    const p = makeProject({ "main.js": `const { cuda } = require("cudascript");\nconst k = eval("cuda.jit((x) => { x[0] = 1; })");\n${LAUNCH_AND_REPORT}` });
    try {
      const e = launchError(p, ["main.js"]);
      assert.equal(e.code, "CSR051", e.message);
      assert.match(e.message, /cuda\.jit was called at eval .*made by eval or new Function.*Declare the kernel in a TypeScript file instead/);
      assert.match(e.message, /cudascript\/esbuild.*cudascript\/vite.*cudascript\/webpack.*cudascript\/rspack.*npx cudascript run/);
    } finally {
      p.remove();
    }
  });

  it("CSR051: JavaScript with no source map and no .ts beside it names the file and position it found", () => {
    const p = makeProject({ "main.js": `const { cuda } = require("cudascript");\nconst k = cuda.jit((x) => { x[0] = 1; });\n${LAUNCH_AND_REPORT}` });
    try {
      const e = launchError(p, ["main.js"]);
      assert.equal(e.code, "CSR051", e.message);
      assert.ok(e.message.includes(`${path.join(p.dir, "main.js")}:2:`), e.message);
      assert.match(e.message, /no source map .* and no \.ts file beside it/);
    } finally {
      p.remove();
    }
  });

  it("CSR051: a webpack bundle built without the plugin names cudascript/webpack", () => {
    const p = makeProject(
      {
        "src/kernels.js": 'const { cuda } = require("cudascript");\nexports.k = cuda.jit((x) => { x[0] = 1; });\n',
        "src/main.js": `const { k } = require("./kernels");\n${LAUNCH_AND_REPORT}`,
        "build.js": [
          'const webpack = require("webpack");',
          "webpack({ mode: 'development', devtool: false, target: 'node', context: __dirname, entry: './src/main.js',",
          "  output: { path: __dirname + '/out', filename: 'bundle.js' }, externals: { cudascript: 'commonjs cudascript' } },",
          "  (err, stats) => { if (err || stats.hasErrors()) { console.error(err || stats.toString()); process.exit(1); } });",
        ].join("\n"),
      },
      ["cudascript", "webpack"],
    );
    try {
      const build = p.run(["build.js"]);
      assert.equal(build.status, 0, build.stderr);
      const e = launchError(p, ["out/bundle.js"]);
      assert.equal(e.code, "CSR051", e.message);
      assert.match(e.message, /bundle\.js:\d+:\d+/);
      assert.match(e.message, /webpack bundle: add the CudaScript plugin 'cudascript\/webpack'/);
    } finally {
      p.remove();
    }
  });

  it("CSR052: the checker's errors, one line each as file:line:col - error CSxxxx: message", () => {
    const kernels = [
      'import { cuda } from "cudascript";',
      "export const k = cuda.jit((x: Float32Array) => {",
      "  const i = cuda.grid(1);",
      '  x[i] = "text".length;',
      "});",
      "",
    ].join("\n");
    const p = makeProject({ "kernels.ts": kernels, "main.ts": `import { k } from "./kernels";\n${LAUNCH_AND_REPORT}` });
    try {
      const e = launchError(p, [TSX_CLI, "main.ts"]);
      assert.equal(e.code, "CSR052", e.message);
      const file = path.join(p.dir, "kernels.ts");
      assert.ok(e.message.startsWith(`CSR052: the kernels of ${file} do not compile (1 error)`), e.message);
      assert.match(e.message, new RegExp(`\\n${file.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}:4:10 - error CS1001: .+`), "1-based line:col, as check prints it");
    } finally {
      p.remove();
    }
  });

  it("CSR053: a kernel declared inside a function is not one CudaScript can pick out of its file", () => {
    const kernels = [
      'import { cuda } from "cudascript";',
      "export const ok = cuda.jit((x: Float32Array) => { x[0] = 2; });",
      "export function make() {",
      "  return cuda.jit((x: Float32Array) => { x[0] = 1; });",
      "}",
      "",
    ].join("\n");
    const p = makeProject({ "kernels.ts": kernels, "main.ts": `import { make } from "./kernels";\nconst k = make();\n${LAUNCH_AND_REPORT}` });
    try {
      const e = launchError(p, [TSX_CLI, "main.ts"]);
      assert.equal(e.code, "CSR053", e.message);
      assert.ok(e.message.includes(`${path.join(p.dir, "kernels.ts")}:4:`), e.message);
      assert.match(e.message, /no kernel of that file \(ok\) is declared there.*at module level/);
    } finally {
      p.remove();
    }
  });
});
