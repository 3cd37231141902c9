#!/usr/bin/env node
/**
 * `npm run test:e2e`: the extension in a real VS Code (code-server 4.100.3 = VS Code 1.100.3, real Node
 * extension host), driven by playwright-core in Debian's chromium. Everything is installed here when
 * missing (apt packages as root, code-server into ~/.cache/cudascript-e2e) and every process started is
 * killed at the end, also on failure or Ctrl-C.
 *
 *   1. build: tsc -b (the runtime the runs use), esbuild bundles, `vsce package` → one .vsix per platform
 *      and a universal one; test/packaging/check-vsix.mjs checks each
 *   2. extension tests (test/e2e/suite) inside the extension host of this platform's .vsix, installed
 *      with `code-server --install-extension` (the suite checks it runs from there, not the checkout)
 *   3. UI tests (test/e2e/ui.mjs) in the browser; screenshots in test/e2e/out/
 *
 * env: CUDASCRIPT_E2E_ONLY=ext|ui   CUDASCRIPT_E2E_UI_ONLY=<regexp of UI test names>   CUDASCRIPT_E2E_KEEP=1 (keep the temp dir)
 *      CS_HOME (code-server dir)
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { installVsix, prepareRunDir, saveLog, startCodeServer } from "./lib/code-server.mjs";
import { launchBrowser } from "./lib/browser.mjs";
import { makeWorkspace } from "./lib/workspace.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const outDir = join(here, "out");
const only = process.env.CUDASCRIPT_E2E_ONLY;
const T0 = Date.now();
const timings = [];
const sec = (ms) => `${(ms / 1000).toFixed(1)} s`;
const log = (...a) => console.log(`[e2e ${sec(Date.now() - T0)}]`, ...a);

// ---------------------------------------------------------------- cleanup of everything we start
const cleanups = [];
let cleaning;
async function cleanup() {
  cleaning ??= (async () => {
    for (const fn of cleanups.splice(0).reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error(`cleanup: ${err.message}`);
      }
    }
  })();
  return cleaning;
}
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    console.error(`\n${sig}: stopping everything started by the e2e run`);
    cleanup().finally(() => process.exit(130));
  });
}

async function phase(name, fn) {
  const t = Date.now();
  log(`== ${name}`);
  try {
    return await fn();
  } finally {
    timings.push([name, Date.now() - t]);
  }
}

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], encoding: "utf8", maxBuffer: 64 << 20, ...opts });
  return r;
}

// ---------------------------------------------------------------- main
async function main() {
  mkdirSync(outDir, { recursive: true });
  for (const f of readdirSync(outDir)) rmSync(join(outDir, f), { recursive: true, force: true });

  const bin = await phase("install (apt packages, code-server)", () => {
    const r = sh("bash", [join(here, "install-code-server.sh")], { stdio: ["ignore", "pipe", "inherit"] });
    if (r.status !== 0) throw new Error("install-code-server.sh failed");
    return r.stdout.trim().split("\n").pop();
  });

  const { vsix, built } = await phase("build (tsc -b, bundles, vsce package per platform)", () => {
    const tsc = sh(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-b"]);
    if (tsc.status !== 0) console.warn(`warning: tsc -b failed (runs use runtime/dist; the extension bundle does not need tsc):\n${(tsc.stdout + tsc.stderr).split("\n").slice(0, 15).join("\n")}`);
    const r = sh(process.execPath, [join(root, "scripts/build-extension.mjs"), "--package"]);
    if (r.status !== 0) throw new Error(`build-extension failed:\n${r.stdout}\n${r.stderr}`);
    const lines = r.stdout.split("\n").filter((l) => l.startsWith("packaged "));
    for (const l of lines) log(l);
    const files = lines.map((l) => join(root, l.replace(/^packaged (\S+).*$/, "$1")));
    // the tests run against the .vsix a user of this machine installs: this platform's
    const mine = files.find((f) => f.endsWith(`-${process.platform}-${process.arch}.vsix`));
    if (!mine) throw new Error(`no .vsix for ${process.platform}-${process.arch} among ${files.join(", ")}`);
    return { vsix: mine, built: files };
  });

  const results = [];
  await phase("packaging (test/packaging/check-vsix.mjs on every .vsix)", async () => {
    const { checkVsixFiles } = await import("../packaging/check-vsix.mjs");
    for (const r of await checkVsixFiles(built)) {
      results.push({ name: `[vsix] ${basename(r.file)}: ${r.target}, ${(r.bytes / 1024 / 1024).toFixed(2)} MB, native binaries, no junk, bundled CLI`, ok: !r.failures.length, error: r.failures.join("\n") });
    }
  });

  const tmp = mkdtempSync(join(tmpdir(), "cudascript-e2e-"));
  if (!process.env.CUDASCRIPT_E2E_KEEP) cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
  else log(`keeping ${tmp}`);

  const ws = await phase("workspace", () => {
    const dir = makeWorkspace(join(tmp, "ws"));
    log(`workspace ${dir}: ${readdirSync(dir).join(", ")}`);
    return dir;
  });

  if (!only || only === "ext") {
    await phase("extension tests (real extension host)", async () => {
      const r = await extensionTests({ bin, vsix, runDir: join(tmp, "run-ext"), ws });
      results.push(...r);
    });
  }
  if (!only || only === "ui") {
    await phase("UI tests (playwright + chromium)", async () => {
      const { uiTests } = await import("./ui.mjs");
      const runDir = join(tmp, "run-ui");
      prepareRunDir(runDir);
      installVsix(bin, runDir, vsix);
      const cs = await startCodeServer({ bin, runDir, folder: ws });
      cleanups.push(() => cs.stop());
      const browser = await launchBrowser();
      cleanups.push(() => browser.close());
      try {
        results.push(...(await uiTests({ browser, cs, ws, outDir, log, restricted: () => restrictedServer({ bin, vsix, tmp, ws }) })));
      } finally {
        saveLog(runDir, outDir, "code-server-ui.log");
        await browser.close();
        const killed = await cs.stop();
        log(`code-server stopped (${killed.length} processes)`);
      }
    });
  }
  return results;
}

/** Loads test/e2e/suite through `extensionTestsPath` and waits for its exit code. */
async function extensionTests({ bin, vsix, runDir, ws }) {
  prepareRunDir(runDir);
  const extDir = installVsix(bin, runDir, vsix);
  const report = join(runDir, "exttests.json");
  const cs = await startCodeServer({ bin, runDir, folder: ws, env: { CUDASCRIPT_E2E_REPORT: report, CUDASCRIPT_E2E_INSTALLED: extDir } });
  cleanups.push(() => cs.stop());
  const browser = await launchBrowser();
  cleanups.push(() => browser.close());
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let done;
    const exited = new Promise((r) => (done = r));
    await page.exposeFunction("codeAutomationLog", (_type, args) => {
      const text = (Array.isArray(args) ? args : [args]).map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" ");
      if (!/^\s*$/.test(text)) console.log(`  [exthost] ${text}`);
    });
    await page.exposeFunction("codeAutomationExit", (code) => done(code));
    const payload = JSON.stringify([
      ["extensionDevelopmentPath", cs.remote(extDir)],
      ["extensionTestsPath", cs.remote(join(here, "suite", "index.js"))],
    ]);
    await page.goto(`${cs.url}/?folder=${encodeURIComponent(ws)}&payload=${encodeURIComponent(payload)}`);
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("timeout"), 480_000))]);
    await page.screenshot({ path: join(outDir, "exttests-end.png") }).catch(() => undefined);
    log(`extension tests exit code: ${code}`);
    let results = [];
    try {
      results = JSON.parse((await import("node:fs")).readFileSync(report, "utf8")).map((r) => ({ ...r, name: `[ext] ${r.name}` }));
    } catch {
      results = [{ name: "[ext] extension tests ran", ok: false, error: `no report (exit ${code})` }];
    }
    if (code !== 0 && results.every((r) => r.ok)) results.push({ name: "[ext] extension host exit code", ok: false, error: String(code) });
    return results;
  } finally {
    saveLog(runDir, outDir, "code-server-ext.log");
    await browser.close();
    const killed = await cs.stop();
    log(`code-server stopped (${killed.length} processes)`);
  }
}

