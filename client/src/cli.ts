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
  /** The bundled CLI runs kernels here on the simulator only (no native binaries for this platform in this .vsix): why, and how to get the GPU. */
  readonly simulatorOnly?: string;
}

/** This machine's name for a platform-specific .vsix (`vsce package --target`). */
export function platformTarget(): string {
  return `${process.platform}-${process.arch}`;
}

/**
 * What the CLI bundled in the extension cannot do on this machine, if anything: the build writes
 * dist/node_modules/.cudascript-native ({ target, packages }) for the platform whose koffi binary it
 * packed (NVRTC and the CUDA driver go through it); the universal .vsix packs none. Without it the CLI
 * still runs programs (from their TypeScript source, as every bundled CLI does), on the simulator.
 */
export function bundledCliLimitation(extensionRoot: string): string | undefined {
  const here = platformTarget();
  let target: string | undefined;
  try {
    target = (JSON.parse(fs.readFileSync(path.join(extensionRoot, "dist", "node_modules", ".cudascript-native"), "utf8")) as { target?: string }).target;
  } catch {
    target = undefined;
  }
  if (target === here) return undefined;
  const which = !target || target === "universal" ? "the universal build of the CudaScript extension, which carries no native binaries" : `the ${target} build of the CudaScript extension`;
  return `this is ${which}, so its bundled CLI runs kernels on ${here} in the simulator only, never on a GPU. For the GPU, install CudaScript in the program's project (npm install --save-dev cudascript), or install the extension's ${here} build (cudascript-vscode-<version>-${here}.vsix; the Marketplace picks it by itself).`;
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
  if (fs.existsSync(bundled)) {
    const simulatorOnly = bundledCliLimitation(extensionRoot);
    return simulatorOnly ? { script: bundled, source: "extension", simulatorOnly } : { script: bundled, source: "extension" };
  }
  return undefined;
}
