#!/usr/bin/env node
/**
 * Bundles the VS Code extension with esbuild, from the TypeScript sources (no `tsc -b` needed first):
 *   dist/extension.js  the client (client/src/extension.ts; `vscode` external)
 *   dist/server.js     the language server (server/src/server.ts + the compiler's small parts)
 *   dist/runtime/      the `cudascript` CLI (cli/main.js) the extension falls back to when a project has
 *                      none, with the runtime it runs programs on (index.js, worker.js, cli/run-child.js,
 *                      and cli/run-watchdog.js, the thread that stops a program whose `run` died)
 *   nvrtc-compile-child.js in dist/, dist/runtime/ and dist/runtime/cli/: the process NVRTC compiles in
 *   dist/webview.js    the results panel's script (uPlot included), dist/webview.css its styles
 *   dist/compiler.js   the compiler with TypeScript (~4 MB), once: the language server, the
 *                      CLI and the runtime's compile-from-source `require` it instead of bundling a copy
 * and lays out the native packages that must stay outside a bundle (esbuild's binary for `cudascript
 * run`, koffi for NVRTC and the CUDA driver) in dist/node_modules for this machine's platform
 * (scripts/vsix/natives.mjs), where the bundles find them and `vsce package --no-dependencies` packs them.
 *
 * usage: node scripts/build-extension.mjs [--watch] [--no-minify] [--package] [--prepublish]
 *   --package     then one .vsix per platform of scripts/vsix/natives.mjs TARGETS (each with that
 *                 platform's binaries, fetched from the npm registry) and a universal one without any
 *   --prepublish  `vscode:prepublish` of a plain `vsce package`: a universal build (no native binaries)
 */
import * as esbuild from "esbuild";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { layOutNatives, TARGETS } from "./vsix/natives.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");
const args = new Set(process.argv.slice(2));
const minify = !args.has("--no-minify");
const require = createRequire(join(root, "package.json"));

/** Workspace packages resolve to their TypeScript sources, so the bundle never depends on a stale dist/. */
const WORKSPACE = {
  cudascript: "runtime",
  "@cudascript/compiler": "compiler",
  "@cudascript/native-bindings": "native-bindings",
  "@cudascript/server": "server",
};

