/** `cudascript/esbuild` in a user's esbuild build (ESM and CommonJS output). */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import { build, type Message } from "esbuild";
import cudascript from "cudascript/esbuild";
import { makeProject, runBundle } from "./project";

describe("bundlers: esbuild", () => {
  const project = makeProject("esbuild");
  after(() => project.remove());
  for (const format of ["esm", "cjs"] as const) {
    it(`bundles kernels and a .ts kernel library; the ${format} bundle runs on the simulator's worker threads`, async () => {
      const outfile = path.join(project.out, format === "esm" ? "main.mjs" : "main.cjs");
      await build({ entryPoints: [project.main], outfile, bundle: true, platform: "node", format, logLevel: "silent", plugins: [cudascript()] });
      runBundle(project, outfile);
    });
  }
  it("passes checker warnings on as esbuild warnings with file, line and code", async () => {
    const result = await build({ entryPoints: [project.warn], write: false, bundle: true, platform: "node", logLevel: "silent", plugins: [cudascript()] });
    const warnings = result.warnings.filter((w) => /CS5001/.test(w.text));
    assert.equal(warnings.length, 1);
    assert.match(warnings[0]!.text, /^CS5001: /);
    assert.equal(path.basename(warnings[0]!.location!.file), "warn.ts");
    assert.equal(warnings[0]!.location!.line, 3);
  });
  it("fails the build on a checker error with its file, line and code", async () => {
    await assert.rejects(build({ entryPoints: [project.bad], write: false, bundle: true, platform: "node", logLevel: "silent", plugins: [cudascript()] }), (e: { errors: Message[] }) => {
      assert.equal(e.errors.length, 1);
      assert.match(e.errors[0]!.text, /^CS1001: /);
      assert.equal(path.basename(e.errors[0]!.location!.file), "bad.ts");
      assert.equal(e.errors[0]!.location!.line, 3);
      return true;
    });
  });
});
