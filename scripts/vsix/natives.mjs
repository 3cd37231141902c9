/**
 * The native package a platform-specific .vsix carries, for its bundled `cudascript` CLI: koffi's
 * `koffi.node` (NVRTC and the CUDA driver). Not esbuild (its binary alone is 11 MB, two thirds of the
 * .vsix): the bundled CLI runs programs from their TypeScript source (runtime/src/cli/typescript-hooks.ts). Each target's packages come from the npm registry at the exact versions of package-lock.json
 * (`npm pack`, cached in ~/.cache/cudascript-vsix/), or from node_modules when the installed copy is that
 * version — the host's own platform needs no network.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join, relative } from "node:path";

/** The platforms a .vsix is built for (`vsce package --target`), as `${process.platform}-${process.arch}`. */
export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];

/** Names of the native packages for `target`, and the platform-neutral loaders that find them. */
export function nativePackages(target) {
  return { loaders: ["koffi"], platform: [`@koromix/koffi-${target}`] };
}

function lockVersion(root, name) {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  const version = lock.packages?.[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in package-lock.json: cannot tell which version to pack into the .vsix`);
  return version;
}

function cacheRoot() {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cudascript-vsix");
}

/** The unpacked package folder of `name` at the lock file's version. */
export function packageFolder(root, name) {
  const version = lockVersion(root, name);
  const installed = join(root, "node_modules", name);
  if (existsSync(join(installed, "package.json")) && JSON.parse(readFileSync(join(installed, "package.json"), "utf8")).version === version) return installed;
  const dir = join(cacheRoot(), `${name.replace("/", "+")}@${version}`);
  if (existsSync(join(dir, "package.json"))) return dir;
  const tmp = `${dir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const pack = spawnSync(npm, ["pack", `${name}@${version}`, "--silent", "--pack-destination", tmp], { encoding: "utf8", shell: process.platform === "win32" });
  const tgz = readdirSync(tmp).find((f) => f.endsWith(".tgz"));
  if (pack.status !== 0 || !tgz) throw new Error(`npm pack ${name}@${version} failed (the registry must be reachable to build other platforms' .vsix files):\n${pack.stderr}`);
  const untar = spawnSync("tar", ["-xzf", tgz], { cwd: tmp, encoding: "utf8" });
  if (untar.status !== 0) throw new Error(`unpacking ${tgz} failed:\n${untar.stderr}`);
  rmSync(dir, { recursive: true, force: true });
  renameSync(join(tmp, "package"), dir);
  rmSync(tmp, { recursive: true, force: true });
  return dir;
}

/** What of each package runs: no docs, typings, C/C++ sources, vendored headers or build tools. */
const KEEP = {
  // the loader (index.cjs → src/koffi/index.cjs and its .cjs helpers); not cnoke.cjs (its build tool),
  // src/**/*.cc, lib/native (C++), vendor/ (headers) or doc/
  koffi: (p) => p === "package.json" || /^LICENSE/.test(p) || /^(index|indirect)\.c?js$/.test(p) || p === "src" || p === "src/koffi" || p === "src/koffi/src" || /^src\/koffi\/(src\/)?[\w-]+\.c?js$/.test(p),
};
const KEEP_PLATFORM = (p) => !/\.(md|d\.ts)$/.test(p) && !/^musl_/.test(p);

/**
 * Lays out dist/node_modules for `target` ("universal": nothing native, the project's install is used)
 * and writes .cudascript-native, which the extension reads to tell whether its CLI can run here.
 */
export function layOutNatives(root, dist, target) {
  const out = join(dist, "node_modules");
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const packages = [];
  if (target !== "universal") {
    const { loaders, platform } = nativePackages(target);
    for (const name of [...loaders, ...platform]) {
      const from = packageFolder(root, name);
      const keep = KEEP[name] ?? KEEP_PLATFORM;
      cpSync(from, join(out, name), { recursive: true, dereference: true, filter: (src) => src === from || keep(relative(from, src).split("\\").join("/")) });
      packages.push(`${name}@${JSON.parse(readFileSync(join(from, "package.json"), "utf8")).version}`);
    }
  }
  writeFileSync(join(out, ".cudascript-native"), JSON.stringify({ target, packages }, null, 2) + "\n");
  return packages;
}
