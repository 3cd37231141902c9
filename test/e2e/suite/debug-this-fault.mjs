/**
 * UI test (run by test/e2e/ui.mjs): "Debug this fault". With the sanitizer on, Run File on a program
 * whose kernel races on shared memory fails with CSR021; the failure's notification (and the results
 * panel's status) offers "Debug this fault"; clicking the notification's button starts a debug session
 * that replays the run and stops at the racing thread on the racy line, with its locals, and the other
 * access of the race as a thread of its own in Call Stack.
 * Its screenshot (test/e2e/out/ui-debug-this-fault.png) is docs/images/debug-this-fault.png.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export async function debugThisFaultTest({ page, ws, test, runCommand, openFile, closeEditors, log }) {
  await test("Debug this fault: a sanitizer finding's notification starts the debugger stopped at the racing thread and line, with the race's other thread", "ui-debug-this-fault.png", async (capture) => {
    await closeEditors();
    await openFile(page, "race-host.ts");
    await runCommand(page, "CudaScript: Toggle Sanitizer");
    await page.locator(".notifications-toasts .notification-list-item-message", { hasText: "sanitizer on" }).first().waitFor({ timeout: 15_000 });
    await runCommand(page, "Notifications: Clear All Notifications");
    try {
      await runCommand(page, "CudaScript: Run File");
      const toast = page.locator(".notifications-toasts .notification-list-item", { hasText: "CSR021" }).first();
      await toast.waitFor({ timeout: 120_000 });
      log(`  toast: ${JSON.stringify((await toast.locator(".notification-list-item-message").innerText()).slice(0, 120))}`);
      // The results panel's status offers it too (its webview is a frame of its own).
      const pend = Date.now() + 30_000;
      let inPanel = false;
      while (!inPanel && Date.now() < pend) {
        for (const f of page.frames()) inPanel ||= await f.evaluate(() => !!document.querySelector("[data-testid=debug-fault]")).catch(() => false);
        if (!inPanel) await sleep(250);
      }
      if (!inPanel) throw new Error("the results panel's status has no 'Debug this fault' button");
      await toast.locator(".monaco-button", { hasText: "Debug this fault" }).first().click();
      await page.locator(".debug-toolbar").waitFor({ state: "visible", timeout: 60_000 });
      // VS Code opens Run and Debug by itself only at the first session of a window (debug.openDebug).
      // Its activity bar button, not the command palette: while the session starts, the palette's input
      // can stay busy past the fill timeout (seen in a full UI run).
      if (!(await page.locator(".debug-call-stack").isVisible())) await page.locator('.activitybar [aria-label^="Run and Debug"]').first().click();

      const source = readFileSync(join(ws, "race-host.ts"), "utf8").split("\n");
      const lineOf = (text) => source.findIndex((l) => l.includes(text)) + 1;
      const want = lineOf("// racy read");
      const rowsOf = async (sel) => (await page.locator(sel).allInnerTexts()).map((r) => r.replace(/\s+/g, " ").trim());
      const end = Date.now() + 60_000;
      let stack = [];
      for (;;) {
        stack = await rowsOf(".debug-call-stack .monaco-list-row");
        const top = stack.find((r) => r.startsWith("racy"));
        if (Number(/ (\d+):\d+$/.exec(top ?? "")?.[1]) === want && (await page.locator(".editor-instance .debug-top-stack-frame-line").count())) break;
        if (Date.now() > end) throw new Error(`the debugger is not stopped on line ${want}; Call Stack: ${JSON.stringify(stack.slice(0, 6))}`);
        await sleep(200);
      }
      if (!stack.some((r) => r.includes(`other access of the race: thread (0, 0, 0) of block (0, 0, 0) at line ${lineOf("// write own")}`)))
        throw new Error(`Call Stack does not list the other access of the race: ${JSON.stringify(stack)}`);
      const v = (name, value) => new RegExp(`^${name} ?[:=] ?${value}$`);
      const want2 = [v("k", "2"), v("t", "1"), v("acc", "3")];
      let vars = [];
      const vend = Date.now() + 30_000;
      while (!want2.every((re) => vars.some((r) => re.test(r)))) {
        if (Date.now() > vend) throw new Error(`the Variables view lacks k = 2, t = 1, acc = 3: ${JSON.stringify(vars.slice(0, 12))}`);
        await sleep(200);
        vars = await rowsOf(".debug-view-content .monaco-list-row");
      }
      log(`  stopped at line ${want}; call stack: ${JSON.stringify(stack.slice(0, 4))}; variables: ${JSON.stringify(vars.slice(0, 6))}`);
      await page.locator(".statusbar-item", { hasText: "block (0, 0, 0) thread (1, 0, 0)" }).first().waitFor({ timeout: 10_000 });
      await capture();
      await page.locator(".debug-toolbar .codicon-debug-continue").first().click();
      await page.locator(".debug-toolbar").waitFor({ state: "hidden", timeout: 30_000 });
    } finally {
      await runCommand(page, "CudaScript: Toggle Sanitizer").catch(() => undefined);
    }
  });
}
