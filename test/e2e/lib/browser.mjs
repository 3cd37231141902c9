/** Debian's chromium through playwright-core (nothing downloaded). */
import { existsSync } from "node:fs";
import { chromium } from "playwright-core";

export function chromiumPath() {
  for (const p of [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]) if (p && existsSync(p)) return p;
  throw new Error("chromium not found (apt-get install chromium, or set CHROMIUM_PATH)");
}

export function launchBrowser() {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"],
  });
}
