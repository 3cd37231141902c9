/**
 * Each `cudascript` command loads only what it uses (runtime/src/cli/main.ts loads a command's module
 * when it is named): `check` needs the compiler but never esbuild; `--version` and `run --help` need
 * neither. (`run` reusing its cached build is covered by run-cache.test.ts.) Checked by logging every
 * module the process loads through a `--require` hook.
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO } from "../simulator/helpers";

const CLI = path.join(REPO, "runtime", "bin", "cudascript.js");

const LOGGER = `
const Module = require("node:module");
const fs = require("node:fs");
const load = Module._load;
Module._load = function (request, parent, isMain) {
  let file = request;
  try { file = Module._resolveFilename(request, parent, isMain); } catch {}
  fs.appendFileSync(process.env.CUDASCRIPT_TEST_LOAD_LOG, file + "\\n");
  return load.apply(this, arguments);
};
`;

/** The packages (esbuild, typescript, the compiler's front end) that `cudascript <args>` loaded. */
function heavyModulesLoadedBy(args: string[]): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-cli-imports-"));
  try {
    const logger = path.join(dir, "logger.cjs");
    const log = path.join(dir, "loads.txt");
    fs.writeFileSync(logger, LOGGER);
    const r = spawnSync(process.execPath, ["--require", logger, CLI, ...args], { cwd: REPO, encoding: "utf8", env: { ...process.env, CUDASCRIPT_TEST_LOAD_LOG: log } });
    assert.equal(r.status, 0, r.stderr);
    const found = new Set<string>();
    for (const file of fs.readFileSync(log, "utf8").split("\n")) {
      const pkg = /[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(file)?.[1];
      if (pkg && /^(typescript|esbuild|@kubernetes\/client-node)$/.test(pkg.replace(/\\/g, "/"))) found.add(pkg.replace(/\\/g, "/"));
      if (/[\\/]compiler[\\/]dist[\\/]frontend[\\/]/.test(file)) found.add("compiler front end");
    }
    return [...found].sort();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("what each cudascript command loads", () => {
  it("check loads the compiler (and TypeScript) but not esbuild", () => {
    const loaded = heavyModulesLoadedBy(["check", "examples/saxpy.ts"]);
    assert.ok(loaded.includes("compiler front end") && loaded.includes("typescript"), loaded.join(", "));
    assert.ok(!loaded.includes("esbuild"), loaded.join(", "));
  });

  it("--version and run --help load neither esbuild nor the compiler", () => {
    assert.deepEqual(heavyModulesLoadedBy(["--version"]), []);
    assert.deepEqual(heavyModulesLoadedBy(["run", "--help"]), []);
  });

  it("launch --help loads none of them, nor @kubernetes/client-node (only --launcher kubernetes does)", () => {
    assert.deepEqual(heavyModulesLoadedBy(["launch", "--help"]), []);
    assert.deepEqual(heavyModulesLoadedBy(["launch", "--launcher", "kubernetes", "--image", "app:1", "--dry-run", "examples/dist-montecarlo.ts"]), ["@kubernetes/client-node"]);
  });
});
