// covers: src/cli/text/session-html.ts
// `session export ID --format html`, opened as a reader opens it: in headless Chromium
// (the system's, driven by playwright-core), from a file, with every request it makes
// recorded. FISK_AI_SCREENSHOT=FILE saves the page as docs/viewing-sessions.md shows it.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { launchChromium } from "./helpers/headless-chromium.js";
import { skipWithout } from "./helpers/programs.js";
import { HOSTILE_RESULT, hostileRecords, plantSession, tourRecords } from "./helpers/shown-sessions.js";
import { commandsInProcess } from "./helpers/in-process-cli.js";

/** The file's first call spawned, the later ones in this process (test/helpers/in-process-cli.ts). */
const cli = commandsInProcess(["session", "run"]);

const ROOT = mkdtempSync(join(tmpdir(), "fisk-html-"));
// Removed at the file's end, not in the suite's after: a suite skipped for want of a program runs no hook.
after(() => rmSync(ROOT, { recursive: true, force: true }));
const STORE = join(ROOT, "runs");
const env = { ...process.env, NO_COLOR: "1" };

async function exportPage(runId: string): Promise<string> {
  const file = join(ROOT, `${runId}.html`);
  const result = await cli(["session", "export", runId, "--format", "html", "-o", file, "--state-dir", STORE], { cwd: ROOT, env });
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

/** The page's metadata as "name: value" lines, read from its file. */
function metadataOf(file: string): string[] {
  const dl = /<dl>(.*?)<\/dl>/s.exec(readFileSync(file, "utf8"))?.[1] ?? "";
  return [...dl.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map(([, name, value]) => `${name}: ${value}`);
}

describe("session export --format html: the cost", () => {
  const dir = mkdtempSync(join(tmpdir(), "fisk-html-cost-"));
  const store = join(dir, "runs");
  before(() => {
    plantSession(store, tourRecords("priced"));
    // The same session on a model no price is known for.
    plantSession(
      store,
      tourRecords("local").map((record) =>
        "meta" in record ? { ...record, meta: { ...record.meta, fingerprint: { ...record.meta.fingerprint, model: "llama3.2" } } } : record,
      ),
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function costs(runId: string, config: string[] = []): Promise<{ meta: string[]; shown: string[]; caption: string; bars: string[] }> {
    const file = join(dir, `${runId}.html`);
    const result = await cli(["session", "export", runId, "--format", "html", "-o", file, "--state-dir", store, ...config], { cwd: dir, env });
    assert.equal(result.code, 0, result.stderr);
    const html = readFileSync(file, "utf8");
    const show = await cli(["session", "show", runId, "--no-tui", "--state-dir", store, ...config], { cwd: dir, env });
    return {
      meta: metadataOf(file).filter((line) => line.startsWith("cost")),
      shown: show.stdout
        .split("\n")
        .filter((line) => line.startsWith("cost"))
        .map((line) => line.replace(/^(cost(?: \S+(?: \(compaction\))?)?) +/, "$1: ")),
      caption: /<figcaption>(.*?)<\/figcaption>/.exec(html)?.[1] ?? "",
      bars: [...html.matchAll(/<title>(turn \d+: [^<]*)<\/title>/g)].map(([, title]) => title as string),
    };
  }

  it("shows the session's cost as session show does, and each model call's beside its tokens", async () => {
    const { meta, shown, caption, bars } = await costs("priced");
    assert.deepEqual(meta, shown);
    assert.deepEqual(meta, [
      "cost claude-sonnet-4-5: $0.1049 for 7 calls: in 31610, out 670, cache read 0, cache write 0",
      "cost claude-sonnet-4-5 (compaction): $0.0036 for 1 call: in 900, out 60, cache read 0, cache write 0",
      "cost: $0.1085",
    ]);
    assert.match(caption, /7 calls, each bar a model call, \$0\.1049 in all/);
    assert.equal(bars.length, 7);
    for (const bar of bars) {
      const [, input, output, dollars] = /^turn \d+: (\d+) in, (\d+) out, \$(\d+\.\d{4})$/.exec(bar) ?? assert.fail(bar);
      assert.equal(dollars, ((Number(input) * 3 + Number(output) * 15) / 1_000_000).toFixed(4), bar);
    }
  });

  it("prices by agent.yaml's table where it gives one, and says no price where none is known", async () => {
    writeFileSync(join(dir, "agent.yaml"), "pricing:\n  claude-sonnet-4-5: { input: 1, output: 1, cache_read: 1, cache_write: 1 }\n");
    try {
      const { meta, caption } = await costs("priced", ["--config", join(dir, "agent.yaml")]);
      assert.equal(meta.at(-1), `cost: ${"$" + ((31610 + 670 + 900 + 60) / 1_000_000).toFixed(4)}`);
      assert.match(caption, /\$0\.0323 in all/);
    } finally {
      rmSync(join(dir, "agent.yaml"));
    }
    const local = await costs("local");
    assert.equal(
      local.meta.find((line) => line.startsWith("cost llama3.2:")),
      "cost llama3.2: no price for 7 calls: in 31610, out 670, cache read 0, cache write 0",
    );
    assert.match(local.caption, /each bar a model call, no price in all/);
    assert.ok(
      local.bars.every((bar) => bar.endsWith(", no price")),
      local.bars.join("\n"),
    );
  });
});

describe("session export --format html", { skip: skipWithout("chromium") }, () => {
  let browser: Browser;
  before(async () => {
    plantSession(STORE, tourRecords("tour"));
    plantSession(STORE, hostileRecords("hostile"));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  it("the journals are sound, as a store would have written them", async () => {
    for (const runId of ["tour", "hostile"]) assert.equal((await cli(["session", "verify", runId, "--state-dir", STORE], { cwd: ROOT, env })).code, 0, runId);
  });

  it("renders the metadata, the conversation and the token chart, with no request but the page's own and no error", async () => {
    const file = await exportPage("tour");
    assert.equal(statSync(file).mode & 0o777, 0o600, "the page holds the prompts: 0600");
    const { page, requests, errors } = await open(browser, file);
    // Named by what it was asked (it has no title), the prompt also among the metadata.
    const prompt = "The checkout tests fail since the shipping change: find out why and fix it.";
    assert.equal(await page.title(), `${prompt} · fisk-ai session tour`);
    assert.equal(await page.locator("h1").innerText(), prompt);
    const meta = await page.locator("dl").innerText();
    assert.match(meta, new RegExp(`prompt\\s+${prompt.replace(/[.:]/g, "\\$&")}`));
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

  it("is named by the session's title where it has one", async () => {
    plantSession(STORE, tourRecords("titled"));
    const renamed = await cli(["session", "rename", "titled", "Checkout <fix>", "--state-dir", STORE], { cwd: ROOT, env });
    assert.equal(renamed.code, 0, renamed.stderr);
    const { page } = await open(browser, await exportPage("titled"));
    assert.equal(await page.title(), "Checkout <fix> · fisk-ai session titled");
    assert.equal(await page.locator("h1").innerText(), "Checkout <fix>");
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
    const result = await cli(["session", "export", "tour", "--format", "html", "-o", join(ROOT, "missing-dir", "page.html"), "--state-dir", STORE], {
      cwd: ROOT,
      env,
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^fisk-ai: cannot write .*missing-dir\/page\.html: no such file or directory\n$/);
  });
});
