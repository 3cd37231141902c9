#!/usr/bin/env node
/**
 * Language-server benchmark, over stdio with the real server process (node server/dist/server.js):
 *   - first diagnostics after opening a generated 1,000-line file with 50 kernels;
 *   - edit → publishDiagnostics latency, p50/p95, over single-line edits inside different kernels
 *     (the diagnostics debounce is set to 0 ms for the run, so the figures are the server's own work);
 *   - hover latency, p50/p95 (kernel names, launch sites, cuda.* APIs) on a settled document;
 *   - resident memory (VmRSS of the server process) after warm-up and after 1,000 edits.
 * Targets: p95 ≤ 50 ms after an edit, hover ≤ 20 ms, memory flat (≤ 10 % growth after warm-up).
 *
 * Usage: node bench/lsp.mjs [--kernels 50] [--edits 1000] [--warmup 500] [--measured 200] [--hovers 200] [--nvrtc off] [--json]
 *                           [--node-args "--cpu-prof --cpu-prof-dir=/tmp/prof"]
 * Build first (npx tsc -b). Prints a table; exits 0 whatever the figures (no assertions on time).
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const { createProtocolConnection, StreamMessageReader, StreamMessageWriter } = require("vscode-languageserver-protocol/node");

const here = path.dirname(fileURLToPath(import.meta.url));
const SERVER = path.resolve(here, "..", "server", "dist", "server.js");

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1] : dflt;
};
const KERNELS = Number(opt("kernels", 50));
const EDITS = Number(opt("edits", 1000));
const MEASURED = Number(opt("measured", 200));
const HOVERS = Number(opt("hovers", 200));
// V8 grows its heap for the first several hundred edits before it settles; "flat after warm-up"
// is measured from there (a shorter warm-up measures V8's heap sizing, not a leak).
const WARMUP_EDITS = Number(opt("warmup", 500));
const NVRTC = opt("nvrtc", "on");
const JSON_OUT = args.includes("--json");
/** Extra node flags for the server process, e.g. --node-args "--cpu-prof --cpu-prof-dir=/tmp/prof". */
const NODE_ARGS = opt("node-args", "").split(" ").filter(Boolean);

if (!fs.existsSync(SERVER)) {
  console.error(`bench/lsp.mjs: ${SERVER} not found; build first (npx tsc -b)`);
  process.exit(2);
}

// ───────────────────────── the file ─────────────────────────

/** ~1,000 lines: 50 kernels of 20 lines (shared tile, barrier, loop, math) and a host function launching each. */
function generate(kernels) {
  const lines = ['import { cuda, f32, i32 } from "cudascript";', "", "const TPB = 256;", "const SCALE = 0.5;", ""];
  const editLines = [];
  const nameCols = [];
  for (let k = 0; k < kernels; k++) {
    lines.push(`/** Kernel ${k}: tile, reduce a window, scale. */`);
    nameCols.push({ line: lines.length, character: "export const k".length + 1 });
    lines.push(
      `export const k${k} = cuda.jit((x: Float32Array, y: Float32Array, out: Float32Array, a: f32, n: i32) => {`,
      "  const tile = cuda.shared.array(TPB, f32);",
      "  const t = cuda.threadIdx.x;",
      "  const i = cuda.grid(1);",
      "  tile[t] = i < x.length ? x[i] : 0;",
      "  cuda.syncthreads();",
      "  if (i >= out.length || i >= y.length) return;",
      "  let acc: f32 = 0;",
      "  for (let j = 0; j < n; j++) {",
      "    acc += a * tile[(t + j) % TPB] + y[i];",
      "  }",
    );
    editLines.push(lines.length);
    lines.push(
      `  const v = Math.sqrt(Math.abs(acc)) * ${k + 1};`,
      "  const w = v > 1 ? v : acc * SCALE;",
      "  cuda.atomic.add(out, i, w);",
      "  if (w < 0) out[i] = 0;",
      "  out[i] = out[i] * 0.5 + w;",
      "});",
      "",
    );
  }
  lines.push("export function run(x: Float32Array, y: Float32Array, out: Float32Array): void {");
  const launchLines = [];
  for (let k = 0; k < kernels; k++) {
    launchLines.push(lines.length);
    lines.push(`  k${k}.launch(Math.ceil(x.length / TPB), TPB)(x, y, out, ${k}, 8);`);
  }
  lines.push("}", "");
  return { text: lines.join("\n"), editLines, nameCols, launchLines };
}

