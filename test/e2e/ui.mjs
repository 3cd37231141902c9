/**
 * UI tests: the extension as a person uses it, in code-server's workbench through chromium.
 * Each test takes a screenshot into test/e2e/out/ (also on failure).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function openWorkbench(page, url) {
  await page.goto(url);
  await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
  await page.locator(".explorer-folders-view .monaco-list-row").first().waitFor({ timeout: 30_000 });
}

async function runCommand(page, title) {
  await page.keyboard.press("Escape");
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget .quick-input-box input");
  await input.waitFor({ state: "visible" });
  await input.fill(">" + title);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ state: "visible", timeout: 15_000 });
  await row.click();
}

async function openFile(page, name) {
  // A test before may have left another side bar view (Run and Debug) in front of the Explorer.
  if (!(await page.locator(".explorer-folders-view").isVisible())) await runCommand(page, "View: Show Explorer");
  const item = page.locator(".explorer-folders-view .monaco-list-row", { hasText: new RegExp(`^\\s*${name.replace(/[.]/g, "\\.")}\\s*$`) }).first();
  await item.waitFor({ timeout: 30_000 });
  await item.dblclick();
  await page.locator(".tabs-container .tab.active", { hasText: name }).waitFor({ timeout: 15_000 });
  await page.locator(".editor-instance .view-lines").first().waitFor();
}

/** The results panel's document (webview content frame), found by its #arrays element. */
async function resultsFrame(page, timeout = 30_000) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      try {
        if (await f.evaluate(() => !!document.getElementById("arrays") && document.visibilityState !== "hidden")) return f;
      } catch {
        /* detached or cross-origin while loading */
      }
    }
    await sleep(250);
  }
  throw new Error("no results panel appeared");
}

/** Waits until the panel's status is no longer "running"; returns it. */
async function finishedState(frame, timeout) {
  await frame.waitForFunction(() => {
    const s = document.getElementById("status")?.getAttribute("data-state");
    return s && s !== "running";
  }, undefined, { timeout });
  return frame.evaluate(() => ({ state: document.getElementById("status").getAttribute("data-state"), text: document.getElementById("status").innerText }));
}

async function codeLens(page, pattern, near) {
  // CodeLens are content widgets above their line; take the one closest after `near`'s line when given
  const lenses = page.locator(".editor-instance .codelens-decoration a", { hasText: pattern });
  await lenses.first().waitFor({ timeout: 30_000 });
  if (!near) return lenses.first();
  const target = await page.locator(".editor-instance .view-line", { hasText: near }).first().boundingBox();
  const n = await lenses.count();
  let best, bestDy = Infinity;
  for (let i = 0; i < n; i++) {
    const b = await lenses.nth(i).boundingBox();
    const dy = target && b ? target.y - b.y : i;
    if (dy > 0 && dy < bestDy) (best = lenses.nth(i), (bestDy = dy));
  }
  return best ?? lenses.first();
}