/** A second code-server with Workspace Trust on: the folder opens in Restricted Mode. */
async function restrictedServer({ bin, vsix, tmp, ws }) {
  const runDir = join(tmp, "run-restricted");
  prepareRunDir(runDir, { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never", "security.workspace.trust.banner": "always" });
  installVsix(bin, runDir, vsix);
  const cs = await startCodeServer({ bin, runDir, folder: ws, trust: false });
  cleanups.push(() => cs.stop());
  return { ...cs, stop: async () => (saveLog(runDir, outDir, "code-server-restricted.log"), cs.stop()) };
}

main()
  .then(async (results) => {
    await cleanup();
    const failed = results.filter((r) => !r.ok);
    console.log("\n== e2e summary");
    for (const r of results) console.log(`${r.ok ? "✔" : "✖"} ${r.name}${r.ms !== undefined ? ` (${sec(r.ms)})` : ""}${r.ok ? "" : `\n    ${String(r.error).split("\n").slice(0, 8).join("\n    ")}`}`);
    console.log("\n== timings");
    for (const [name, ms] of timings) console.log(`  ${name.padEnd(42)} ${sec(ms)}`);
    console.log(`  ${"total".padEnd(42)} ${sec(Date.now() - T0)}`);
    console.log(`screenshots: ${outDir}`);
    console.log(`\ne2e: ${results.length - failed.length} passed, ${failed.length} failed`);
    process.exit(failed.length ? 1 : 0);
  })
  .catch(async (err) => {
    console.error(`e2e: ${err.stack ?? err}`);
    await cleanup();
    process.exit(1);
  });
