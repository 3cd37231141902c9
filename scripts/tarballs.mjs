#!/usr/bin/env node
/**
 * `npm run tarballs`: the packages a project installs, as `npm publish` would upload them, in
 * tarballs/ — cudascript, and the two packages it depends on (@cudascript/compiler,
 * @cudascript/native-bindings). Until they are published, `npm install <this repo>/tarballs/*.tgz`
 * installs the three into any project (npm resolves cudascript's dependencies on the other two to the
 * tarballs installed beside it); afterwards `npm install cudascript` does the same from the registry.
 *
 * Three tarballs rather than one self-contained cudascript tarball (npm's bundleDependencies): they
 * are the packages exactly as they will be published, so what a project installs from them is what
 * npm will serve; a bundling tarball needs a staging install, and either carries the compiler's own
 * dependencies (TypeScript, 23 MB unpacked) inside it or leaves them for npm to find for bundled
 * packages, and would give a project a second, private copy of the compiler.
 *
 * Builds the three packages first (`tsc -b`, incremental), so it works straight after a clone's
 * `npm run setup` or an edit.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "tarballs");
const PACKAGES = ["native-bindings", "compiler", "runtime"];

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] });
  if (r.status !== 0) {
    process.stderr.write(r.stdout ?? "");
    console.error(`npm run tarballs: \`${[cmd, ...args].join(" ")}\` in ${cwd} failed (${r.error?.message ?? `exit ${r.status}`})`);
    process.exit(1);
  }
  return r.stdout;
}

const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
run(process.execPath, [tsc, "-b", ...PACKAGES], root);

mkdirSync(out, { recursive: true });
for (const old of readdirSync(out)) if (old.endsWith(".tgz")) rmSync(join(out, old));
const made = PACKAGES.map((dir) => run("npm", ["pack", "--silent", "--pack-destination", out], join(root, dir)).trim().split("\n").pop());

console.log(made.map((file) => `tarballs/${file}`).join("\n"));
console.log(`\nInstall them into a project (from its folder):\n  npm install ${join(out, "*.tgz")}`);
