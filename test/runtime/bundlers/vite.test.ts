/** `cudascript/vite` in a Vite SSR build (Vite's Node build; ESM and CommonJS output). */
import * as assert from "node:assert/strict";
import * as path from "node:path";
import { after, describe, it } from "node:test";
import cudascript from "cudascript/vite";
import { BUNDLE_NOTE } from "cudascript/dist/plugin/externals";
import { assertNamesBadKernel, makeProject, runBundle, type Project } from "./project";

async function viteBuild(project: Project, entry: string, format: "es" | "cjs", extra: object = {}): Promise<void> {
  const { build } = await import("vite");
  await build({
    root: project.dir,
    configFile: false,
    logLevel: "silent",
    plugins: [cudascript()],
    ...extra,
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
  it("keeps the runtime external when the build asks to bundle everything (ssr.noExternal: true), and says so in one line", async () => {
    const warnings: string[] = [];
    const { createLogger } = await import("vite");
    const logger = createLogger("warn");
    logger.warnOnce = logger.warn = (text: string) => void warnings.push(text);
    await viteBuild(project, project.main, "es", { logLevel: "warn", customLogger: logger, ssr: { noExternal: true } });
    runBundle(project, path.join(project.out, "main.mjs"));
    assert.deepEqual(warnings.filter((w) => /cudascript/.test(w)), [BUNDLE_NOTE]);
  });
  it("fails the build on a checker error with its file, line and code", async () => {
    await assert.rejects(viteBuild(project, project.bad, "es"), (e: Error) => {
      assertNamesBadKernel(e.message);
      return true;
    });
  });
});