export async function uiTests({ browser, cs, ws, outDir, log, restricted }) {
  const results = [];
  const consoleErrors = [];
  const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  page.on("console", (m) => {
    if (m.type() === "error" && /Content Security Policy|Refused to/i.test(m.text())) consoleErrors.push(m.text());
  });
  page.on("dialog", (d) => {
    consoleErrors.push(`unexpected dialog: ${d.message()}`);
    void d.dismiss();
  });
  const shot = (name) => page.screenshot({ path: join(outDir, name) }).catch(() => undefined);
  let taken = false;
  /** A screenshot at the moment that shows the point of the test (hovers and toasts fade afterwards). */
  const capture = async (file) => {
    await sleep(400);
    await shot(file);
    taken = true;
  };
  // CUDASCRIPT_E2E_UI_ONLY=<regular expression>: only the UI tests whose names match
  const only = process.env.CUDASCRIPT_E2E_UI_ONLY ? new RegExp(process.env.CUDASCRIPT_E2E_UI_ONLY) : undefined;
  const test = async (name, file, fn) => {
    if (only && !only.test(name)) return;
    const t = Date.now();
    taken = false;
    try {
      await fn(() => capture(file));
      results.push({ name: `[ui] ${name}`, ok: true, ms: Date.now() - t });
      log(`✔ ${name}`);
    } catch (err) {
      results.push({ name: `[ui] ${name}`, ok: false, ms: Date.now() - t, error: err.message });
      log(`✖ ${name}: ${err.message.split("\n")[0]}`);
    } finally {
      if (!taken) await shot(file);
    }
  };
  const closeEditors = async () => {
    await runCommand(page, "View: Close All Editors").catch(() => undefined);
    await runCommand(page, "View: Hide Panel").catch(() => undefined);
    await runCommand(page, "Notifications: Clear All Notifications").catch(() => undefined);
  };

  await openWorkbench(page, `${cs.url}/?folder=${encodeURIComponent(ws)}`);
  log("workbench rendered");

  await test("a broken kernel: squiggle and the coded diagnostic in the Problems panel", "ui-problems.png", async () => {
    await openFile(page, "broken.ts");
    await page.locator(".editor-instance .squiggly-error").first().waitFor({ timeout: 60_000 });
    await runCommand(page, "View: Focus Problems");
    const row = page.locator(".markers-panel .monaco-list-row", { hasText: "CS2002" }).first();
    await row.waitFor({ timeout: 30_000 });
    log(`  Problems: ${JSON.stringify((await row.innerText()).replace(/\s+/g, " "))}`);
  });

  await test("hover over a kernel shows its occupancy", "ui-hover.png", async (snap) => {
    await runCommand(page, "View: Hide Panel").catch(() => undefined);
    await openFile(page, "kernels.ts");
    const name = page.locator(".editor-instance .view-line span", { hasText: /^saxpy$/ }).first();
    await name.waitFor({ timeout: 15_000 });
    const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: /occupancy/i }).first();
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      await name.hover({ force: true });
      if (await hover.waitFor({ timeout: 3000 }).then(() => true, () => false)) break;
      await page.mouse.move(5, 5);
      await sleep(300);
    }
    await hover.waitFor({ timeout: 1000 });
    const text = await hover.innerText();
    if (!/\d+(\.\d+)?\s*%/.test(text)) throw new Error(`no percentage in the hover: ${text}`);
    await snap();
    log(`  hover: ${JSON.stringify(text.split("\n").find((l) => /occupancy/i.test(l)))}`);
  });

  await test("status bar shows the backend and the device", "ui-status.png", async () => {
    const item = page.locator(".statusbar-item", { hasText: "CudaScript:" }).first();
    await item.waitFor({ timeout: 15_000 });
    const text = await item.innerText();
    if (!/Simulator|GPU/.test(text)) throw new Error(`status bar: ${text}`);
    log(`  status bar: ${JSON.stringify(text)}`);
  });

  await test("results panel from a results file: table, stats, line chart, heatmap, diff, escaped finding, clickable source", "ui-results-fixture.png", async () => {
    await closeEditors();
    await runCommand(page, "CudaScript: Open Results File...");
    // the simple file dialog of the browser workbench: pick the file, then its OK button
    const row = page.locator(".quick-input-list .monaco-list-row", { hasText: "fixture-results.jsonl" }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    const ok = page.locator(".quick-input-widget .monaco-button", { hasText: "Show Results" }).first();
    if (await ok.isVisible().catch(() => false)) await ok.click().catch(() => undefined);
    const frame = await resultsFrame(page);
    await frame.locator(".array-card[data-name='counts'] canvas.heatmap").waitFor({ timeout: 30_000 });
    await frame.locator(".array-card[data-name='out'] .uplot").waitFor({ timeout: 30_000 });
    const info = await frame.evaluate(() => {
      const c = document.querySelector(".array-card[data-name='counts'] canvas.heatmap");
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      const colors = new Set();
      for (let i = 0; i < d.length; i += 4 * 7) colors.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return {
        colors: colors.size,
        timings: [...document.querySelectorAll("td.timing")].map((t) => t.textContent),
        finding: document.querySelector(".finding .finding-message")?.textContent,
        injected: [...document.querySelectorAll("script")].some((e) => (e.textContent || "").includes("alert(1)")) || !!document.querySelector(".finding script"),
        rows: document.querySelectorAll(".array-card[data-name='out'] table.values tbody tr").length,
        diff: document.querySelector(".array-card[data-name='out'] .diff")?.textContent,
        mean: document.querySelector(".array-card[data-name='out'] [data-stat='mean']")?.textContent,
      };
    });
    log(`  panel: ${JSON.stringify(info)}`);
    if (info.colors < 20) throw new Error(`the heatmap has ${info.colors} colours: not an image`);
    if (!info.finding?.includes("<script>alert(1)</script>") || info.injected) throw new Error("finding text not shown escaped");
    if (info.rows !== 10) throw new Error(`paged table shows ${info.rows} rows`);
    if (!/matches the reference/.test(info.diff ?? "")) throw new Error(`diff: ${info.diff}`);
    if (!info.timings.includes("12.40 ms")) throw new Error(`timings: ${info.timings}`);
    // the finding's source link opens kernels.ts at its line
    await frame.locator(".finding a.source-link").first().click();
    await page.locator(".tabs-container .tab.active", { hasText: "kernels.ts" }).waitFor({ timeout: 15_000 });
    const ln = await page.locator(".editor-instance .current-line ~ *, .editor-instance .line-numbers.active-line-number").first().innerText().catch(() => "");
    log(`  finding link opened kernels.ts (active line ${ln || "?"})`);
    await sleep(300);
  });

  await test("the results panel survives being hidden and shown again", "ui-results-restored.png", async () => {
    const tab = page.locator(".tabs-container .tab", { hasText: "Results: fixture-results.jsonl" }).first();
    await tab.waitFor({ timeout: 10_000 });
    await openFile(page, "saxpy-host.ts"); // in the same editor group: the panel is hidden
    await sleep(500);
    if (await tab.evaluate((e) => e.classList.contains("active"))) throw new Error("the results panel did not get hidden");
    await tab.click();
    await page.locator(".tabs-container .tab.active", { hasText: "Results: fixture-results.jsonl" }).waitFor({ timeout: 5000 });
    const frame = await resultsFrame(page);
    await frame.locator(".array-card[data-name='counts'] canvas.heatmap").waitFor({ timeout: 10_000 });
  });

  await test("CodeLens Run on a kernel: the results panel shows the arrays and the timings", "ui-codelens-run.png", async () => {
    await closeEditors();
    await openFile(page, "kernels.ts");
    const lens = await codeLens(page, /Run/, "export const saxpy");
    log(`  CodeLens: ${JSON.stringify(await lens.innerText())}`);
    await lens.click();
    const frame = await resultsFrame(page);
    const st = await finishedState(frame, 120_000);
    log(`  run: ${JSON.stringify(st)}`);
    if (st.state !== "ok") throw new Error(`the run ended ${st.state}: ${st.text}`);
    await frame.locator(".array-card[data-name='out']").waitFor({ timeout: 10_000 });
    const timings = await frame.locator("td.timing[data-timing='kernel']").allInnerTexts();
    if (!timings.length || timings.some((t) => t === "—")) throw new Error(`kernel timings: ${timings}`);
  });

  await test("Profile from the CodeLens on the transpose kernels: the panel's heat column and worst lines with advice, and the hover on a profiled line", "ui-profile-hover.png", async (capture) => {
    await closeEditors();
    await openFile(page, "transpose.ts");
    const lens = await codeLens(page, /^Profile$/, "export const transposeNaive");
    await lens.click();
    let frame = await resultsFrame(page);
    await frame.locator("#profile-section:not([hidden])").waitFor({ timeout: 120_000 });
    const problem = frame.locator("[data-testid='profile-problem']");
    if (await problem.count()) throw new Error(`no profile: ${await problem.innerText()}`);
    // the panel with the heat column (a hidden panel's frame stays in the page: find the one drawn)
    const end0 = Date.now() + 60_000;
    for (frame = undefined; !frame && Date.now() < end0; await sleep(250))
      for (const f of page.frames()) if (await f.evaluate(() => !!document.querySelector("table.profile-source td.heat-5")).catch(() => false)) frame = f;
    if (!frame) throw new Error("no results panel shows a heat column");
    const panel = await frame.evaluate(() => ({
      hot: [...document.querySelectorAll("table.profile-source tr[data-heat='5']")].map((r) => r.getAttribute("data-line")),
      worst: [...document.querySelectorAll("li.profile-worst-line")].map((l) => l.innerText.replace(/\s+/g, " ")),
      roofline: !!document.querySelector("svg.roofline circle.roofline-point"),
    }));
    log(`  panel: hot lines ${panel.hot.join(", ")}; worst: ${JSON.stringify(panel.worst.map((w) => w.slice(0, 70)))}`);
    if (!panel.hot.includes("14")) throw new Error(`line 14 (the strided store) is not hot: ${panel.hot}`);
    if (!panel.worst.some((w) => /transpose\.ts:14 .*What to do:/.test(w))) throw new Error(`no advice on line 14: ${JSON.stringify(panel.worst)}`);
    if (!panel.roofline) throw new Error("no roofline chart");
    await sleep(400);
    await page.screenshot({ path: join(outDir, "ui-profile-panel.png") });
    await frame.evaluate(() => document.querySelector("[data-testid='roofline']").scrollIntoView());
    await sleep(400);
    await page.screenshot({ path: join(outDir, "ui-profile-roofline.png") });
    // the hover on the store's line in the editor: its counters and the advice
    await page.locator(".tabs-container .tab", { hasText: "transpose.ts" }).first().click();
    const store = page.locator(".editor-instance .view-line", { hasText: "out[x * n + y]" }).locator("span span", { hasText: /^out$/ }).first();
    await store.waitFor({ timeout: 15_000 });
    const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "CudaScript profile" }).first();
    const end = Date.now() + 30_000;
    while (Date.now() < end) {
      await store.hover({ force: true });
      if (await hover.waitFor({ timeout: 3000 }).then(() => true, () => false)) break;
      await page.mouse.move(5, 5);
    }
    const text = await hover.innerText();
    log(`  hover: ${JSON.stringify(text.replace(/\s+/g, " ").slice(0, 160))}`);
    if (!/global store sectors/.test(text) || !/stage through a shared tile/.test(text)) throw new Error(`hover: ${text}`);
    await capture();
  });

  await test("Run File on the Mandelbrot program shows an image", "ui-mandelbrot.png", async () => {
    await closeEditors();
    await openFile(page, "mandelbrot-host.ts");
    await runCommand(page, "CudaScript: Run File");
    const frame = await resultsFrame(page);
    const st = await finishedState(frame, 120_000);
    log(`  run: ${JSON.stringify(st)}`);
    if (st.state !== "ok") throw new Error(`the run ended ${st.state}: ${st.text}`);
    const canvas = frame.locator(".array-card[data-name='counts'] canvas.heatmap");
    await canvas.waitFor({ timeout: 10_000 });
    const colors = await canvas.evaluate((c) => {
      const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
      const s = new Set();
      for (let i = 0; i < d.length; i += 4 * 5) s.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      return s.size;
    });
    if (colors < 20) throw new Error(`the image has ${colors} colours`);
  });

  await test("Run File on a program whose kernel faults: the toast and the panel give the coded error, and the panel lists the failed launch", "ui-run-failed.png", async () => {
    await closeEditors();
    await openFile(page, "oob-host.ts");
    await runCommand(page, "CudaScript: Run File");
    const frame = await resultsFrame(page);
    const st = await finishedState(frame, 120_000);
    log(`  run: ${JSON.stringify(st)}`);
    if (st.state !== "failed") throw new Error(`the run ended ${st.state}: ${st.text}`);
    if (!/CSR020/.test(st.text) || /from the host program/.test(st.text)) throw new Error(`the panel status does not give the coded error: ${st.text}`);
    const failed = frame.locator("tr.launch-failed").first();
    await failed.waitFor({ timeout: 10_000 });
    if (!/failed: CSR020/.test(await failed.innerText())) throw new Error(`the failed launch row: ${await failed.innerText()}`);
    const toast = page.locator(".notifications-toasts .notification-list-item-message", { hasText: "CSR020" }).first();
    await toast.waitFor({ timeout: 15_000 });
    log(`  toast: ${JSON.stringify((await toast.innerText()).slice(0, 120))}`);
  });

  await test("Show PTX: highlighted PTX beside the source", "ui-ptx.png", async () => {
    await closeEditors();
    await openFile(page, "kernels.ts");
    const line = page.locator(".editor-instance .view-line", { hasText: "out[i] = a * x[i] + y[i]" }).first();
    await line.click();
    await runCommand(page, "CudaScript: Show PTX");
    await page.locator(".tabs-container .tab", { hasText: ".ptx" }).first().waitFor({ timeout: 30_000 });
    const text = await page.locator(".editor-instance").last().innerText();
    if (/is not available/.test(text)) throw new Error(`no PTX: ${text.split("\n").slice(0, 3).join(" ")}`);
    if (!/\.entry|\.visible/.test(text)) throw new Error("the document does not look like PTX");
  });

  await test("Debug from the CodeLens: stops at the breakpoint, shows the locals, steps, the focus thread picker moves to another thread, Continue ends", "ui-debug-stopped.png", async (capture) => {
    await closeEditors();
    await openFile(page, "block-sum.ts");
    const bpLine = page.locator(".editor-instance .view-line", { hasText: "let s = 32;" }).first();
    await bpLine.click();
    await runCommand(page, "Debug: Toggle Breakpoint");
    await page.locator(".editor-instance .codicon-debug-breakpoint").first().waitFor({ timeout: 10_000 });
    const lens = await codeLens(page, /^Debug$/, "export const blockSum");
    await lens.click();
    await page.locator(".debug-toolbar").waitFor({ state: "visible", timeout: 60_000 });
    /** Waits until the debugger is stopped on the line with `text`: the top frame in Call Stack is at it, and the editor highlights a line. */
    const source = readFileSync(join(ws, "block-sum.ts"), "utf8").split("\n");
    const stoppedLine = async (text, timeout = 30_000) => {
      const want = source.findIndex((l) => l.includes(text)) + 1;
      const end = Date.now() + timeout;
      let frames = [];
      while (Date.now() < end) {
        frames = (await page.locator(".debug-call-stack .monaco-list-row").allInnerTexts()).map((r) => r.replace(/\s+/g, " ").trim());
        const top = frames.find((r) => r.startsWith("blockSum"));
        // the frame row reads "blockSum block-sum.ts 13:7" (line:column)
        if (Number(/ (\d+):\d+$/.exec(top ?? "")?.[1]) === want && (await page.locator(".editor-instance .debug-top-stack-frame-line").count())) return top;
        await sleep(200);
      }
      throw new Error(`the debugger is not stopped on line ${want} ('${text}'); Call Stack: ${JSON.stringify(frames.slice(0, 4))}`);
    };
    /** The Variables view's rows ("name: value"). */
    const variables = () => page.locator(".debug-view-content .monaco-list-row").allInnerTexts();
    // a row reads "name = value" (or "name: value" in other VS Code versions)
    const v = (name, value) => new RegExp(`^${name.replace(/[[\]]/g, "\\$&")} ?[:=] ?${value.replace(/[[\]]/g, "\\$&")}$`);
    const waitVariable = async (re, timeout = 30_000) => {
      const end = Date.now() + timeout;
      let rows = [];
      while (Date.now() < end) {
        rows = (await variables()).map((r) => r.replace(/\s+/g, " ").trim());
        if (rows.some((r) => re.test(r))) return rows;
        await sleep(200);
      }
      throw new Error(`no variable ${re} in the Variables view: ${JSON.stringify(rows.slice(0, 12))}`);
    };
    await stoppedLine("let s = 32;");
    let rows = await waitVariable(v("t", "0"));
    await waitVariable(v("tile", "f32[64] shared"));
    log(`  stopped; variables: ${JSON.stringify(rows.slice(0, 8))}`);
    const status = page.locator(".statusbar-item", { hasText: "block (0, 0, 0) thread (0, 0, 0)" }).first();
    await status.waitFor({ timeout: 10_000 });
    await capture();

    await page.locator(".debug-toolbar .codicon-debug-step-over").first().click();
    await stoppedLine("while (s > 0)");
    rows = await waitVariable(v("s", "32"));
    log(`  stepped over; variables: ${JSON.stringify(rows.slice(0, 8))}`);
    await sleep(400);
    await page.screenshot({ path: join(outDir, "ui-debug-variables.png") });

    await status.click();
    const input = page.locator(".quick-input-widget .quick-input-box input");
    await input.waitFor({ state: "visible", timeout: 10_000 });
    await input.fill("block (0, 0, 0) thread (64, 0, 0)");
    const invalid = page.locator(".quick-input-widget .quick-input-message", { hasText: "outside the block" }).first();
    await invalid.waitFor({ timeout: 10_000 });
    await input.fill("thread (5, 0, 0)");
    await sleep(400);
    await page.screenshot({ path: join(outDir, "ui-debug-thread-picker.png") });
    await input.press("Enter");
    await page.locator(".statusbar-item", { hasText: "block (0, 0, 0) thread (5, 0, 0)" }).first().waitFor({ timeout: 15_000 });
    rows = await waitVariable(v("t", "5"));
    await waitVariable(v("i", "5"));
    log(`  focus moved; variables: ${JSON.stringify(rows.slice(0, 8))}`);
    await sleep(400);
    await page.screenshot({ path: join(outDir, "ui-debug-focus-moved.png") });

    // the breakpoint off again (as it was set), then Continue runs the launch to its end
    await page.locator(".editor-instance .view-line", { hasText: "let s = 32;" }).first().click();
    await runCommand(page, "Debug: Toggle Breakpoint");
    await page.locator(".editor-instance .codicon-debug-breakpoint, .editor-instance .codicon-debug-breakpoint-unverified").first().waitFor({ state: "detached", timeout: 10_000 });
    await page.locator(".debug-toolbar .codicon-debug-continue").first().click();
    await page.locator(".debug-toolbar").waitFor({ state: "hidden", timeout: 30_000 });
    if (await page.locator(".statusbar-item", { hasText: "thread (" }).count()) throw new Error("the focus status item is still shown after the session ended");
  });

  await (await import("./suite/debug-this-fault.mjs")).debugThisFaultTest({ page, ws, test, runCommand, openFile, closeEditors, log });
  // Last: it reloads the window.
  await (await import("./suite/profile-reload.mjs")).profileReloadTest({ page, test, runCommand, openFile, closeEditors, codeLens, log });

  if (consoleErrors.length) results.push({ name: "[ui] no Content-Security-Policy violations or dialogs", ok: false, error: consoleErrors.slice(0, 5).join("\n") });
  else results.push({ name: "[ui] no Content-Security-Policy violations or dialogs", ok: true });
  await page.close();

  // Restricted Mode: a second server with Workspace Trust on
  if (only && !only.test("Restricted Mode")) return results;
  const rs = await restricted();
  const rpage = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
  try {
    const t = Date.now();
    try {
      await openWorkbench(rpage, `${rs.url}/?folder=${encodeURIComponent(ws)}`);
      await openFile(rpage, "broken.ts");
      await rpage.locator(".editor-instance .squiggly-error").first().waitFor({ timeout: 60_000 });
      const status = await rpage.locator(".statusbar-item", { hasText: "CudaScript:" }).first().innerText();
      await openFile(rpage, "kernels.ts");
      const lens = await codeLens(rpage, /Run/, "export const saxpy");
      await lens.click();
      const toast = rpage.locator(".notifications-toasts .notification-list-item-message", { hasText: "Restricted Mode" }).first();
      await toast.waitFor({ timeout: 15_000 });
      await sleep(600);
      await rpage.screenshot({ path: join(outDir, "ui-restricted.png") });
      // debugging runs the workspace's code too: the Debug CodeLens refuses, saying why
      await rpage.keyboard.press("Escape");
      const debugLens = await codeLens(rpage, /^Debug$/, "export const saxpy");
      await debugLens.click();
      await rpage.locator(".notifications-toasts .notification-list-item-message", { hasText: "debugging is disabled in Restricted Mode" }).first().waitFor({ timeout: 15_000 });
      if (await rpage.locator(".debug-toolbar").isVisible()) throw new Error("a debug session started in Restricted Mode");
      log(`  restricted: status ${JSON.stringify(status)}; ${JSON.stringify((await toast.innerText()).slice(0, 90))}…`);
      results.push({ name: "[ui] Restricted Mode: diagnostics stay on, running and debugging are disabled with an explanation", ok: true, ms: Date.now() - t });
    } catch (err) {
      await rpage.screenshot({ path: join(outDir, "ui-restricted.png") }).catch(() => undefined);
      results.push({ name: "[ui] Restricted Mode: diagnostics stay on, running and debugging are disabled with an explanation", ok: false, ms: Date.now() - t, error: err.message });
    }
  } finally {
    await rpage.close();
    await rs.stop();
  }
  return results;
}