function sourceOf(dir, sub) {
  // "dist/report/protocol" -> "src/report/protocol.ts" (or /index.ts); a subpath export such as
  // "@cudascript/compiler/occupancy" -> "src/occupancy/index.ts"
  const rel = (sub.startsWith("dist/") ? sub.replace(/^dist\//, "src/") : `src/${sub}`).replace(/\.js$/, "");
  for (const cand of [`${rel}.ts`, `${rel}/index.ts`, rel]) {
    const p = join(root, dir, cand);
    if (existsSync(p) && statSync(p).isFile()) return p;
  }
  return undefined;
}

/** A subpath export whose name is not its folder ("@cudascript/compiler/cache" -> dist/compile/cache.js): its source, through the package's "exports". */
function sourceOfExport(dir, sub) {
  const target = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).exports?.[`./${sub}`];
  const file = typeof target === "string" ? target : target?.default;
  return typeof file === "string" ? sourceOf(dir, file.replace(/^\.\//, "")) : undefined;
}

const workspacePackages = {
  name: "workspace-sources",
  setup(build) {
    build.onResolve({ filter: /^(cudascript|@cudascript\/[\w-]+)(\/.*)?$/ }, (a) => {
      const m = /^(cudascript|@cudascript\/[\w-]+)(?:\/(.*))?$/.exec(a.path);
      const dir = WORKSPACE[m[1]];
      if (!dir) return undefined;
      const sub = m[2];
      if (!sub) {
        const entry = join(root, dir, "src", "index.ts");
        return existsSync(entry) ? { path: entry } : undefined;
      }
      if (sub === "package.json") return { path: join(root, dir, "package.json") };
      const p = sourceOf(dir, sub) ?? sourceOfExport(dir, sub);
      return p ? { path: p } : undefined;
    });
  },
};


/**
 * The CLI loads each subcommand with `require("./x-command")` and reports one that is missing from the
 * build; a subcommand not written yet becomes a module that throws, instead of failing the bundle.
 */
const optionalSubcommands = {
  name: "optional-subcommands",
  setup(build) {
    build.onResolve({ filter: /^\.\/[\w-]+-command$/ }, (a) => {
      if (!/[\\/]runtime[\\/]src[\\/]cli$/.test(a.resolveDir)) return undefined;
      if (existsSync(join(a.resolveDir, `${a.path}.ts`))) return undefined;
      return { path: a.path, namespace: "missing-subcommand" };
    });
    build.onLoad({ filter: /.*/, namespace: "missing-subcommand" }, (a) => ({
      contents: `throw new Error(${JSON.stringify(`${a.path.slice(2)} is not part of this build`)});`,
      loader: "js",
    }));
  },
};

/**
 * `@cudascript/compiler` (its main entry: the front end, TypeScript) resolves to the one
 * dist/compiler.js, `require`d at run time from the bundle's folder, so TypeScript ships once; its small
 * subpaths (`/cache`, `/occupancy`, dist/compile, dist/cuda) do not load TypeScript and stay inlined.
 */
function sharedCompiler(outfile) {
  const shared = join(dist, "compiler.js");
  let rel = relative(dirname(outfile), shared).split("\\").join("/");
  if (!rel.startsWith(".")) rel = `./${rel}`;
  return {
    name: "shared-compiler",
    setup(build) {
      build.onResolve({ filter: /^@cudascript\/compiler$/ }, () => ({ path: rel, external: true }));
    },
  };
}

const NATIVE_EXTERNALS = ["koffi", "esbuild", "@esbuild/*", "@koromix/*", "fsevents"];
/**
 * Optional peer dependencies of the runtime that a project installs itself, loaded only by the command
 * that needs them (`cudascript launch --launcher kubernetes`): never bundled, so the .vsix stays small;
 * the extension's CLI says to install it when it is missing.
 */
const OPTIONAL_EXTERNALS = ["@kubernetes/client-node"];

const node = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  sourcemap: "linked",
  minify,
  keepNames: true,
  logLevel: "warning",
  legalComments: "none",
  plugins: [workspacePackages, optionalSubcommands],
  // `import.meta.url` / `.dirname` / `.filename` in ESM-only dependencies bundled as CommonJS (unplugin
  // resolves its webpack/Rspack loaders from `import.meta.dirname` when it loads; the CLI uses only its
  // esbuild plugin, so the bundle's own folder is enough)
  define: { "import.meta.url": "__importMetaUrl", "import.meta.dirname": "__dirname", "import.meta.filename": "__filename" },
  banner: { js: 'const __importMetaUrl = require("url").pathToFileURL(__filename).href;' },
};

const builds = [
  { ...node, entryPoints: [join(root, "client/src/extension.ts")], outfile: join(dist, "extension.js"), external: ["vscode", ...NATIVE_EXTERNALS] },
  { ...node, entryPoints: [join(root, "compiler/src/index.ts")], outfile: join(dist, "compiler.js"), external: NATIVE_EXTERNALS },
  { ...node, entryPoints: [join(root, "server/src/server.ts")], outfile: join(dist, "server.js"), external: NATIVE_EXTERNALS, plugins: [sharedCompiler(join(dist, "server.js")), ...node.plugins] },
  // The CLI finds its pieces next to itself (run-child.js, ../index.js as the programs' runtime, the
  // simulator's worker.js next to the runtime): one bundle per piece, laid out as in runtime/dist.
  ...[
    ["runtime/src/cli/main.ts", "runtime/cli/main.js"],
    ["runtime/src/cli/run-child.ts", "runtime/cli/run-child.js"],
    ["runtime/src/cli/run-watchdog.ts", "runtime/cli/run-watchdog.js"],
    ["runtime/src/index.ts", "runtime/index.js"],
    // `run` without esbuild (never in a .vsix) runs programs from their TypeScript source through these module hooks
    ["runtime/src/cli/typescript-hooks.ts", "runtime/cli/typescript-hooks.js"],
    // the kernel debugger's adapter, which the extension runs inline (client/src/debug.ts) when the project has no `cudascript`
    ["runtime/src/debugger/dap.ts", "runtime/debugger/dap.js"],
    // the simulator's worker, beside each bundle that inlines the simulator (its executor starts the
    // worker.js next to itself): the runtime the programs run on, and the CLI (doctor checks it)
    ...["runtime/worker.js", "runtime/cli/worker.js"].map((out) => ["runtime/src/simulator/worker.ts", out]),
    // NVRTC compiles in a child process started from the script next to the code that needs it
    // (native-bindings isolated.ts): the language server, the CLI, and the runtime.
    ...["nvrtc-compile-child.js", "runtime/nvrtc-compile-child.js", "runtime/cli/nvrtc-compile-child.js"].map((out) => ["native-bindings/src/nvrtc/nvrtc-compile-child.ts", out]),
  ]
    .filter(([src]) => existsSync(join(root, src)))
    .map(([src, out]) => ({ ...node, entryPoints: [join(root, src)], outfile: join(dist, out), external: [...NATIVE_EXTERNALS, ...OPTIONAL_EXTERNALS], plugins: [sharedCompiler(join(dist, out)), ...node.plugins] })),
  {
    bundle: true,
    platform: "browser",
    format: "iife",
    target: "es2020",
    minify,
    sourcemap: "linked",
    logLevel: "warning",
    entryPoints: [join(root, "client/src/webview/main.ts")],
    outfile: join(dist, "webview.js"),
  },
  { bundle: true, minify, logLevel: "warning", entryPoints: [join(root, "client/src/webview/panel.css")], outfile: join(dist, "webview.css") },
];

/** This machine's platform as a .vsix target; "universal" when no .vsix is built for it. */
const HOST_TARGET = TARGETS.includes(`${process.platform}-${process.arch}`) ? `${process.platform}-${process.arch}` : "universal";

async function main() {
  // `vsce package` runs vscode:prepublish each time; `npm run package` has already built everything
  if (args.has("--prepublish") && process.env.CUDASCRIPT_VSIX_BUILT) return;
  mkdirSync(dist, { recursive: true });
  const t0 = Date.now();
  if (args.has("--watch")) {
    const ctxs = await Promise.all(builds.map((b) => esbuild.context(b)));
    await Promise.all(ctxs.map((c) => c.watch()));
    console.log("watching…");
    return;
  }
  const results = await Promise.all(builds.map((b) => esbuild.build({ ...b, metafile: true })));
  rmSync(join(dist, "cli.js"), { force: true });
  rmSync(join(dist, "cli.js.map"), { force: true });
  const native = layOutNatives(root, dist, args.has("--prepublish") ? "universal" : HOST_TARGET);
  for (const [i, r] of results.entries()) {
    for (const [file, info] of Object.entries(r.metafile.outputs)) {
      if (file.endsWith(".map")) continue;
      console.log(`  ${relative(root, resolve(root, file)).padEnd(22)} ${(info.bytes / 1024).toFixed(0).padStart(6)} KB`);
    }
    void i;
  }
  console.log(`  dist/node_modules: ${native.join(", ") || "no native packages (universal)"}`);
  // the language server's diagnostics link to docs/diagnostics.md; ship it next to the bundle
  const docs = join(root, "docs", "diagnostics.md");
  if (existsSync(docs)) {
    mkdirSync(join(dist, "docs"), { recursive: true });
    writeFileSync(join(dist, "docs", "diagnostics.md"), readFileSync(docs));
  }
  console.log(`extension bundled in ${Date.now() - t0} ms`);
  if (args.has("--package")) packageVsix();
}

/**
 * One .vsix per target, each with that platform's native packages in dist/node_modules, and a universal
 * one with none (its CLI defers to the project's `cudascript`). The bundles are the same for all.
 */
function packageVsix() {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const vsce = require.resolve("@vscode/vsce/vsce");
  try {
    for (const target of [...TARGETS, "universal"]) {
      const natives = layOutNatives(root, dist, target);
      const out = join(root, `${pkg.name}-${pkg.version}-${target}.vsix`);
      const flags = ["package", "--no-dependencies", "--out", out, "--readme-path", "client/marketplace/README.md", "--changelog-path", "client/marketplace/CHANGELOG.md"];
      if (target !== "universal") flags.push("--target", target);
      const r = spawnSync(process.execPath, [vsce, ...flags], { cwd: root, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", env: { ...process.env, CUDASCRIPT_VSIX_BUILT: "1" } });
      if (r.status !== 0) throw new Error(`vsce package --target ${target} failed (exit ${r.status}):\n${r.stdout}`);
      console.log(`packaged ${relative(root, out)} (${(statSync(out).size / 1024 / 1024).toFixed(2)} MB; ${natives.join(", ") || "no native binaries"})`);
    }
  } finally {
    layOutNatives(root, dist, HOST_TARGET); // the dev folder (F5) runs on this machine
  }
}

main().catch((err) => {
  console.error(err?.message ?? err);
  process.exit(1);
});
