#!/usr/bin/env node
/**
 * The same extension tests (test/e2e/suite) in desktop VS Code, the @vscode/test-electron way:
 * VS Code started with --extensionDevelopmentPath=<repo> --extensionTestsPath=<suite>, exit code = result.
 *
 * For machines that have VS Code. It never downloads one (there is no network here): it uses
 * @vscode/test-electron's runTests() when that package is installed and VSCODE_EXECUTABLE (or `code` on
 * PATH) names VS Code; otherwise it starts that executable itself with the same arguments. With no VS
 * Code at all it prints why and exits 0 (skipped). `npm run test:e2e` covers the same suite in code-server.
 *
 * usage: node test/e2e/electron-runner.mjs        (build first: npm run build:extension && npx tsc -b)
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeWorkspace } from "./lib/workspace.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const require = createRequire(join(root, "package.json"));

function findVsCode() {
  if (process.env.VSCODE_EXECUTABLE && existsSync(process.env.VSCODE_EXECUTABLE)) return process.env.VSCODE_EXECUTABLE;
  for (const name of ["code", "code-insiders"]) {
    const r = spawnSync(process.platform === "win32" ? "where" : "which", [name], { encoding: "utf8" });
    const p = r.status === 0 ? r.stdout.split("\n")[0].trim() : "";
    if (p) return p;
  }
  return undefined;
}

async function main() {
  const exe = findVsCode();
  if (!exe) {
    console.log("SKIPPED: no desktop VS Code here (set VSCODE_EXECUTABLE, or put `code` on PATH). This runner never downloads VS Code; `npm run test:e2e` runs the same suite in code-server.");
    return 0;
  }
  if (!existsSync(join(root, "dist", "extension.js"))) {
    console.error("dist/extension.js is missing: run `npm run build:extension` first");
    return 1;
  }
  const tmp = mkdtempSync(join(tmpdir(), "cudascript-electron-"));
  try {
    const ws = makeWorkspace(join(tmp, "ws"));
    const extensionDevelopmentPath = root;
    const extensionTestsPath = join(here, "suite", "index.js");
    const launchArgs = [ws, "--disable-extensions", "--disable-workspace-trust", "--skip-welcome", "--skip-release-notes", `--user-data-dir=${join(tmp, "ud")}`, `--extensions-dir=${join(tmp, "ext")}`];
    let testElectron;
    try {
      testElectron = require("@vscode/test-electron");
    } catch {
      testElectron = undefined;
    }
    if (testElectron) {
      console.log(`@vscode/test-electron runTests() with ${exe}`);
      return await testElectron.runTests({ vscodeExecutablePath: exe, extensionDevelopmentPath, extensionTestsPath, launchArgs, extensionTestsEnv: { CUDASCRIPT_E2E_REPORT: join(tmp, "report.json") } }).then(
        () => 0,
        (err) => (console.error(err), 1),
      );
    }
    console.log(`@vscode/test-electron is not installed: starting ${exe} with the same arguments`);
    const child = spawn(exe, [...launchArgs, `--extensionDevelopmentPath=${extensionDevelopmentPath}`, `--extensionTestsPath=${extensionTestsPath}`], {
      stdio: "inherit",
      env: { ...process.env, CUDASCRIPT_E2E_REPORT: join(tmp, "report.json"), ELECTRON_RUN_AS_NODE: undefined },
    });
    return await new Promise((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
