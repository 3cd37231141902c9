/**
 * The projects test/projects/run.mjs creates: each writes its files (the shared kernels from fixtures/)
 * and runs its steps. Every project type-checks with the real tsc and checks the printed result.
 */
import { join } from "node:path";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";

const json = (v) => `${JSON.stringify(v, null, 2)}\n`;

/** A user's package.json: the CudaScript tarballs are its dependencies (set by run.mjs). */
export const installed = { dependencies: {} };

function packageJson(name, type, extra = {}) {
  return json({ name, version: "1.0.0", private: true, ...(type ? { type } : {}), dependencies: installed.dependencies, ...extra });
}

/** The shared sources under src/ (kernels, the computation, the entry). */
function sources(ctx, { tsExtensions = false } = {}) {
  const fix = (text) => (tsExtensions ? text.replaceAll('.js";', '.ts";') : text);
  return {
    "src/kernels.ts": ctx.fixtures["kernels.ts"],
    "src/compute.ts": fix(ctx.fixtures["compute.ts"]),
    "src/main.ts": fix(ctx.fixtures["main.ts"]),
  };
}

function tsc(ctx, dir, args = []) {
  return ctx.run(process.execPath, [join(ctx.root, "node_modules", "typescript", "bin", "tsc"), ...args], dir);
}

function expectResult(ctx, out, what) {
  if (!out.includes(ctx.expected)) throw new Error(`${what}: expected "${ctx.expected}" in the output:\n${out}`);
}

/** `npx cudascript run src/main.ts` from the installed package. */
function cudascriptRun(ctx, dir, entry = "src/main.ts") {
  const out = ctx.run(process.execPath, [join(dir, "node_modules", "cudascript", "bin", "cudascript.js"), "run", entry], dir);
  expectResult(ctx, out, "cudascript run");
}

/** `npx cudascript check` with a brace glob: the installed package brings its glob library (tinyglobby) along. */
function cudascriptCheckGlob(ctx, dir) {
  const out = ctx.run(process.execPath, [join(dir, "node_modules", "cudascript", "bin", "cudascript.js"), "check", "src/**/*.{ts,mts}"], dir);
  if (!/^Checked [1-9]\d* files? \([1-9]\d* kernels?\): 0 errors/m.test(out)) throw new Error(`cudascript check with a glob: expected the sources checked clean:\n${out}`);
}

const strictOptions = { strict: true, types: [], skipLibCheck: false, sourceMap: true };

/** The README's first ```lang block after `heading` (or in the whole file). */
function readmeBlock(readme, lang, heading) {
  const from = heading ? readme.indexOf(heading) : 0;
  if (from < 0) throw new Error(`README.md has no "${heading}"`);
  const block = new RegExp("```" + lang + "\\n([\\s\\S]*?)```").exec(readme.slice(from))?.[1];
  if (!block) throw new Error(`README.md has no \`\`\`${lang} block${heading ? ` under "${heading}"` : ""}`);
  return block;
}

/**
 * What `npm run setup` (npm ci) gives a fresh clone, without downloading it again: node_modules with
 * the repository's installed packages, the workspace packages linked to the clone's own folders.
 */
function linkCloneDependencies(root, clone) {
  const WORKSPACE = { cudascript: "runtime", "@cudascript": undefined };
  mkdirSync(join(clone, "node_modules", "@cudascript"), { recursive: true });
  for (const name of readdirSync(join(root, "node_modules"))) {
    if (name in WORKSPACE) continue;
    symlinkSync(join(root, "node_modules", name), join(clone, "node_modules", name));
  }
  symlinkSync("../runtime", join(clone, "node_modules", "cudascript"));
  for (const dir of ["compiler", "native-bindings", "server", "client"]) symlinkSync(`../../${dir}`, join(clone, "node_modules", "@cudascript", dir));
  symlinkSync(join(root, "compiler", "node_modules"), join(clone, "compiler", "node_modules"));
}

