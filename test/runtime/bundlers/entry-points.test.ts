/**
 * The plugin's entry points load from ES modules and CommonJS alike: `import x from "cudascript/vite"`
 * gives the plugin function (not a CommonJS exports object), `require` gives `default` and the named
 * export, and TypeScript types an ES module config the same way.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import * as ts from "typescript";
import { makeProject } from "./project";

const BUNDLERS = ["esbuild", "vite", "rollup", "rolldown", "webpack", "rspack"];

describe("bundlers: entry points", () => {
  const project = makeProject("entries");
  after(() => project.remove());
  it("import default and { cudascript } give the same plugin function; require gives .default and .cudascript", () => {
    const esm = BUNDLERS.map((b, i) => `import p${i}, { cudascript as n${i} } from "cudascript/${b}";\nlog.push(["${b}", typeof p${i}, p${i} === n${i}]);`).join("\n");
    fs.writeFileSync(path.join(project.dir, "check.mjs"), `const log = [];\n${esm}\nimport { cudascriptPlugin } from "cudascript/esbuild";\nlog.push(["esbuild cudascriptPlugin", typeof cudascriptPlugin, cudascriptPlugin === p0]);\nconsole.log(JSON.stringify(log));\n`);
    const cjs = `console.log(JSON.stringify(${JSON.stringify(BUNDLERS)}.map((b) => { const m = require("cudascript/" + b); return [b, typeof m.default, m.default === m.cudascript]; })));`;
    fs.writeFileSync(path.join(project.dir, "check.cjs"), cjs);
    const expected = BUNDLERS.map((b) => [b, "function", true]);
    for (const file of ["check.mjs", "check.cjs"]) {
      const r = spawnSync(process.execPath, [file], { cwd: project.dir, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stderr, "", `${file} printed warnings`);
      assert.deepEqual(JSON.parse(r.stdout), file === "check.mjs" ? [...expected, ["esbuild cudascriptPlugin", "function", true]] : expected);
    }
  });
  it("an ES module config type-checks: the default import is typed as each bundler's plugin factory", () => {
    const config = path.join(project.dir, "config.mts");
    fs.writeFileSync(
      config,
      [
        'import esbuild from "cudascript/esbuild";',
        'import vite from "cudascript/vite";',
        'import webpack from "cudascript/webpack";',
        'import { cudascript as rolldown, type CudaScriptPluginOptions } from "cudascript/rolldown";',
        'const options: CudaScriptPluginOptions = { warnings: false, cudaArchs: ["sm_86"] };',
        'export const names: string[] = [esbuild(options).name, vite().name, rolldown(options).name];',
        "export const apply: Function = webpack().apply;",
        "",
      ].join("\n"),
    );
    const program = ts.createProgram([config], { module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, strict: true, noEmit: true, skipLibCheck: true, types: ["node"], typeRoots: [path.join(__dirname, "..", "..", "..", "..", "node_modules", "@types")] });
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    assert.deepEqual(diagnostics, []);
  });
});

describe("bundlers: Node.js too old for unplugin", () => {
  it("loading a plugin entry point where require() of an ES module fails (Node < 20.19) is CSR054 saying to upgrade", () => {
    const project = makeProject("old-node");
    try {
      // What Node.js before 20.19 does when CommonJS requires an ES module such as unplugin.
      const preload = path.join(project.dir, "old-node.cjs");
      fs.writeFileSync(
        preload,
        `const Module = require("node:module"); const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === "unplugin") throw Object.assign(new Error("require() of ES Module unplugin not supported."), { code: "ERR_REQUIRE_ESM" });
  return load.call(this, request, ...rest);
};`,
      );
      const r = spawnSync(process.execPath, ["--require", preload, "-e", 'try { require("cudascript/vite"); } catch (e) { console.log(e.message); }'], { cwd: project.dir, encoding: "utf8" });
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^CSR054: the CudaScript bundler plugins need Node\.js 20\.19 or newer .*upgrade Node\.js/);
    } finally {
      project.remove();
    }
  });
});
