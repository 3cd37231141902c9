/** `cudascript/webpack` in a webpack build for Node (CommonJS and ES module output). */
import * as assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import webpack from "webpack";
import cudascript from "cudascript/webpack";
import { assertNamesBadKernel, assertNamesWarning, makeProject, runBundle, type Project } from "./project";
import { runBuild, webpackConfig, type Format } from "./webpack-like";

function webpackBuild(project: Project, entry: string, format: Format): Promise<{ file: string; warnings: string[] }> {
  const tsRule = { test: /\.ts$/, loader: require.resolve("./strip-types-loader") };
  return runBuild(webpack as never, webpackConfig(project, entry, format, tsRule, cudascript()));
}

describe("bundlers: webpack", () => {
  const project = makeProject("webpack");
  after(() => project.remove());
  for (const format of ["esm", "cjs"] as const) {
    it(`bundles kernels and a .ts kernel library; the ${format} bundle runs on the simulator's worker threads`, async () => {
      runBundle(project, (await webpackBuild(project, project.main, format)).file);
    });
  }
  it("passes checker warnings on as build warnings with file, line and code", async () => {
    assertNamesWarning((await webpackBuild(project, project.warn, "cjs")).warnings);
  });
  it("fails the build on a checker error with its file, line and code", async () => {
    await assert.rejects(webpackBuild(project, project.bad, "cjs"), (e: Error) => {
      assertNamesBadKernel(e.message);
      return true;
    });
  });
});
