/**
 * The webpack and Rspack builds of the test project (same configuration shape): target node,
 * CommonJS output or ES module output, .ts files through a TypeScript loader, the plugin added.
 */
import * as path from "node:path";
import type { Project } from "./project";

export type Format = "esm" | "cjs";

interface Stats {
  hasErrors(): boolean;
  toJson(options: { all: false; errors: true; warnings: true }): { errors?: { message: string }[]; warnings?: { message: string }[] };
}
type Run = (config: object, callback: (err: Error | null, stats?: Stats) => void) => unknown;

export function webpackConfig(project: Project, entry: string, format: Format, tsRule: object, plugin: object): object {
  return {
    mode: "production",
    target: "node",
    context: project.dir,
    entry,
    devtool: false,
    optimization: { minimize: false },
    output: format === "esm" ? { path: project.out, filename: "main.mjs", module: true, chunkFormat: "module", library: { type: "module" } } : { path: project.out, filename: "main.cjs", library: { type: "commonjs2" } },
    ...(format === "esm" ? { experiments: { outputModule: true } } : {}),
    resolve: { extensions: [".ts", ".js"] },
    module: { rules: [tsRule] },
    plugins: [plugin],
  };
}

/** Runs a build; resolves with the bundle's path and warnings, rejects with the build's error messages. */
export function runBuild(run: Run, config: object): Promise<{ file: string; warnings: string[] }> {
  return new Promise((resolve, reject) => {
    run(config, (err, stats) => {
      if (err) return reject(err);
      const json = stats!.toJson({ all: false, errors: true, warnings: true });
      if (stats!.hasErrors()) return reject(new Error((json.errors ?? []).map((e) => e.message).join("\n")));
      const output = (config as { output: { path: string; filename: string } }).output;
      resolve({ file: path.join(output.path, output.filename), warnings: (json.warnings ?? []).map((w) => w.message) });
    });
  });
}
