/**
 * UI test (run by test/e2e/ui.mjs): a Profile results panel survives a window reload. Profile from the
 * CodeLens on transposeNaive, then "Developer: Reload Window" with the panel in front: the restored
 * panel (resultsPanel.ts WebviewPanelSerializer) reads the profile report its saved state names and
 * shows the Profile section again, heat column and all. Run last: the reload starts a new window.
 */
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A frame of the page whose document shows a profile's hottest line (the panel may take a while). */
async function heatFrame(page, timeout) {
  const end = Date.now() + timeout;
  while (Date.now() < end) {
    for (const f of page.frames()) if (await f.evaluate(() => !!document.querySelector("table.profile-source td.heat-5")).catch(() => false)) return f;
    await sleep(250);
  }
  return undefined;
}

export async function profileReloadTest({ page, test, runCommand, openFile, closeEditors, codeLens, log }) {
  await test("Reload the window with a Profile panel in front: the restored panel shows the profile again", "ui-profile-reload.png", async (capture) => {
    await closeEditors();
    await openFile(page, "transpose.ts");
    await (await codeLens(page, /^Profile$/, "export const transposeNaive")).click();
    if (!(await heatFrame(page, 120_000))) throw new Error("the profile did not appear before the reload");
    await page.locator(".tabs-container .tab", { hasText: "Profile: transposeNaive" }).first().click();
    await sleep(1000); // the webview saves its state
    await Promise.all([page.waitForEvent("load", { timeout: 60_000 }), runCommand(page, "Developer: Reload Window")]);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60_000 });
    const frame = await heatFrame(page, 90_000);
    if (!frame) throw new Error("the restored panel shows no profile");
    const hot = await frame.evaluate(() => [...document.querySelectorAll("table.profile-source tr[data-heat='5']")].map((r) => r.getAttribute("data-line")));
    log(`  restored: hot lines ${hot.join(", ")}`);
    if (!hot.includes("14")) throw new Error(`line 14 (the strided store) is not hot after the reload: ${hot}`);
    await capture();
  });
}
