/** `cudascript/vite` in a Vite SSR build (Vite's Node build; ESM and CommonJS output). */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import cudascript from "cudascript/vite";
import { assertNamesBadKernel, makeProject, runBundle, type Project } from "./project";

async function viteBuild(project: Project, entry: string, format: "es" | "cjs"): Promise<void> {
  const { build } = await import("vite");
  await build({
    root: project.dir,
    configFile: false,
    logLevel: "silent",
    plugins: [cudascript()],
    build: { ssr: entry, outDir: project.out, emptyOutDir: false, rolldownOptions: { output: { format, entryFileNames: format === "es" ? "[name].mjs" : "[name].cjs" } } },
  });
}

describe("bundlers: vite", () => {
  const project = makeProject("vite");
  after(() => project.remove());
  for (const format of ["es", "cjs"] as const) {
    it(`bundles kernels and a .ts kernel library; the ${format} SSR bundle runs on the simulator's worker threads`, async () => {
      await viteBuild(project, project.main, format);
      runBundle(project, path.join(project.out, format === "es" ? "main.mjs" : "main.cjs"));
    });
  }
  it("fails the build on a checker error with its file, line and code", async () => {
    await assert.rejects(viteBuild(project, project.bad, "es"), (e: Error) => {
      assertNamesBadKernel(e.message);
      return true;
    });
  });
});
