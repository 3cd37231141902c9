/**
 * The results panel's Profile section in a real browser (Debian's chromium through playwright-core;
 * skipped, saying so, when it is not installed): the panel's document and bundles as VS Code loads
 * them, the view the extension posts for the transpose fixture (test/e2e/workspace), and a profile that
 * could not be made. 520 px wide, as a panel beside an editor.
 */
import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { build } from "esbuild";
import { chromium, type Page } from "playwright-core";
import { parseProfile, type ProfileReport } from "../profile-model";
import { buildProfileView } from "../profile-view";
import { resultsDocument } from "./document";
import type { RenderedSummary, ToWebview } from "./messages";

const SRC = path.join(__dirname, "..", "..", "src", "webview");
const WORKSPACE = path.join(__dirname, "..", "..", "..", "test", "e2e", "workspace");
const ORIGIN = "https://webview.test";
const CHROMIUM = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].find((p) => p && fs.existsSync(p));

async function bundle(entry: string, options: Parameters<typeof build>[0] = {}): Promise<string> {
  const r = await build({ entryPoints: [path.join(SRC, entry)], bundle: true, write: false, logLevel: "silent", ...options });
  return r.outputFiles![0]!.text;
}

async function withPanel(fn: (page: Page, problems: string[]) => Promise<void>): Promise<void> {
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
    await page.addInitScript(() => {
      const w = window as unknown as { summaries: unknown[]; opened: unknown[]; states: unknown[]; acquireVsCodeApi(): unknown };
      w.summaries = [];
      w.opened = [];
      w.states = [];
      w.acquireVsCodeApi = () => ({
        postMessage: (m: { type: string; summary?: unknown }) => (m.type === "rendered" ? w.summaries.push(m.summary) : m.type === "open" && w.opened.push(m)),
        getState: () => undefined,
        setState: (state: unknown) => w.states.push(state),
      });
    });
    await page.goto(`${ORIGIN}/index.html`);
    await fn(page, problems);
  } finally {
    await browser.close();
  }
}

async function post(page: Page, messages: ToWebview[]): Promise<RenderedSummary> {
  const before = await page.evaluate(() => (window as unknown as { summaries: unknown[] }).summaries.length);
  await page.evaluate((ms) => ms.forEach((m) => window.postMessage(m, "*")), messages);
  await page.waitForFunction((n) => (window as unknown as { summaries: unknown[] }).summaries.length > n, before);
  return page.evaluate(() => {
    const s = (window as unknown as { summaries: unknown[] }).summaries;
    return s[s.length - 1] as RenderedSummary;
  });
}

const RUN = { title: "kernel transposeNaive · transpose.ts", program: "/ws/.cudascript/run-transpose.ts", command: "cudascript profile --format json -o p.json run-transpose.ts", startedAt: "2026-01-01T00:00:00.000Z" };

