/**
 * Which debug adapter a `cudascript` debug session runs, found the way "Run Kernel" finds its CLI
 * (cli.ts): the one of the `cudascript` package installed in the program's own project (the version its
 * imports resolve to), else the one bundled in the extension. Preferred inline — the adapter's module
 * loaded into the extension host (dist/debugger/dap.js of the package; dist/runtime/debugger/dap.js of
 * the extension) — and otherwise, for a project whose `cudascript` predates the inline module, its CLI's
 * `cudascript debug-adapter` as a separate process. No editor imports.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { findCli, findProjectCli } from "./cli";

export type AdapterLocation =
  | { readonly kind: "inline"; readonly module: string; readonly source: "project" | "extension" }
  | { readonly kind: "executable"; readonly script: string; readonly source: "project" | "extension" };

/** The `cudascript` package folder of the project holding `fromDir`, if any. */
function projectPackage(fromDir: string): string | undefined {
  const cli = findProjectCli(fromDir);
  if (!cli) return undefined;
  // the CLI is <package>/bin/cudascript.js (package.json "bin"): its package is the folder with package.json above it
  for (let dir = path.dirname(cli); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export function findDebugAdapter(fromDir: string, extensionRoot: string): AdapterLocation | undefined {
  const project = projectPackage(fromDir);
  if (project) {
    const module = path.join(project, "dist", "debugger", "dap.js");
    if (fs.existsSync(module)) return { kind: "inline", module, source: "project" };
    const cli = findProjectCli(fromDir)!;
    return { kind: "executable", script: cli, source: "project" };
  }
  const bundled = path.join(extensionRoot, "dist", "runtime", "debugger", "dap.js");
  if (fs.existsSync(bundled)) return { kind: "inline", module: bundled, source: "extension" };
  const cli = findCli(fromDir, extensionRoot);
  return cli ? { kind: "executable", script: cli.script, source: cli.source } : undefined;
}
