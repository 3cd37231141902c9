#!/usr/bin/env node
/**
 * Checks the .vsix files `npm run package` built, as a user's VS Code would get them: unpacks each and
 * asserts its platform (the manifest's TargetPlatform, the file name, .cudascript-native), its size
 * bound, that its native binary (koffi.node) is machine code for that platform and no other,
 * that it carries nothing that does not run (no .ts/.map/.d.ts, no .md beyond the readme, changelog and
 * the diagnostics reference the language server links to, no koffi sources or build tool, no tests),
 * that TypeScript is in it once (dist/compiler.js) and not in the runtime, and that its bundled CLI
 * runs a program on this machine from its TypeScript source (no esbuild in a .vsix) — on the simulator
 * with the native bindings for another platform or none (universal), where `doctor` says what to install.
 *
 * usage: node test/packaging/check-vsix.mjs [file.vsix …]   (default: every ./*.vsix; exit 1 on failure)
 * Also a phase of `npm run test:e2e`, which builds the files once (checkVsixFiles).
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
// yauzl is what vsce writes .vsix files with: read them with the same library, from vsce's dependencies
const yauzl = createRequire(createRequire(join(root, "package.json")).resolve("@vscode/vsce/package.json"))("yauzl");

const MB = 1024 * 1024;
/** Size bounds (zipped; issue 12: the linux-x64 .vsix ≤ 5 MB). koffi's binary is 0.3–0.5 MB of a platform's. */
const MAX_BYTES = { universal: 3 * MB, platform: 5 * MB };

/** Machine code: ELF e_machine, Mach-O cputype, PE machine; for "this file is for that platform". */
function binaryPlatform(buf) {
  if (buf.readUInt32BE(0) === 0x7f454c46) return `linux-${{ 0x3e: "x64", 0xb7: "arm64" }[buf.readUInt16LE(18)] ?? "other"}`;
  if (buf.readUInt32LE(0) === 0xfeedfacf) return `darwin-${{ 0x01000007: "x64", 0x0100000c: "arm64" }[buf.readUInt32LE(4)] ?? "other"}`;
  if (buf.toString("latin1", 0, 2) === "MZ") {
    const pe = buf.readUInt32LE(0x3c);
    if (buf.toString("latin1", pe, pe + 4) === "PE\0\0") return `win32-${{ 0x8664: "x64", 0xaa64: "arm64" }[buf.readUInt16LE(pe + 4)] ?? "other"}`;
  }
  return undefined;
}

/** Every entry of a zip: name → contents. */
function readZip(file) {
  return new Promise((done, fail) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return fail(err);
      const entries = new Map();
      zip.on("entry", (entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return fail(e);
          const chunks = [];
          stream.on("data", (c) => chunks.push(c));
          stream.on("end", () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.on("end", () => done(entries));
      zip.on("error", fail);
      zip.readEntry();
    });
  });
}

