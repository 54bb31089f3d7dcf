// Debian's Chromium, headless, for the tests that look at a page. Its config and cache
// (crash reports, dconf) go to a directory of its own, removed when the browser closes,
// not into the home of whoever runs the tests.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { programPath } from "./programs.js";

/** Launches Chromium headless; closing the browser removes its directory. */
export async function launchChromium(): Promise<Browser> {
  const home = mkdtempSync(join(tmpdir(), "fisk-chromium-"));
  const executablePath = programPath("chromium");
  const browser = await chromium.launch({
    ...(executablePath === undefined ? {} : { executablePath }),
    args: ["--no-sandbox"],
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_CACHE_HOME: join(home, "cache") },
  });
  browser.on("disconnected", () => rmSync(home, { recursive: true, force: true }));
  return browser;
}
