/**
 * Where the debug adapter of a `cudascript` debug session comes from, found the way "Run Kernel" finds
 * its CLI (cli.ts): the `cudascript` package installed in the program's own project (the version its
 * imports resolve to), else the one bundled in the extension. Each offers the adapter's module, to run
 * inline in the extension host (dist/debugger/dap.js of the package, dist/runtime/debugger/dap.js of the
 * extension; a package older than the debugger has none), and its CLI's `cudascript debug-adapter`, to
 * run as a process. No editor imports.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { findCli, findProjectCli } from "./cli";

export interface AdapterLocation {
  readonly source: "project" | "extension";
  /** The module exporting KernelDebugAdapter, when this package has it. */
  readonly inline?: string;
  /** The CLI whose `debug-adapter` subcommand runs the adapter over stdio. */
  readonly cli: string;
}

/** The `cudascript` package folder of the project holding `fromDir`, and its CLI. */
function projectPackage(fromDir: string): { dir: string; cli: string } | undefined {
  const cli = findProjectCli(fromDir);
  if (!cli) return undefined;
  // the CLI is <package>/bin/cudascript.js (package.json "bin"): its package is the first folder with a package.json above it
  for (let dir = path.dirname(cli); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "package.json"))) return { dir, cli };
    if (path.dirname(dir) === dir) return undefined;
  }
}

const ifExists = (file: string) => (fs.existsSync(file) ? file : undefined);

export function findDebugAdapter(fromDir: string, extensionRoot: string): AdapterLocation | undefined {
  const project = projectPackage(fromDir);
  if (project) {
    const inline = ifExists(path.join(project.dir, "dist", "debugger", "dap.js"));
    return { source: "project", cli: project.cli, ...(inline ? { inline } : {}) };
  }
  const cli = findCli(fromDir, extensionRoot);
  if (!cli) return undefined;
  const inline = ifExists(path.join(extensionRoot, "dist", "runtime", "debugger", "dap.js"));
  return { source: "extension", cli: cli.script, ...(inline ? { inline } : {}) };
}