const ALLOWED_MD = new Set(["extension/readme.md", "extension/changelog.md", "extension/dist/docs/diagnostics.md"]);
const JUNK = [
  [/\.ts$/, "TypeScript source or typings"],
  [/\.map$/, "source map"],
  [/(^|\/)(test|tests|__tests__)\//, "test folder"],
  [/\.test\.[cm]?js$/, "test file"],
  [/\.(cc|cpp|c|h|hh|hpp|inc|S|asm|def)$/, "C/C++/assembly source"],
  [/CMakeLists\.txt$|cnoke\.cjs$|(^|\/)vendor\//, "native build tool or vendored sources"],
  [/(^|\/)musl_/, "musl binary (VS Code's alpine targets are not built)"],
];

/** Checks one .vsix; returns { target, bytes, failures: string[] }. */
export async function checkVsix(file, { runCli = true } = {}) {
  const failures = [];
  const fail = (msg) => failures.push(msg);
  const bytes = statSync(file).size;
  const entries = await readZip(file);
  const names = [...entries.keys()];
  const text = (name) => entries.get(name)?.toString("utf8");

  // platform: the manifest, the file name and the native layout agree
  const manifestTarget = /TargetPlatform="([\w-]+)"/.exec(text("extension.vsixmanifest") ?? "")?.[1] ?? "universal";
  const fileTarget = /-(universal|(?:linux|darwin|win32|alpine)-\w+)\.vsix$/.exec(basename(file))?.[1];
  if (fileTarget !== manifestTarget) fail(`file name says ${fileTarget}, the manifest's TargetPlatform says ${manifestTarget}`);
  const target = manifestTarget;
  let native;
  try {
    native = JSON.parse(text("extension/dist/node_modules/.cudascript-native"));
  } catch {
    fail("no extension/dist/node_modules/.cudascript-native: the extension cannot tell whether its CLI runs here");
  }
  if (native && native.target !== target) fail(`.cudascript-native says ${native.target}, the manifest ${target}`);

  // size
  const max = target === "universal" ? MAX_BYTES.universal : MAX_BYTES.platform;
  if (bytes > max) fail(`${(bytes / MB).toFixed(2)} MB zipped, over the bound of ${(max / MB).toFixed(0)} MB`);

  // native binaries: exactly this platform's, and machine code for it
  const nativePackages = new Set(names.map((n) => /^extension\/dist\/node_modules\/(@esbuild|@koromix)\/([\w-]+)\//.exec(n)).filter(Boolean).map((m) => `${m[1]}/${m[2]}`));
  const expected = target === "universal" ? [] : [`@koromix/koffi-${target}`];
  if (names.some((n) => n.startsWith("extension/dist/node_modules/esbuild/"))) fail("carries esbuild (the bundled CLI runs programs from their source)");
  for (const p of nativePackages) if (!expected.includes(p)) fail(`carries ${p}, which is not for ${target}`);
  for (const p of expected) if (!nativePackages.has(p)) fail(`lacks ${p}`);
  const binaries = names.filter((n) => /\/(esbuild|esbuild\.exe|koffi\.node)$/.test(n) && entries.get(n).length > 4096);
  for (const n of binaries) {
    const plat = binaryPlatform(entries.get(n));
    if (plat !== target) fail(`${n} is machine code for ${plat ?? "no known platform"}, not ${target}`);
  }
  if (target !== "universal" && binaries.length !== 1) fail(`expected koffi.node alone, found ${binaries.join(", ") || "none"}`);

  // nothing that does not run
  for (const n of names) {
    if (/\.md$/i.test(n) && !ALLOWED_MD.has(n) && !/\/LICENSE[^/]*$/i.test(n)) fail(`ships ${n} (only the readme, changelog and diagnostics reference)`);
    for (const [re, what] of JUNK) if (re.test(n)) fail(`ships ${n} (${what})`);
  }
  for (const need of ["extension/readme.md", "extension/changelog.md", "extension/package.json"]) if (!entries.has(need)) fail(`lacks ${need}`);
  // vsce writes the root LICENSE as extension/LICENSE.txt (its license processor adds the extension).
  if (!names.includes("extension/LICENSE.txt") && !names.includes("extension/LICENSE")) fail("lacks extension/LICENSE.txt");

  // manifest: icon, repository, engines at least what vscode-languageclient requires
  const pkg = JSON.parse(text("extension/package.json"));
  if (!pkg.icon || !entries.has(`extension/${pkg.icon}`)) fail(`icon ${pkg.icon} missing`);
  else if (entries.get(`extension/${pkg.icon}`).readUInt32BE(16) !== 128) fail("the icon is not 128 pixels wide");
  if (!pkg.repository) fail("no repository in package.json");
  const lc = JSON.parse(readFileSync(join(root, "node_modules", "vscode-languageclient", "package.json"), "utf8")).engines.vscode;
  if (pkg.engines.vscode !== lc) fail(`engines.vscode is ${pkg.engines.vscode}; vscode-languageclient needs ${lc}`);
  if (pkg.activationEvents.some((e) => /workspaceContains:\*\*/.test(e))) fail("a workspaceContains:** activation event walks the whole tree");

  // TypeScript once, and never in the runtime
  const withTs = names.filter((n) => n.endsWith(".js") && entries.get(n).includes("Debug Failure."));
  if (withTs.length !== 1 || withTs[0] !== "extension/dist/compiler.js") fail(`the TypeScript compiler is in ${withTs.join(", ") || "no file"} (expected only extension/dist/compiler.js)`);

  if (runCli) await checkBundledCli(entries, target, fail);
  return { file, target, bytes, unpacked: [...entries.values()].reduce((s, b) => s + b.length, 0), failures };
}

/** The bundled CLI, unpacked: runs a program when this is our platform, else says what to install. */
async function checkBundledCli(entries, target, fail) {
  const dir = mkdtempSync(join(tmpdir(), "cs-vsix-"));
  try {
    for (const [name, buf] of entries) {
      if (!name.startsWith("extension/")) continue;
      const out = join(dir, name);
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, buf);
    }
    const cli = join(dir, "extension", "dist", "runtime", "cli", "main.js");
    // a program outside any project (no node_modules up the tree from the temp folder)
    const prog = join(dir, "program");
    mkdirSync(prog);
    cpSync(join(root, "test", "e2e", "workspace", "kernels.ts"), join(prog, "kernels.ts"));
    writeFileSync(join(prog, "main.ts"), 'import { saxpy } from "./kernels";\nconst n = 512;\nconst x = new Float32Array(n).fill(1), y = new Float32Array(n).fill(2), out = new Float32Array(n);\nsaxpy.launch(n / 256, 256)(3, x, y, out);\nconsole.log(`saxpy out[0] = ${out[0]}`);\n');
    const env = { ...process.env, CUDASCRIPT_CACHE_DIR: join(dir, "cache"), NO_COLOR: "1" };
    const cmd = (...args) => spawnSync(process.execPath, [cli, ...args], { cwd: prog, env, encoding: "utf8", timeout: 120_000 });
    const here = `${process.platform}-${process.arch}`;
    const run = cmd("run", "--backend", "simulator", "main.ts");
    const doctor = cmd("doctor");
    const said = (r) => `exit ${r.status}: ${(r.stdout + r.stderr).trim().split("\n").slice(-4).join(" / ")}`;
    for (const [what, r] of [["run", run], ["doctor", doctor]]) if (/internal error/.test(r.stdout + r.stderr)) fail(`the bundled CLI's ${what} crashed (${said(r)})`);
    if (/MISSING/.test(doctor.stdout)) fail(`the bundled CLI's doctor reports a missing part: ${doctor.stdout.split("\n").filter((l) => /MISSING/.test(l)).join(" / ")}`);
    if (doctor.status !== 0) fail(`the bundled CLI's doctor failed (${said(doctor)})`);
    if (run.status !== 0 || !/saxpy out\[0\] = 5/.test(run.stdout)) fail(`the ${target} CLI did not run a program on ${here} (${said(run)})`);
    if (!/running main\.ts from its TypeScript source/.test(run.stderr)) fail(`the ${target} CLI's run on ${here} does not say that it runs the program from its source (${said(run)})`);
    // The bundled compiler finds a too-deep construct in a worker that loads it from the bundle itself.
    const deep = spawnSync(process.execPath, ["-e", `const c = require(${JSON.stringify(join(dir, "extension", "dist", "compiler.js"))}); const f = new c.CudaProject().setFileText("/deep.ts", "let x = " + "a ? b : ".repeat(20000) + "c;"); console.log(JSON.stringify(f.unparsable));`], { encoding: "utf8", timeout: 60_000 });
    if (deep.status !== 0 || !(JSON.parse(deep.stdout || "{}").position > 0)) fail(`the bundled compiler does not locate a construct nested too deeply (${said(deep)})`);
    if (target !== here && !/\[native\].*\n\s*fix: install cudascript with npm/.test(doctor.stdout)) fail(`the ${target} CLI's doctor on ${here} does not say that the native bindings are missing and what to install (${said(doctor)})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Checks every file; one result line per file. */
export async function checkVsixFiles(files, opts) {
  const results = [];
  for (const f of files) results.push(await checkVsix(f, opts));
  return results;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = process.argv.slice(2).length ? process.argv.slice(2) : readdirSync(root).filter((f) => f.endsWith(".vsix")).map((f) => join(root, f));
  if (!files.length) {
    console.error("no .vsix files: build them with `npm run package`");
    process.exit(1);
  }
  let failed = 0;
  for (const r of await checkVsixFiles(files)) {
    const size = `${(r.bytes / MB).toFixed(2)} MB zipped, ${(r.unpacked / MB).toFixed(1)} MB unpacked`;
    console.log(`${r.failures.length ? "✖" : "✔"} ${basename(r.file)} (${r.target}; ${size})${r.failures.map((f) => `\n    ${f}`).join("")}`);
    failed += r.failures.length ? 1 : 0;
  }
  process.exit(failed ? 1 : 0);
}
