/**
 * The results panel's webview in a real browser (Debian's chromium through playwright-core; skipped,
 * saying so, when it is not installed): its document (the same HTML and Content-Security-Policy as in
 * VS Code), the bundles of main.ts and panel.css, and the messages the extension posts for a run whose
 * last launch failed with CSR020. The panel is as narrow as a panel opened beside an editor.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { build } from "esbuild";
import { chromium, type Page } from "playwright-core";
import { resultsDocument } from "./document";
import type { ResultRecord, ToWebview } from "./messages";

const SRC = path.join(__dirname, "..", "..", "src", "webview");
const ORIGIN = "https://webview.test";
const CHROMIUM = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => p && fs.existsSync(p));

async function bundle(entry: string, options: Parameters<typeof build>[0] = {}): Promise<string> {
  const r = await build({ entryPoints: [path.join(SRC, entry)], bundle: true, write: false, logLevel: "silent", ...options });
  return r.outputFiles![0]!.text;
}

const timings = { hostToDeviceMs: 0.2, deviceToHostMs: 0.1 };
const RECORDS: ResultRecord[] = [
  { type: "run", version: 1, program: "/w/main.ts", backend: "simulator", device: "simulator", startedAt: "2026-01-01T00:00:00.000Z" },
  { type: "launch", id: 1, kernel: "fill", file: "/w/main.ts", line: 3, grid: [1, 1, 1], block: [32, 1, 1], sharedMemBytes: 0, backend: "simulator", timings: { compileMs: 41.5, kernelMs: 0.4, ...timings } },
  { type: "launch", id: 2, kernel: "fill", file: "/w/main.ts", line: 3, grid: [1, 1, 1], block: [32, 1, 1], sharedMemBytes: 0, backend: "simulator", timings: { kernelMs: 0.3, ...timings } },
  {
    type: "launch",
    id: 3,
    kernel: "bad",
    file: "/w/main.ts",
    line: 8,
    grid: [1, 1, 1],
    block: [32, 1, 1],
    sharedMemBytes: 0,
    backend: "simulator",
    timings: {},
    error: { code: "CSR020", message: "CSR020: out-of-bounds write of array 'out' at main.ts:10:3 in kernel 'bad', block (0, 0, 0), thread (31, 0, 0): index 32 is outside 0..31" },
  },
  { type: "array", name: "matrix", dtype: "f32", shape: [8, 40], data: Array.from({ length: 320 }, (_, i) => i / 7), stats: { min: 0, max: 319 / 7, mean: 22.8, nanCount: 0, infCount: 0 }, truncated: false },
  { type: "array", name: "values", dtype: "f32", shape: [200], data: Array.from({ length: 200 }, (_, i) => 1000000 + i / 3), stats: { min: 1e6, max: 1e6 + 66, mean: 1e6 + 33, nanCount: 0, infCount: 0 }, truncated: false },
];

async function showRun(page: Page, messages: ToWebview[]): Promise<void> {
  await page.evaluate((ms) => {
    (window as unknown as { rendered: number }).rendered = 0;
    for (const m of ms) window.postMessage(m, "*");
  }, messages);
  await page.waitForFunction(() => (window as unknown as { rendered: number }).rendered > 0);
}

test("the results panel of a failed run, 520 px wide: the failed launch is listed with its error, and every table fits or scrolls", async (t) => {
  if (!CHROMIUM) {
    t.skip("SKIPPED: no chromium here (apt-get install chromium, or set CHROMIUM_PATH)");
    return;
  }
  const [script, style] = await Promise.all([bundle("main.ts", { platform: "browser", format: "iife", target: "es2020" }), bundle("panel.css")]);
  const html = resultsDocument({ cspSource: ORIGIN, script: `${ORIGIN}/webview.js`, style: `${ORIGIN}/webview.css`, nonce: "n0nce" });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
  try {
    const page = await browser.newPage({ viewport: { width: 520, height: 900 } });
    const problems: string[] = [];
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    await page.route(`${ORIGIN}/**`, (route) => {
      const file = new URL(route.request().url()).pathname;
      const [body, contentType] = file === "/webview.js" ? [script, "text/javascript"] : file === "/webview.css" ? [style, "text/css"] : [html, "text/html"];
      return route.fulfill({ body, contentType });
    });
    // What VS Code gives a webview: acquireVsCodeApi; "rendered" messages are counted.
    await page.addInitScript(() => {
      const w = window as unknown as { rendered: number; acquireVsCodeApi(): unknown };
      w.rendered = 0;
      w.acquireVsCodeApi = () => ({ postMessage: (m: { type: string }) => m.type === "rendered" && w.rendered++, getState: () => undefined, setState: () => undefined });
    });
    await page.goto(`${ORIGIN}/index.html`);
    await showRun(page, [
      { type: "reset", run: { title: "main.ts", program: "/w/main.ts", command: "cudascript run main.ts", startedAt: "2026-01-01T00:00:00.000Z" }, resultsFile: "/r.jsonl" },
      { type: "records", records: RECORDS },
      { type: "status", status: { state: "failed", exitCode: 1, durationMs: 900, message: "exited with code 1: error CSR020: out-of-bounds write of array 'out'" } },
    ]);

    const launches = await page.locator("#launches").innerText();
    assert.doesNotMatch(launches, /No kernel launches were reported/);
    assert.equal(await page.locator("tr.launch-row").count(), 3);
    assert.equal(await page.locator('tr.launch-row >> nth=0 >> td[data-timing="compile"]').innerText(), "41.50 ms");
    assert.match(await page.locator("tr.launch-failed").innerText(), /failed: CSR020/);
    assert.match(await page.locator("tr.launch-error").innerText(), /^CSR020: out-of-bounds write of array 'out' at main\.ts:10:3/);
    assert.match(await page.locator("#status").innerText(), /Failed[\s\S]*error CSR020/);

    // The page itself does not overflow sideways (VS Code cuts a webview off at the panel's edge);
    // a table wider than the panel scrolls inside its own box, whose edge is within the panel.
    const layout = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const tables = Array.from(document.querySelectorAll("table.grid")).map((table) => {
        let box: HTMLElement | null = table.parentElement;
        while (box && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
        const r = table.getBoundingClientRect();
        return { table: table.getAttribute("data-testid"), width: Math.round(r.width), right: Math.round(r.right), scrolls: box !== null && box.getBoundingClientRect().right <= width && box.scrollWidth >= r.width - 1 };
      });
      return { width, pageWidth: document.documentElement.scrollWidth, tables };
    });
    assert.ok(layout.pageWidth <= layout.width, `the page is ${layout.pageWidth} px wide in a ${layout.width} px panel: ${JSON.stringify(layout.tables)}`);
    assert.ok(layout.tables.some((tb) => tb.table === "launches" && tb.width > layout.width), "the launches table is wider than this panel (the case this test is about)");
    for (const tb of layout.tables) assert.ok(tb.right <= layout.width || tb.scrolls, `table ${tb.table} (${tb.width} px) is cut off at ${layout.width} px: ${JSON.stringify(tb)}`);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});