test("the Profile section: launches with totals and the roofline estimate, worst lines with advice, the source with a heat column", async (t) => {
  if (!CHROMIUM) return t.skip("SKIPPED: no chromium here (apt-get install chromium, or set CHROMIUM_PATH)");
  const report = parseProfile(fs.readFileSync(path.join(WORKSPACE, "transpose.profile.json"), "utf8")) as ProfileReport;
  const source = fs.readFileSync(path.join(WORKSPACE, "transpose.ts"), "utf8");
  const view = buildProfileView(report, (f) => (f === "transpose.ts" ? { path: "/ws/transpose.ts", text: source } : undefined));
  await withPanel(async (page, problems) => {
    const summary = await post(page, [
      { type: "reset", run: RUN, resultsFile: "/r.jsonl" },
      { type: "status", status: { state: "ok", exitCode: 0, durationMs: 900, message: "finished with exit code 0" } },
      { type: "profile", profile: view, file: "/ws/profiles/p.json" },
    ]);
    assert.deepEqual(summary.profile, { heatLines: 2, worst: 2, advice: 2, rooflines: 2 });
    // the panel's saved state names the report, which a reloaded window shows again (resultsPanel.ts)
    const states = await page.evaluate(() => (window as unknown as { states: { profileFile?: string }[] }).states);
    assert.equal(states[states.length - 1]!.profileFile, "/ws/profiles/p.json");
    assert.equal(await page.locator("#profile-section").isHidden(), false);
    assert.equal(await page.locator(".profile-launch").count(), 2);
    assert.match(await page.locator(".profile-launch[data-kernel='transposeNaive'] [data-testid='profile-totals']").innerText(), /global store sectors\s+1,024/);
    // the roofline: an SVG with the roof and the point, and the word estimate
    assert.equal(await page.locator("svg.roofline polyline.roofline-roof").count(), 2);
    assert.equal(await page.locator("svg.roofline circle.roofline-point").count(), 2);
    assert.match(await page.locator("[data-testid='roofline'] figcaption").first().innerText(), /Roofline \(estimate\)[\s\S]*A100 SXM4 40GB[\s\S]*no floating-point work[\s\S]*An estimate from the counts/);
    // worst lines first, ranked by the profiler's severity (bytes wasted): the strided store (28,672),
    // then the conflicting column read (3,968), each with its advice
    const worst = await page.locator("li.profile-worst-line").allInnerTexts();
    assert.match(worst[1]!, /^transpose\.ts:31 [\s\S]*shared loads: 32 wavefronts per request, ideal 1 \(992 bank conflicts\)[\s\S]*What to do:[\s\S]*pad the tile/);
    assert.match(worst[0]!, /^transpose\.ts:14 [\s\S]*global stores: 32 sectors per request, ideal 4[\s\S]*What to do:[\s\S]*stage through a shared tile/);
    // the heat column: the strided store hottest, the column read warm, the profiled branch line counted but cold
    const heat = await page.evaluate(() =>
      Object.fromEntries(Array.from(document.querySelectorAll("table.profile-source tr[data-line]")).map((r) => [r.getAttribute("data-line"), `${r.getAttribute("data-heat")}:${r.querySelector("td.profile-heat")!.textContent}`])),
    );
    assert.equal(heat["31"], "1:3,968");
    assert.equal(heat["14"], "5:28,672");
    assert.equal(heat["13"], "0:0");
    assert.equal(heat["12"], "0:", "an unprofiled line has no value");
    // another metric: divergent branches — none here, so no line is hot
    await page.locator("select[data-testid='heat-metric']").selectOption("excessSectors");
    const excess = await page.evaluate(() => Array.from(document.querySelectorAll("td.profile-heat:not(.heat-0)")).map((c) => c.closest("tr")!.getAttribute("data-line")));
    assert.deepEqual(excess, ["14"]);
    // a later redraw (records streaming in) keeps the chosen metric
    await post(page, [{ type: "output", text: "more output\n", stream: "stdout" }]);
    assert.equal(await page.locator("select[data-testid='heat-metric']").inputValue(), "excessSectors");
    // a line number opens the source
    await page.locator("table.profile-source tr[data-line='14'] td.profile-ln").click();
    assert.deepEqual(await page.evaluate(() => (window as unknown as { opened: unknown[] }).opened), [{ type: "open", file: "/ws/transpose.ts", line: 14 }]);
    const width = await page.evaluate(() => [document.documentElement.clientWidth, document.documentElement.scrollWidth]);
    assert.ok(width[1]! <= width[0]!, `the page overflows sideways: ${width}`);
    assert.deepEqual(problems, []);
  });
});

test("a profile that could not be made: one clear message, no half-drawn section, and text is never HTML", async (t) => {
  if (!CHROMIUM) return t.skip("SKIPPED: no chromium here (apt-get install chromium, or set CHROMIUM_PATH)");
  await withPanel(async (page, problems) => {
    const problem = "The program launched no kernel, so there is nothing to profile. <img src=x onerror=alert(1)>";
    const summary = await post(page, [
      { type: "reset", run: RUN, resultsFile: "/r.jsonl" },
      { type: "status", status: { state: "ok", exitCode: 0 } },
      { type: "profile", profile: { problem } },
    ]);
    assert.deepEqual(summary.profile, { heatLines: 0, worst: 0, advice: 0, rooflines: 0, problem });
    assert.equal(await page.locator("[data-testid='profile-problem']").innerText(), problem);
    assert.equal(await page.locator("#profile img").count(), 0);
    assert.equal(await page.locator("table.profile-source").count(), 0);
    // a new run clears it
    const next = await post(page, [{ type: "reset", run: RUN, resultsFile: "/r2.jsonl" }]);
    assert.equal(next.profile, undefined);
    assert.equal(await page.locator("#profile-section").isHidden(), true);
    assert.deepEqual(problems, []);
  });
});
