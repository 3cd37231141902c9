/**
 * Which `cudascript` CLI runs a program: the one installed in the program's own project
 * (node_modules/cudascript, the version its imports resolve to), else the one bundled in the extension
 * (dist/runtime/cli/main.js). No editor imports.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface CliLocation {
  /** JavaScript entry to run with Node. */
  readonly script: string;
  readonly source: "project" | "extension";
}

export function findProjectCli(fromDir: string): string | undefined {
  let dir = path.resolve(fromDir);
  for (;;) {
    const pkg = path.join(dir, "node_modules", "cudascript", "package.json");
    if (fs.existsSync(pkg)) {
      try {
        const json = JSON.parse(fs.readFileSync(pkg, "utf8")) as { bin?: string | Record<string, string> };
        const bin = typeof json.bin === "string" ? json.bin : json.bin?.cudascript;
        if (bin) {
          const script = path.join(path.dirname(pkg), bin);
          if (fs.existsSync(script)) return script;
        }
      } catch {
        /* unreadable package.json: keep looking */
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function findCli(fromDir: string, extensionRoot: string): CliLocation | undefined {
  const project = findProjectCli(fromDir);
  if (project) return { script: project, source: "project" };
  const bundled = path.join(extensionRoot, "dist", "runtime", "cli", "main.js");
  if (fs.existsSync(bundled)) return { script: bundled, source: "extension" };
  return undefined;
}