// ───────────────────────── client ─────────────────────────

const env = { ...process.env };
if (NVRTC === "off") env.CUDASCRIPT_NVRTC = "off";
const child = spawn(process.execPath, [...NODE_ARGS, SERVER, "--stdio"], { stdio: ["pipe", "pipe", "pipe"], env });
let stderr = "";
child.stderr.on("data", (b) => (stderr += b));
const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
const waiters = new Map(); // version → resolve
const logs = [];
conn.onNotification("textDocument/publishDiagnostics", (p) => {
  const w = waiters.get(p.version);
  if (w) {
    waiters.delete(p.version);
    w(p);
  }
});
conn.onNotification("window/logMessage", (p) => logs.push(p));
conn.onRequest("client/registerCapability", () => null);
conn.onRequest("workspace/codeLens/refresh", () => null);
conn.listen();

const now = () => performance.now();
const published = (version) => new Promise((resolve) => waiters.set(version, resolve));
function rssKiB() {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"));
  return m ? Number(m[1]) : NaN;
}
function quantile(xs, q) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const { text: initial, editLines, nameCols, launchLines } = generate(KERNELS);
const lineCount = initial.split("\n").length;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cs-lsp-bench-"));
const file = path.join(dir, "kernels.ts");
fs.writeFileSync(file, initial);
const uri = pathToFileURL(file).href;

await conn.sendRequest("initialize", {
  processId: process.pid,
  rootUri: null,
  capabilities: { workspace: { codeLens: { refreshSupport: true } } },
  initializationOptions: { diagnostics: { debounceMs: 0 } },
});
await conn.sendNotification("initialized", {});

// First diagnostics after open.
let version = 1;
let t0 = now();
const first = published(1);
await conn.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "typescript", version, text: initial } });
const firstDiag = await first;
const firstMs = now() - t0;
if (firstDiag.diagnostics.length) console.error(`warning: the generated file has ${firstDiag.diagnostics.length} diagnostics: ${JSON.stringify(firstDiag.diagnostics.slice(0, 3))}`);

let counter = 0;
/** One single-line edit inside kernel k: rewrites its `const v = …` line. */
async function edit(k) {
  const line = editLines[k % editLines.length];
  counter++;
  const newLine = `  const v = Math.sqrt(Math.abs(acc)) * ${(k % 7) + 1}.${counter % 1000};`;
  version++;
  const done = published(version);
  const start = now();
  await conn.sendNotification("textDocument/didChange", {
    textDocument: { uri, version },
    contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 1000 } }, text: newLine }],
  });
  const p = await done;
  if (p.diagnostics.length) throw new Error(`edit ${counter} produced diagnostics: ${JSON.stringify(p.diagnostics[0])}`);
  return now() - start;
}

// Warm-up: edits everywhere, a few hovers, and time for the background NVRTC compile (if any).
for (let e = 0; e < WARMUP_EDITS; e++) await edit(e * 7);
for (let h = 0; h < 20; h++) await conn.sendRequest("textDocument/hover", { textDocument: { uri }, position: nameCols[h % nameCols.length] });
await sleep(NVRTC === "off" ? 300 : 4000);
const rssWarm = rssKiB();

// Measured edits: each in a different kernel than the previous one.
const editTimes = [];
for (let e = 0; e < EDITS; e++) editTimes.push(await edit((e * 13) % KERNELS));
const measured = editTimes.slice(0, MEASURED);
await sleep(300);
const rssEnd = rssKiB();

