/** `cudascript/rspack` in an Rspack build for Node (CommonJS and ES module output). */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import cudascript from "cudascript/rspack";
import { assertNamesBadKernel, assertNamesWarning, makeProject, runBundle, type Project } from "./project";
import { runBuild, webpackConfig, type Format } from "./webpack-like";

async function rspackBuild(project: Project, entry: string, format: Format): Promise<{ file: string; warnings: string[] }> {
  const { rspack } = await import("@rspack/core");
  const tsRule = { test: /\.ts$/, loader: "builtin:swc-loader", options: { jsc: { parser: { syntax: "typescript" } } }, type: "javascript/auto" };
  return runBuild(rspack as never, webpackConfig(project, entry, format, tsRule, cudascript()));
}

describe("bundlers: rspack", () => {
  const project = makeProject("rspack");
  after(() => project.remove());
  for (const format of ["esm", "cjs"] as const) {
    it(`bundles kernels and a .ts kernel library; the ${format} bundle runs on the simulator's worker threads`, async () => {
      runBundle(project, (await rspackBuild(project, project.main, format)).file);
    });
  }
  it("passes checker warnings on as build warnings with file, line and code", async () => {
    assertNamesWarning((await rspackBuild(project, project.warn, "cjs")).warnings);
  });
  it("fails the build on a checker error with its file, line and code", async () => {
    await assert.rejects(rspackBuild(project, project.bad, "cjs"), (e: Error) => {
      assertNamesBadKernel(e.message);
      return true;
    });
  });
});
