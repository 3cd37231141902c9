/**
 * What each published package contains, as `npm pack` lists it: what users need and nothing else.
 * - README.md, LICENSE and package.json are there; package.json says license, engines.node,
 *   repository (with this package's directory) and keywords;
 * - no compiled tests, test fixtures or test helpers, and no part of the libcuda test double;
 * - no source map whose sources are not in the package (a map is either shipped with its sources or
 *   its sourcesContent, or not at all), and no JavaScript pointing at a map that is not shipped;
 * - every file that `main`, `types`, `bin`, `exports` and `typesVersions` name is in the package;
 * - the VS Code extension's .vsix (as `vsce ls` lists it) has LICENSE at its root, where the Marketplace
 *   and a reader unpacking it look.
 * Reads the built dist folders (run after `tsc -b`, as scripts/test.mjs is).
 */
import * as assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";
import { REPO } from "../simulator/helpers";

const PACKAGES = ["runtime", "compiler", "native-bindings", "server"];

/** Test-only files by name: compiled tests, fixtures, helpers, and the driver test double. */
const TEST_ONLY = /(\.test\.|\.fixtures\.|(^|\/)testing\.|(^|\/)test-helpers\.|header-oracle|test-double|driver-double|libcuda\.c$)/;

interface PackageJson {
  name: string;
  license?: string;
  engines?: { node?: string };
  repository?: { type?: string; url?: string; directory?: string };
  keywords?: string[];
  main?: string;
  types?: string;
  bin?: string | Record<string, string>;
  exports?: unknown;
  typesVersions?: Record<string, Record<string, string[]>>;
}

function packList(dir: string): Set<string> {
  const r = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", "--loglevel=error"], { cwd: dir, encoding: "utf8", timeout: 120_000 });
  assert.equal(r.status, 0, `npm pack --dry-run in ${dir} failed:\n${r.stderr}`);
  const [result] = JSON.parse(r.stdout) as [{ files: { path: string }[] }];
  return new Set(result.files.map((f) => f.path));
}

/** Every target path in an `exports` value (conditions and subpaths, recursively). */
function exportTargets(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(exportTargets);
  if (value && typeof value === "object") return Object.values(value).flatMap(exportTargets);
  return [];
}

/** The files package.json names, as pack-list paths ("./dist/x.js" → "dist/x.js"); wildcards as given. */
function namedFiles(pkg: PackageJson): string[] {
  const bins = typeof pkg.bin === "string" ? [pkg.bin] : Object.values(pkg.bin ?? {});
  const typesVersions = Object.values(pkg.typesVersions ?? {}).flatMap((map) => Object.values(map).flat());
  return [pkg.main, pkg.types, ...bins, ...exportTargets(pkg.exports), ...typesVersions]
    .filter((f): f is string => typeof f === "string")
    .map((f) => path.posix.normalize(f));
}

/** True when the pack list holds `file`, or for a wildcard pattern at least one file it matches. */
function listed(files: Set<string>, file: string): boolean {
  if (!file.includes("*")) return files.has(file);
  const [prefix, suffix] = file.split("*") as [string, string];
  return [...files].some((f) => f.startsWith(prefix) && f.endsWith(suffix));
}

describe("published package contents (npm pack --dry-run)", () => {
  for (const dir of PACKAGES) {
    describe(dir, () => {
      const root = path.join(REPO, dir);
      const pkg = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as PackageJson;
      const files = packList(root);

      it("has README.md, LICENSE and package.json, and says license, engines, repository and keywords", () => {
        for (const required of ["README.md", "LICENSE", "package.json"]) assert.ok(files.has(required), `${pkg.name} does not ship ${required}`);
        assert.ok(pkg.license, `${pkg.name}: no license`);
        assert.match(pkg.engines?.node ?? "", /\d/, `${pkg.name}: no engines.node`);
        assert.ok(pkg.repository?.url, `${pkg.name}: no repository.url`);
        assert.equal(pkg.repository?.directory, dir, `${pkg.name}: repository.directory should be "${dir}"`);
        assert.ok((pkg.keywords ?? []).length > 0, `${pkg.name}: no keywords`);
      });

      it("ships no tests, fixtures, test helpers or test double", () => {
        assert.deepEqual([...files].filter((f) => TEST_ONLY.test(f)), []);
      });

      it("ships no source map without its sources, and no JavaScript pointing at a map it does not ship", () => {
        const problems: string[] = [];
        for (const file of files) {
          if (file.endsWith(".map")) {
            const map = JSON.parse(fs.readFileSync(path.join(root, file), "utf8")) as { sources: string[]; sourceRoot?: string; sourcesContent?: (string | null)[] };
            map.sources.forEach((source, i) => {
              if (typeof map.sourcesContent?.[i] === "string") return;
              const shipped = path.posix.normalize(path.posix.join(path.posix.dirname(file), map.sourceRoot ?? "", source));
              if (!files.has(shipped)) problems.push(`${file} maps to ${shipped}, which is not shipped`);
            });
          } else if (/\.(c|m)?js$/.test(file)) {
            const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(fs.readFileSync(path.join(root, file), "utf8"))?.[1];
            if (url && !url.startsWith("data:") && !files.has(path.posix.join(path.posix.dirname(file), url))) problems.push(`${file} points at ${url}, which is not shipped`);
          }
        }
        assert.deepEqual(problems, []);
      });

      it("ships every file that main, types, bin, exports and typesVersions name", () => {
        assert.deepEqual(namedFiles(pkg).filter((f) => !listed(files, f)), []);
      });
    });
  }
});

describe("the VS Code extension's .vsix contents (vsce ls)", () => {
  it("ships LICENSE at the extension's root", () => {
    const vsce = path.join(REPO, "node_modules", "@vscode", "vsce", "vsce");
    const r = spawnSync(process.execPath, [vsce, "ls", "--no-dependencies"], { cwd: REPO, encoding: "utf8", timeout: 120_000 });
    assert.equal(r.status, 0, `vsce ls failed:\n${r.stderr}`);
    assert.ok(r.stdout.split("\n").includes("LICENSE"), `no LICENSE at the root of the .vsix:\n${r.stdout}`);
  });
});