// Hovers on a settled document: kernel names, launch sites, cuda.* APIs.
const hoverTargets = [];
const text = initial.split("\n");
for (let k = 0; k < KERNELS; k++) {
  hoverTargets.push({ kind: "kernel name", position: nameCols[k] });
  hoverTargets.push({ kind: "launch site", position: { line: launchLines[k], character: 4 } });
  const apiLine = nameCols[k].line + 5; // cuda.syncthreads()
  hoverTargets.push({ kind: "cuda.* API", position: { line: apiLine, character: text[apiLine].indexOf("syncthreads") + 2 } });
}
const hoverTimes = { "kernel name": [], "launch site": [], "cuda.* API": [] };
const allHover = [];
for (let h = 0; h < HOVERS; h++) {
  const target = hoverTargets[(h * 7) % hoverTargets.length];
  const start = now();
  const r = await conn.sendRequest("textDocument/hover", { textDocument: { uri }, position: target.position });
  const ms = now() - start;
  if (!r) throw new Error(`no hover at ${JSON.stringify(target)}`);
  hoverTimes[target.kind].push(ms);
  allHover.push(ms);
}
// Hover right after an edit (includes the re-check the hover waits for).
const hoverAfterEdit = [];
for (let h = 0; h < 50; h++) {
  counter++;
  version++;
  await conn.sendNotification("textDocument/didChange", {
    textDocument: { uri, version },
    contentChanges: [{ range: { start: { line: editLines[h % KERNELS], character: 0 }, end: { line: editLines[h % KERNELS], character: 1000 } }, text: `  const v = Math.sqrt(Math.abs(acc)) * 3.${counter};` }],
  });
  const start = now();
  await conn.sendRequest("textDocument/hover", { textDocument: { uri }, position: nameCols[h % KERNELS] });
  hoverAfterEdit.push(now() - start);
}

await conn.sendRequest("shutdown");
await conn.sendNotification("exit");
await sleep(100);
child.kill();
fs.rmSync(dir, { recursive: true, force: true });

const internal = logs.filter((l) => /internal error|uncaught|unhandled/i.test(l.message));
const fmt = (x) => `${x.toFixed(1)} ms`;
const growth = ((rssEnd - rssWarm) / rssWarm) * 100;
const rows = [
  ["file", `${lineCount} lines, ${KERNELS} kernels`, "", ""],
  ["first diagnostics after open", fmt(firstMs), "", ""],
  [`edit → publishDiagnostics p50 (${measured.length} edits)`, fmt(quantile(measured, 0.5)), "", ""],
  [`edit → publishDiagnostics p95 (${measured.length} edits)`, fmt(quantile(measured, 0.95)), "≤ 50 ms", quantile(measured, 0.95) <= 50 ? "met" : "MISSED"],
  [`edit → publishDiagnostics p95 (all ${editTimes.length} edits)`, fmt(quantile(editTimes, 0.95)), "≤ 50 ms", quantile(editTimes, 0.95) <= 50 ? "met" : "MISSED"],
  [`hover p50 (${allHover.length}, settled)`, fmt(quantile(allHover, 0.5)), "", ""],
  [`hover p95 (${allHover.length}, settled)`, fmt(quantile(allHover, 0.95)), "≤ 20 ms", quantile(allHover, 0.95) <= 20 ? "met" : "MISSED"],
  ...Object.entries(hoverTimes).map(([k, xs]) => [`  hover p95 on ${k}`, fmt(quantile(xs, 0.95)), "", ""]),
  [`hover p95 right after an edit (incl. re-check)`, fmt(quantile(hoverAfterEdit, 0.95)), "", ""],
  ["server RSS after warm-up", `${(rssWarm / 1024).toFixed(1)} MiB`, "", ""],
  [`server RSS after ${editTimes.length} more edits`, `${(rssEnd / 1024).toFixed(1)} MiB`, "", ""],
  ["RSS growth", `${growth >= 0 ? "+" : ""}${growth.toFixed(1)} %`, "≤ 10 %", growth <= 10 ? "met" : "MISSED"],
  ["NVRTC background compile", NVRTC === "off" ? "off (CUDASCRIPT_NVRTC=off)" : "on (if NVRTC is installed)", "", ""],
  ["internal errors logged", String(internal.length), "0", internal.length === 0 ? "met" : "MISSED"],
];
if (JSON_OUT) {
  console.log(JSON.stringify({ rows, editTimes, hoverTimes, rssWarm, rssEnd, firstMs }, null, 2));
} else {
  const w = [0, 1, 2, 3].map((i) => Math.max(...rows.map((r) => r[i].length), ["measure", "value", "target", "status"][i].length));
  const line = (r) => `| ${r.map((c, i) => c.padEnd(w[i])).join(" | ")} |`;
  console.log(line(["measure", "value", "target", "status"]));
  console.log(`|${w.map((n) => "-".repeat(n + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
  console.log(`\nnode ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? "?"}); diagnostics debounce 0 ms for the run.`);
}
if (stderr.trim()) console.error(`server stderr:\n${stderr}`);
