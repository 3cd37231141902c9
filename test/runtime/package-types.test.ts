/**
 * The published packages as a user gets them: `npm pack` of cudascript, @cudascript/compiler and
 * @cudascript/native-bindings, installed from the tarballs into a fresh project (third-party
 * dependencies from the npm cache, offline), then
 * - the repository's own `tsc` type-checks ESM (.mts) and CommonJS (.ts) consumers with `"types": []`
 *   (no @types/node) under every moduleResolution a project may use: node16, nodenext, bundler, node10;
 * - the declaration files that `cudascript` pulls into that check are its own plus the artifact's
 *   types-only module: never TypeScript's, @types/node's or the driver bindings';
 * - Node runs an ES module and a CommonJS consumer that launch a kernel (built by `cudascript/esbuild`),
 *   and both module systems see the same runtime instance.
 */
import * as assert from "node:assert/strict";
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import { REPO } from "../simulator/helpers";

const TSC = path.join(REPO, "node_modules", "typescript", "bin", "tsc");
const PACKAGES = ["native-bindings", "compiler", "runtime"];

function run(cmd: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): SpawnSyncReturns<string> {
  return spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: 180_000 });
}

function ok(r: SpawnSyncReturns<string>, what: string): string {
  assert.equal(r.status, 0, `${what} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** Each moduleResolution with the `module` it goes with; the consumers are checked in every one. */
const RESOLUTIONS = [
  { module: "node16", moduleResolution: "node16" },
  { module: "nodenext", moduleResolution: "nodenext" },
  { module: "esnext", moduleResolution: "bundler" },
  { module: "commonjs", moduleResolution: "node10" },
] as const;

const CONSUMER = [
  'import cudascript, { cuda, dist, f32, type f32 as F32, type Array2D, type Kernel, type BackendChoice, type Dist, type ReduceOp } from "cudascript";',
  "export const scale: Kernel<[Float32Array, F32]> = cuda.jit((x: Float32Array, a: F32) => {",
  "  const i = cuda.grid(1);",
  "  if (i < x.length) x[i] = a * (x[i] ?? 0);",
  "});",
  "export const same: typeof cuda = cudascript.cuda;",
  "export const bytes: number = f32.bytes;",
  "export const grid = (m: Array2D<F32>): number => m.shape[0];",
  "export const backend = (c: BackendChoice): string => c.description;",
  "export const ranks: Dist = dist;",
  'export const op: ReduceOp = "max";',
  "export const summed = (x: Parameters<Dist[\"allReduce\"]>[0]): Promise<void> => dist.allReduce(x, op);",
  "",
].join("\n");

const PLUGIN_CONSUMER = [
  'import cudascriptPlugin, { cudascriptPlugin as named } from "cudascript/esbuild";',
  "export const same: typeof named = cudascriptPlugin;",
  "",
].join("\n");

/** Declaration files `cudascript` may bring into a user's type check (relative to node_modules). */
const ALLOWED_DECLARATIONS = /^(cudascript\/(dist|esm)\/.*|@cudascript\/compiler\/dist\/(ir\/(nodes|types)|js\/artifact-types|dtypes\/(table|records|index)))\.d\.m?ts$/;

describe("the packed packages in a user's project", { timeout: 600_000 }, () => {
  let root = "";
  let project = "";

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), "cudascript-pack-"));
    const packs = path.join(root, "packs");
    fs.mkdirSync(packs);
    for (const pkg of PACKAGES) ok(run("npm", ["pack", "--silent", "--pack-destination", packs], path.join(REPO, pkg)), `npm pack ${pkg}`);
    project = path.join(root, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "consumer", version: "1.0.0", private: true }));
    const tarballs = fs.readdirSync(packs).map((f) => path.join(packs, f));
    ok(run("npm", ["install", "--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", ...tarballs], project), "npm install (offline) of the tarballs");
  });

  after(() => {
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  for (const { module, moduleResolution } of RESOLUTIONS) {
    it(`types of cudascript and cudascript/esbuild check without @types/node under moduleResolution ${moduleResolution}`, () => {
      const dir = path.join(project, `check-${moduleResolution}`);
      fs.mkdirSync(dir);
      // .ts is CommonJS (the project has no "type": "module"); .mts is an ES module.
      fs.writeFileSync(path.join(dir, "consumer.ts"), CONSUMER);
      fs.writeFileSync(path.join(dir, "plugin.ts"), PLUGIN_CONSUMER);
      const files = moduleResolution === "node10" ? ["consumer.ts", "plugin.ts"] : ["consumer.ts", "consumer.mts", "plugin.ts", "plugin.mts"];
      if (files.includes("consumer.mts")) {
        fs.writeFileSync(path.join(dir, "consumer.mts"), CONSUMER);
        fs.writeFileSync(path.join(dir, "plugin.mts"), PLUGIN_CONSUMER);
      }
      const compilerOptions = { strict: true, noEmit: true, skipLibCheck: false, types: [], target: "es2022", lib: ["es2022"], module, moduleResolution };
      fs.writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files }));
      ok(run(process.execPath, [TSC, "-p", "."], dir), `tsc (${moduleResolution})`);

      // What the runtime entry alone pulls into a user's program.
      const installed = path.join(project, "node_modules") + path.sep;
      fs.writeFileSync(path.join(dir, "tsconfig.entry.json"), JSON.stringify({ compilerOptions, files: files.filter((f) => f.startsWith("consumer")) }));
      const listed = ok(run(process.execPath, [TSC, "-p", "tsconfig.entry.json", "--listFilesOnly"], dir), "tsc --listFilesOnly");
      const declarations = listed
        .split(/\r?\n/)
        .filter((f) => f.startsWith(installed)) // not the lib.*.d.ts of the repository's own tsc
        .map((f) => f.slice(installed.length).replace(/\\/g, "/"));
      const foreign = declarations.filter((f) => !ALLOWED_DECLARATIONS.test(f));
      assert.deepEqual(foreign, [], `cudascript's declarations reach beyond themselves:\n${foreign.join("\n")}`);
      assert.ok(declarations.some((f) => f === "cudascript/dist/index.d.ts"), `the check did not read cudascript's own declarations:\n${listed}`);
    });
  }

  it("an ES module and a CommonJS consumer launch a kernel, sharing one runtime instance", () => {
    const dir = path.join(project, "launch");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "kernels.ts"),
      ['import { cuda, type f32 } from "cudascript";', "export const scale = cuda.jit((x: Float32Array, a: f32) => {", "  const i = cuda.grid(1);", "  if (i < x.length) x[i] = a * x[i]!;", "});", ""].join("\n"),
    );
    fs.writeFileSync(path.join(dir, "main.ts"), ['import { scale } from "./kernels";', "const x = new Float32Array([1, 2, 3]);", "scale.launch(1, 32)(x, 2);", "console.log(Array.from(x).join(','));", ""].join("\n"));
    // The user's build script is an ES module that default-imports the plugin.
    fs.writeFileSync(
      path.join(dir, "build.mjs"),
      [
        'import { build } from "esbuild";',
        'import cudascriptPlugin from "cudascript/esbuild";',
        'for (const [format, outfile] of [["esm", "out.mjs"], ["cjs", "out.cjs"]])',
        '  await build({ entryPoints: ["main.ts"], bundle: true, platform: "node", format, outfile, external: ["cudascript"], plugins: [cudascriptPlugin()], logLevel: "error" });',
        "",
      ].join("\n"),
    );
    ok(run(process.execPath, ["build.mjs"], dir), "esbuild with cudascript/esbuild");
    assert.match(fs.readFileSync(path.join(dir, "out.mjs"), "utf8"), /from "cudascript"/);
    assert.match(fs.readFileSync(path.join(dir, "out.cjs"), "utf8"), /require\("cudascript"\)/);
    const env = { ...process.env, CUDASCRIPT_BACKEND: "simulator" };
    assert.equal(ok(run(process.execPath, ["out.mjs"], dir, env), "node out.mjs").trim(), "2,4,6");
    assert.equal(ok(run(process.execPath, ["out.cjs"], dir, env), "node out.cjs").trim(), "2,4,6");

    const oneInstance = [
      'import cudascript, { cuda, f32 } from "cudascript";',
      'import { createRequire } from "node:module";',
      'const required = createRequire(import.meta.url)("cudascript");',
      "console.log(JSON.stringify([typeof cuda.jit, f32.name, required.cuda === cuda, cudascript.cuda === cuda, required.default.cuda === cuda]));",
    ].join("\n");
    const seen = ok(run(process.execPath, ["--input-type=module", "-e", oneInstance], dir), "ESM and require of cudascript in one process");
    assert.deepEqual(JSON.parse(seen), ["function", "f32", true, true, true]);
  });

  it("`cudascript launch -n 2` runs a program of the user's with dist.allReduce on 2 ranks; --launcher kubernetes --dry-run works without @kubernetes/client-node", () => {
    const dir = path.join(project, "ranks");
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, "main.ts"),
      [
        'import { cuda, dist } from "cudascript";',
        "const a = cuda.toDevice(new Int32Array([dist.rank + 1, 10]));",
        'await dist.allReduce(a, "sum");',
        "console.log(`rank ${dist.rank} of ${dist.size}: ${Array.from(a.copyToHost()).join(',')}`);",
        "",
      ].join("\n"),
    );
    const bin = path.join(project, "node_modules", "cudascript", "bin", "cudascript.js");
    const out = ok(run(process.execPath, [bin, "launch", "-n", "2", "--backend", "simulator", "main.ts"], dir), "cudascript launch -n 2");
    assert.match(out, /^\[rank 0\] rank 0 of 2: 3,20$/m);
    assert.match(out, /^\[rank 1\] rank 1 of 2: 3,20$/m);
    const dry = run(process.execPath, [bin, "launch", "--launcher", "kubernetes", "--image", "app:1", "--dry-run", "main.ts"], dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.match(dry.stdout, /"completionMode": "Indexed"/);
    assert.match(dry.stderr, /not checked against the Kubernetes API types: --launcher kubernetes uses @kubernetes\/client-node, which is not installed/);
  });
});
