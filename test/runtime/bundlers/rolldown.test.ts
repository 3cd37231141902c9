/** `cudascript/rolldown` in a rolldown build (ESM and CommonJS output). */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import cudascript from "cudascript/rolldown";
import { assertNamesBadKernel, assertNamesWarning, makeProject, runBundle, type Project } from "./project";

async function rolldownBuild(project: Project, entry: string, format: "esm" | "cjs", warnings: string[] = []): Promise<string> {
  const { rolldown } = await import("rolldown");
  const onLog = (level: string, log: { message: string }) => void (level === "warn" && warnings.push(log.message));
  const bundle = await rolldown({ input: entry, cwd: project.dir, platform: "node", onLog, plugins: [cudascript()] });
  const file = path.join(project.out, format === "esm" ? "main.mjs" : "main.cjs");
  try {
    await bundle.write({ file, format });
  } finally {
    await bundle.close();
  }
  return file;
}

describe("bundlers: rolldown", () => {
  const project = makeProject("rolldown");
  after(() => project.remove());
  for (const format of ["esm", "cjs"] as const) {
    it(`bundles kernels and a .ts kernel library; the ${format} bundle runs on the simulator's worker threads`, async () => {
      runBundle(project, await rolldownBuild(project, project.main, format));
    });
  }
  it("passes checker warnings on as build warnings with file, line and code", async () => {
    const warnings: string[] = [];
    await rolldownBuild(project, project.warn, "esm", warnings);
    assertNamesWarning(warnings);
  });
  it("fails the build on a checker error with its file, line and code", async () => {
    await assert.rejects(rolldownBuild(project, project.bad, "esm"), (e: Error) => {
      assertNamesBadKernel(e.message);
      return true;
    });
  });
});
