// `session export ID --format html`, opened as a reader opens it: in headless Chromium
// (the system's, driven by playwright-core), from a file, with every request it makes
// recorded. FISK_AI_SCREENSHOT=FILE saves the page as the README shows it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { runCli } from "./helpers/cli-harness.js";
import { programPath, skipWithout } from "./helpers/programs.js";
import { HOSTILE_RESULT, hostileRecords, plantSession, tourRecords } from "./helpers/shown-sessions.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-html-"));
const STORE = join(ROOT, "runs");
const env = { ...process.env, NO_COLOR: "1" };

async function exportPage(runId: string): Promise<string> {
  const file = join(ROOT, `${runId}.html`);
  const result = await runCli(["session", "export", runId, "--format", "html", "-o", file, "--state-dir", STORE], { cwd: ROOT, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "");
  return file;
}

/** Opens `file` in a fresh page; everything the page asks for, and every console error, is kept. */
async function open(browser: Browser, file: string): Promise<{ page: Page; requests: string[]; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (request) => requests.push(request.url()));
  page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
  page.on("pageerror", (error) => errors.push(error.message));
  await page.goto(pathToFileURL(file).href);
  return { page, requests, errors };
}

describe("session export --format html", { skip: skipWithout("chromium") }, () => {
  let browser: Browser;
  before(async () => {
    plantSession(STORE, tourRecords("tour"));
    plantSession(STORE, hostileRecords("hostile"));
    browser = await chromium.launch({ executablePath: programPath("chromium"), args: ["--no-sandbox"] });
  });
  after(async () => {
    await browser?.close();
    rmSync(ROOT, { recursive: true, force: true });
  });

  it("the journals are sound, as a store would have written them", async () => {
    for (const runId of ["tour", "hostile"]) assert.equal((await runCli(["session", "verify", runId, "--state-dir", STORE], { cwd: ROOT, env })).code, 0, runId);
  });

  it("renders the metadata, the conversation and the token chart, with no request but the page's own and no error", async () => {
    const file = await exportPage("tour");
    assert.equal(statSync(file).mode & 0o777, 0o600, "the page holds the prompts: 0600");
    const { page, requests, errors } = await open(browser, file);
    assert.equal(await page.title(), "fisk-ai session tour");
    const meta = await page.locator("dl").innerText();
    assert.match(meta, /status\s+completed/);
    assert.match(meta, /model\s+claude-sonnet-4-5/);
    assert.match(meta, /model calls\s+7/);
    assert.equal(await page.locator("svg rect.in").count(), 7, "a bar of input tokens per model call");
    assert.match(await page.locator("figcaption").innerText(), /7 calls, each bar a model call/);
    assert.match(await page.locator(".user").first().innerText(), /The checkout tests fail since the shipping change/);
    assert.equal(await page.locator(".call").count(), 5);
    assert.equal(await page.locator("details.result").count(), 5, "every tool result folded");
    assert.equal(await page.locator("details.result.error").count(), 1);
    assert.equal(await page.locator("details.thinking").count(), 1);
    assert.match(await page.locator("details.marker summary").innerText(), /compacted: records 1 to 5 summarized \(17335 → 2950 tokens\)/);
    if (process.env.FISK_AI_SCREENSHOT !== undefined) {
      await page.locator("details.result.error").locator("summary").click();
      await page.screenshot({ path: process.env.FISK_AI_SCREENSHOT, fullPage: false });
    }
    assert.deepEqual(requests, [pathToFileURL(file).href]);
    assert.deepEqual(errors, []);
  });

  it("keeps thinking and tool results folded until their summary is clicked", async () => {
    const { page } = await open(browser, await exportPage("tour"));
    const thinking = page.locator("details.thinking");
    assert.equal(await thinking.getAttribute("open"), null);
    assert.equal(await thinking.locator("pre").isVisible(), false);
    await thinking.locator("summary").click();
    assert.equal(await thinking.getAttribute("open"), "");
    assert.match(await thinking.locator("pre").innerText(), /then read the totals code/);
  });

  it("finds text with the search box, opening the fold that holds it, and steps through the matches with Enter", async () => {
    const { page } = await open(browser, await exportPage("tour"));
    await page.locator("#search").fill("checkout_test.go:88");
    assert.equal(await page.locator("#count").innerText(), "1 of 1");
    const hit = page.locator(".hit");
    assert.equal(await hit.count(), 1);
    assert.equal(await page.locator("details.hit").count(), 1, "the match is a fold");
    assert.equal(await hit.getAttribute("open"), "", "the fold holding the match opened");
    assert.match(await hit.locator("pre").innerText(), /total = 1999, want 2099/);
    await page.locator("#search").fill("shipping");
    const total = Number((await page.locator("#count").innerText()).split(" of ")[1]);
    assert.ok(total >= 4, `matches of "shipping": ${total}`);
    await page.locator("#search").press("Enter");
    assert.equal(await page.locator("#count").innerText(), `2 of ${total}`);
    await page.locator("#search").press("Shift+Enter");
    assert.equal(await page.locator("#count").innerText(), `1 of ${total}`);
    await page.locator("#search").fill("no such words anywhere");
    assert.equal(await page.locator("#count").innerText(), "not found");
  });

  it("shows a hostile tool result as text: no script of it runs, nothing of it is fetched", async () => {
    const file = await exportPage("hostile");
    const html = readFileSync(file, "utf8");
    assert.ok(!html.includes("<script>window.__pwned"), "the result's markup is escaped in the file");
    const { page, requests, errors } = await open(browser, file);
    await page.locator("details.result summary").click();
    assert.equal(await page.locator("details.result pre").innerText(), HOSTILE_RESULT);
    assert.match(await page.locator(".call").innerText(), /<script>alert\(1\)<\/script>/);
    assert.equal(await page.evaluate("typeof window.__pwned"), "undefined");
    assert.equal(await page.locator("script").count(), 1, "only the page's own script");
    assert.equal(await page.locator("img").count(), 0);
    assert.deepEqual(requests, [pathToFileURL(file).href]);
    assert.deepEqual(errors, []);
  });

  it("refuses a file it cannot write in one line, exit 2", async () => {
    const result = await runCli(["session", "export", "tour", "--format", "html", "-o", join(ROOT, "missing-dir", "page.html"), "--state-dir", STORE], { cwd: ROOT, env });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^fisk-ai: cannot write .*missing-dir\/page\.html: no such file or directory\n$/);
  });
});