export const projects = [
  {
    // README.md's "Use it in your project", command by command: `npm run tarballs` in a fresh clone of
    // this repository (its committed HEAD), then `npm install /path/to/cudascript/tarballs/*.tgz` and
    // `npx cudascript run main.ts` in a new ES module project and a new CommonJS project outside it,
    // main.ts being the README's first example; then tsc --init (with the README's CommonJS setting)
    // and node on tsc's output. Each run prints what the example's comment says.
    name: "readme",
    fresh: true,
    files: () => ({}),
    steps(ctx, dir) {
      const readme = readFileSync(join(ctx.root, "README.md"), "utf8");
      const example = readmeBlock(readme, "ts");
      const printed = /console\.log\(.*\); \/\/ (.+)$/m.exec(example)?.[1];
      if (!printed) throw new Error(`README.md's first example prints nothing (no console.log with a // result comment):\n${example}`);
      const commands = readmeBlock(readme, "sh", "## Use it in your project")
        .split("\n")
        .filter((line) => line.trim())
        .map((line) => ({ command: line.replace(/\s+#.*$/, ""), inClone: /#\s*in the clone/.test(line) }));
      if (!/"verbatimModuleSyntax": false/.test(readme)) throw new Error("README.md does not say that CommonJS projects need \"verbatimModuleSyntax\": false");

      const clone = join(dir, "cudascript");
      ctx.run("git", ["clone", "--quiet", ctx.root, clone], dir);
      linkCloneDependencies(ctx.root, clone);
      const env = { npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_loglevel: "error" };
      const shell = (command, cwd) => ctx.run("bash", ["-c", command.replaceAll("/path/to/cudascript", clone)], cwd, { env, timeoutMs: 600_000 });
      for (const { command } of commands.filter((c) => c.inClone)) shell(command, clone);

      for (const type of ["module", "commonjs"]) {
        const project = join(dir, `${type}-project`);
        mkdirSync(project);
        writeFileSync(join(project, "package.json"), json({ name: `readme-${type}`, version: "1.0.0", private: true, type }));
        writeFileSync(join(project, "main.ts"), example);
        for (const { command } of commands.filter((c) => !c.inClone)) {
          const out = shell(command, project);
          if (/cudascript run/.test(command) && !out.split("\n").includes(printed)) throw new Error(`\`${command}\` in the ${type} project: expected a line "${printed}":\n${out}`);
        }
        tsc(ctx, project, ["--init"]);
        if (type === "commonjs") {
          const config = join(project, "tsconfig.json");
          writeFileSync(config, readFileSync(config, "utf8").replace('"verbatimModuleSyntax": true', '"verbatimModuleSyntax": false'));
        }
        tsc(ctx, project);
        const out = ctx.run(process.execPath, ["main.js"], project);
        if (!out.split("\n").includes(printed)) throw new Error(`node on tsc's output in the ${type} project: expected a line "${printed}":\n${out}`);
      }
    },
  },
  {
    name: "commonjs",
    files: (ctx) => ({
      "package.json": packageJson("commonjs-user", "commonjs"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "commonjs", moduleResolution: "node10", outDir: "dist", rootDir: "src" }, include: ["src"] }),
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], dir), "node on tsc's CommonJS output");
      cudascriptRun(ctx, dir);
      cudascriptCheckGlob(ctx, dir);
    },
  },
  {
    name: "esm",
    files: (ctx) => ({
      "package.json": packageJson("esm-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "nodenext", moduleResolution: "nodenext", outDir: "dist", rootDir: "src" }, include: ["src"] }),
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], dir), "node on tsc's ESM output");
      cudascriptRun(ctx, dir);
    },
  },
  {
    name: "tsc-init",
    files: (ctx) => ({ "package.json": packageJson("tsc-init-user", "module"), ...sources(ctx) }),
    steps(ctx, dir) {
      tsc(ctx, dir, ["--init"]);
      tsc(ctx, dir, ["--noEmit"]);
      tsc(ctx, dir); // emits beside the sources, with source maps
      expectResult(ctx, ctx.run(process.execPath, ["src/main.js"], dir), "node on tsc --init's output");
    },
  },
  {
    name: "bundler-resolution",
    files: (ctx) => ({
      "package.json": packageJson("bundler-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "preserve", moduleResolution: "bundler", noEmit: true, noUncheckedIndexedAccess: true }, include: ["src"] }),
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      cudascriptRun(ctx, dir);
    },
  },
  {
    name: "tsx",
    files: (ctx) => ({
      "package.json": packageJson("tsx-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "nodenext", noEmit: true }, include: ["src"] }),
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      expectResult(ctx, ctx.run(ctx.tool("tsx"), ["src/main.ts"], dir), "tsx");
      expectResult(ctx, ctx.run(process.execPath, ["--import", "tsx", "src/main.ts"], dir), "node --import tsx");
    },
  },
  {
    name: "strip-types",
    skip: (ctx) => (ctx.node22 ? undefined : "no Node >= 22.6 here (set CUDASCRIPT_NODE22)"),
    files: (ctx) => ({
      "package.json": packageJson("strip-types-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "esnext", module: "nodenext", noEmit: true, allowImportingTsExtensions: true, verbatimModuleSyntax: true, erasableSyntaxOnly: true }, include: ["src"] }),
      ...sources(ctx, { tsExtensions: true }),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      expectResult(ctx, ctx.run(ctx.node22, ["--experimental-strip-types", "--no-warnings", "src/main.ts"], dir), "node --experimental-strip-types");
    },
  },
  {
    name: "vitest",
    files: (ctx) => ({
      "package.json": packageJson("vitest-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "nodenext", noEmit: true }, include: ["src"] }),
      "vitest.config.ts": 'import { defineConfig } from "vitest/config";\n\nexport default defineConfig({ test: { include: ["src/**/*.test.ts"] } });\n',
      "src/compute.test.ts": 'import { expect, test } from "vitest";\nimport { compute } from "./compute.js";\n\ntest("kernels give the plain-TypeScript results", () => {\n  expect(`RESULT ${compute()}`).toBe("RESULT saxpy OK, reduction OK (12285), ufunc OK");\n});\n',
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      const out = ctx.run(ctx.tool("vitest"), ["run"], dir);
      if (!/1 passed/.test(out)) throw new Error(`vitest: expected 1 passed test:\n${out}`);
    },
  },
  {
    name: "vite",
    files: (ctx) => ({
      "package.json": packageJson("vite-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "preserve", moduleResolution: "bundler", noEmit: true }, include: ["src"] }),
      "vite.config.ts": 'import { defineConfig } from "vite";\nimport cudascript from "cudascript/vite";\n\nexport default defineConfig({\n  plugins: [cudascript()],\n  build: { ssr: "src/main.ts", outDir: "dist" },\n});\n',
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      ctx.run(ctx.tool("vite"), ["build"], dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], dir), "node on Vite's SSR build");
    },
  },
  {
    name: "rollup",
    files: (ctx) => ({
      "package.json": packageJson("rollup-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "nodenext", noEmit: true }, include: ["src"] }),
      // The recipe of docs/host-api.md: cudascript first, before the plugin that strips the TypeScript.
      "rollup.config.mjs":
        'import cudascript from "cudascript/rollup";\nimport typescript from "@rollup/plugin-typescript";\nimport { nodeResolve } from "@rollup/plugin-node-resolve";\n\n' +
        'export default { input: "src/main.ts", plugins: [cudascript(), nodeResolve({ extensions: [".ts", ".js"] }), typescript({ noEmit: false, outDir: "dist" })], output: { dir: "dist", format: "esm" } };\n',
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      ctx.run(ctx.tool("rollup"), ["-c"], dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], dir), "node on rollup's bundle");
    },
  },
  {
    name: "webpack",
    files: (ctx) => ({
      "package.json": packageJson("webpack-user", "commonjs"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "preserve", moduleResolution: "bundler", noEmit: true }, include: ["src"] }),
      "build.cjs":
        'const path = require("node:path");\nconst webpack = require("webpack");\nconst cudascript = require("cudascript/webpack").default;\n\n' +
        'webpack({\n  mode: "production",\n  target: "node",\n  entry: "./src/main.ts",\n  output: { path: path.resolve(__dirname, "dist"), filename: "main.js" },\n  resolve: { extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } },\n  module: { rules: [{ test: /\\.ts$/, loader: "ts-loader", options: { transpileOnly: true } }] },\n  plugins: [cudascript()],\n}, (err, stats) => {\n  if (err || stats.hasErrors()) { console.error(err ?? stats.toString("errors-only")); process.exit(1); }\n});\n',
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      ctx.run(process.execPath, ["build.cjs"], dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], dir), "node on webpack's bundle");
    },
  },
  {
    name: "rspack",
    files: (ctx) => ({
      "package.json": packageJson("rspack-user", "commonjs"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "preserve", moduleResolution: "bundler", noEmit: true }, include: ["src"] }),
      "build.cjs":
        'const path = require("node:path");\nconst { rspack } = require("@rspack/core");\nconst cudascript = require("cudascript/rspack").default;\n\n' +
        'rspack({\n  mode: "production",\n  target: "node",\n  entry: "./src/main.ts",\n  output: { path: path.resolve(__dirname, "dist"), filename: "main.js" },\n  resolve: { extensions: [".ts", ".js"], extensionAlias: { ".js": [".ts", ".js"] } },\n  module: { rules: [{ test: /\\.ts$/, loader: "builtin:swc-loader", options: { jsc: { parser: { syntax: "typescript" } } } }] },\n  plugins: [cudascript()],\n}, (err, stats) => {\n  if (err || stats.hasErrors()) { console.error(err ?? stats.toString("errors-only")); process.exit(1); }\n});\n',
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      ctx.run(process.execPath, ["build.cjs"], dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], dir), "node on Rspack's bundle");
    },
  },
  {
    name: "esbuild",
    files: (ctx) => ({
      "package.json": packageJson("esbuild-user", "module"),
      "tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "preserve", moduleResolution: "bundler", noEmit: true }, include: ["src"] }),
      "build.mjs": 'import { build } from "esbuild";\nimport cudascript from "cudascript/esbuild";\n\nawait build({ entryPoints: ["src/main.ts"], outfile: "dist/main.mjs", bundle: true, platform: "node", format: "esm", plugins: [cudascript()] });\n',
      ...sources(ctx),
    }),
    steps(ctx, dir) {
      tsc(ctx, dir);
      ctx.run(process.execPath, ["build.mjs"], dir);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.mjs"], dir), "node on esbuild's bundle");
    },
  },
  {
    name: "kernel-library",
    files: (ctx) => ({
      "package.json": packageJson("kernel-library-workspace", undefined),
      // The library: TypeScript sources compiled by tsc (JavaScript, declarations, source maps) and shipped with them.
      "lib/package.json": json({
        name: "demo-kernels",
        version: "1.0.0",
        type: "module",
        exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
        files: ["dist", "src"],
        peerDependencies: { cudascript: "*" },
      }),
      "lib/tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "nodenext", outDir: "dist", rootDir: "src", declaration: true }, include: ["src"] }),
      "lib/src/index.ts": ctx.fixtures["kernels.ts"],
      // The application that depends on it.
      "app/package.json": json({ name: "kernel-library-user", version: "1.0.0", private: true, type: "module" }),
      "app/tsconfig.json": json({ compilerOptions: { ...strictOptions, target: "es2022", module: "nodenext", outDir: "dist", rootDir: "src" }, include: ["src"] }),
      "app/src/compute.ts": ctx.fixtures["compute.ts"].replace('"./kernels.js"', '"demo-kernels"'),
      "app/src/main.ts": ctx.fixtures["main.ts"],
    }),
    steps(ctx, dir) {
      const lib = join(dir, "lib");
      const app = join(dir, "app");
      ctx.run("ln", ["-s", "../node_modules", "node_modules"], lib);
      tsc(ctx, lib);
      const tarball = ctx.run("npm", ["pack", "--silent", "--pack-destination", dir], lib).trim().split("\n").pop();
      ctx.run("ln", ["-s", "../node_modules", "node_modules"], app);
      ctx.run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", join(dir, tarball)], dir);
      ctx.linkTools(dir);
      tsc(ctx, app);
      expectResult(ctx, ctx.run(process.execPath, ["dist/main.js"], app), "node on tsc's output, kernels from a package");
      expectResult(ctx, ctx.run(ctx.tool("tsx"), ["src/main.ts"], app), "tsx, kernels from a package");
      cudascriptRun(ctx, app);
      writeFileSync(join(app, "build.mjs"), 'import { build } from "esbuild";\nimport cudascript from "cudascript/esbuild";\n\nawait build({ entryPoints: ["src/main.ts"], outfile: "out/main.mjs", bundle: true, platform: "node", format: "esm", plugins: [cudascript()] });\n');
      ctx.run(process.execPath, ["build.mjs"], app);
      expectResult(ctx, ctx.run(process.execPath, ["out/main.mjs"], app), "esbuild bundle, kernels from a package");
    },
  },
  {
    // The kernel debugger as an editor starts it: `npx cudascript debug-adapter` (DAP over stdio) from the
    // installed package debugs the program (a breakpoint in blockSum, stopped in the launch, continued to
    // the end) and the @run configuration's missing tag is its coded error.
    name: "debug-adapter",
    files: (ctx) => ({
      "package.json": packageJson("debug-adapter-user", "module"),
      ...sources(ctx),
      "dap-client.cjs": DAP_CLIENT,
    }),
    steps(ctx, dir) {
      const out = ctx.run(process.execPath, ["dap-client.cjs", String(ctx.fixtures["kernels.ts"].split("\n").findIndex((l) => l.includes("sums[cuda.blockIdx.x] = tile[0]")) + 1)], dir);
      if (!/^stopped breakpoint at blockSum:\d+ t=0$/m.test(out)) throw new Error(`debug-adapter: expected a stop in blockSum with t=0:\n${out}`);
      if (!/^exited 0$/m.test(out)) throw new Error(`debug-adapter: expected the program to end with exit code 0:\n${out}`);
      expectResult(ctx, out, "cudascript debug-adapter (the program's output as DAP output)");
      if (!/CSD020: kernel 'saxpy' has no @run tag/.test(out)) throw new Error(`debug-adapter: expected CSD020 for a kernel without @run:\n${out}`);
    },
  },
];

/** A DAP client, as an editor is one: starts `npx cudascript debug-adapter` and drives one debug session of src/main.ts. */
const DAP_CLIENT = `const { spawn } = require("node:child_process");
const path = require("node:path");
const line = Number(process.argv[2]);
function session() {
  const child = spawn("npx", ["cudascript", "debug-adapter"], { stdio: ["pipe", "pipe", "inherit"] });
  let seq = 1, buffer = Buffer.alloc(0);
  const waiting = new Map(), events = [], listeners = [];
  child.stdout.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const head = buffer.indexOf("\\r\\n\\r\\n");
      if (head < 0) return;
      const length = Number(/Content-Length: (\\d+)/.exec(buffer.subarray(0, head).toString())[1]);
      if (buffer.length < head + 4 + length) return;
      const m = JSON.parse(buffer.subarray(head + 4, head + 4 + length).toString());
      buffer = buffer.subarray(head + 4 + length);
      if (m.type === "response") waiting.get(m.request_seq)(m);
      else { events.push(m); listeners.splice(0).forEach((f) => f()); }
    }
  });
  const request = (command, args = {}) => new Promise((resolve) => {
    const body = Buffer.from(JSON.stringify({ seq, type: "request", command, arguments: args }));
    waiting.set(seq++, resolve);
    child.stdin.write(\`Content-Length: \${body.length}\\r\\n\\r\\n\`);
    child.stdin.write(body);
  });
  const event = (name) => new Promise((resolve) => {
    const look = () => { const i = events.findIndex((e) => e.event === name); if (i >= 0) resolve(events.splice(i, 1)[0]); else listeners.push(look); };
    look();
  });
  return { child, request, event, events };
}
(async () => {
  const kernels = path.resolve("src/kernels.ts");
  const s = session();
  await s.request("initialize", { adapterID: "cudascript", linesStartAt1: true, columnsStartAt1: true, pathFormat: "path" });
  const launched = s.request("launch", { type: "cudascript", request: "launch", program: "src/main.ts", cwd: process.cwd() });
  await s.request("setBreakpoints", { source: { path: kernels }, breakpoints: [{ line, condition: "cuda.blockIdx.x === 1" }] });
  if (!(await launched).success) throw new Error("launch failed");
  await s.request("configurationDone");
  const stopped = await s.event("stopped");
  const frame = (await s.request("stackTrace", { threadId: stopped.body.threadId })).body.stackFrames[0];
  const scope = (await s.request("scopes", { frameId: frame.id })).body.scopes[0];
  const t = (await s.request("variables", { variablesReference: scope.variablesReference })).body.variables.find((v) => v.name === "t");
  console.log(\`stopped \${stopped.body.reason} at \${frame.name}:\${frame.line} t=\${t && t.value}\`);
  await s.request("continue", { threadId: stopped.body.threadId });
  console.log(\`exited \${(await s.event("exited")).body.exitCode}\`);
  await s.event("terminated");
  console.log(s.events.filter((e) => e.event === "output" && e.body.category === "stdout").map((e) => e.body.output).join(""));
  s.child.stdin.end();
  const tag = session();
  await tag.request("initialize", { adapterID: "cudascript" });
  const r = await tag.request("launch", { program: kernels, kernel: "saxpy" });
  console.log(r.message);
  tag.child.stdin.end();
})().catch((e) => { console.error(e); process.exit(1); });
`;
