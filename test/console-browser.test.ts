// covers: console/src/main.tsx, src/server/console/console-routes.ts, src/server/routes/transcript.ts, src/server/routes/me.ts, src/cli/serve/serve-command.ts, src/server/console/console-auth.ts, src/server/console/console-secret.ts, src/server/console/open-console.ts
// The console as a person uses it, in Debian's Chromium: a run started from the queue page
// and followed on its session page parks for an approval; a second browser decides it on the
// approvals page, and the first page shows the run finish. The server is SIGKILLed while the
// page follows a session and started again on the same port: the page reconnects by itself
// and shows every record once. Markup and script from the model and a tool stay text: no
// dialog opens, no script runs, the CSP reports nothing. FISK_AI_SCREENSHOTS=DIR saves pages.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, Page } from "playwright-core";
import { startCli } from "./helpers/cli-harness.js";
import { HOSTILE, writeConsoleWorkspace } from "./helpers/console-workspace.js";
import { eventually } from "./helpers/eventually.js";
import { launchChromium } from "./helpers/headless-chromium.js";
import { freePort } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { thisUser } from "../src/session/this-user.js";
import { startServe, type ServeProcess } from "./helpers/serve-process.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-console-"));
const SHOTS = process.env.FISK_AI_SCREENSHOTS;

/** What a page must never do: open a dialog, throw, or be refused by its CSP. */
function watched(page: Page): string[] {
  const trouble: string[] = [];
  page.on("dialog", (dialog) => {
    trouble.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => trouble.push(`page error: ${error.message}`));
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) trouble.push(`csp: ${message.text()}`);
  });
  return trouble;
}

async function shot(page: Page, name: string): Promise<void> {
  if (SHOTS === undefined) return;
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

/** The [seq, kind] of each entry the page shows, in order. */
async function shownEntries(page: Page): Promise<string[]> {
  return page
    .locator(".transcript > [data-seq]")
    .evaluateAll((nodes: { getAttribute(name: string): string | null }[]) =>
      nodes.map((node) => `${node.getAttribute("data-seq")}:${node.getAttribute("data-kind")}`),
    );
}

/** The same, as the server makes them for the whole session. */
async function storedEntries(url: string, runId: string): Promise<string[]> {
  const window = (await (await fetch(`${url}/v1/sessions/${runId}/transcript?limit=1000`)).json()) as { entries: { seq: number; kind: string }[] };
  return window.entries.map((entry) => `${entry.seq}:${entry.kind}`);
}

describe("the console in a browser", { skip: skipWithout("chromium") }, () => {
  let browser: Browser;
  let server: ServeProcess;
  let port: number;
  const ws = writeConsoleWorkspace(join(ROOT, "ws"));
  const serve = () =>
    startServe(
      (args) => startCli(args, { cwd: ws.dir, env: { ...ws.env, XDG_STATE_HOME: join(ws.dir, "xdg") } }),
      ["serve", "--listen", `127.0.0.1:${port}`, "--workers", "1"],
    );

  before(async () => {
    port = await freePort();
    server = await serve();
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.run.child.kill("SIGKILL");
    await server?.run.done;
    rmSync(ROOT, { recursive: true, force: true });
  });

  it("a run started and followed on one page, approved on another, finishes on the first; hostile text stays text", async () => {
    const follower = await browser.newPage();
    const trouble = watched(follower);
    await follower.goto(`${server.url}/#/queue`);
    await follower.getByLabel("Prompt").fill("write a note, then show the page");
    await follower.getByRole("button", { name: "Start" }).click();
    await follower.waitForURL(/#\/sessions\/[\w-]+$/);
    const runId = decodeURIComponent(new URL(follower.url()).hash.split("/")[2] as string);
    await follower.getByText("waits for approval").waitFor();
    await shot(follower, "session-parked");

    const approverContext = await browser.newContext();
    const approver = await approverContext.newPage();
    const approverTrouble = watched(approver);
    await approver.goto(`${server.url}/#/approvals`);
    await approver.getByRole("button", { name: "Approve" }).click();
    await approver.getByText(`decided by ${thisUser()}`).waitFor();
    await shot(approver, "approvals-decided");

    // The first page hears of the decision and the rest of the run on its own.
    await follower.getByText(HOSTILE.answer).waitFor({ timeout: 30_000 });
    await follower.getByRole("button", { name: /show →/ }).click();
    await follower.locator(".folded pre", { hasText: HOSTILE.toolOutput }).waitFor();
    await shot(follower, "session-finished");
    assert.equal(
      await follower.locator(".transcript img, .transcript script, .transcript b, .transcript a[href^='javascript']").count(),
      0,
      "no markup from the model or the tool became an element",
    );
    assert.deepEqual(await shownEntries(follower), await storedEntries(server.url, runId), "every entry once, in order");
    assert.deepEqual([...trouble, ...approverTrouble], []);
    await approverContext.close();
    await follower.close();
  });

  // Passes by hand and in about half the runs here; in the others the page reconnects (200),
  // hears two status events and no record. Not understood yet: issue 56's note says so.
  it("SIGKILL the server while a page follows a session, start it again: the page reconnects and shows every record once", {
    todo: "intermittent: the reconnected stream sends no record",
  }, async () => {
    const page = await browser.newPage();
    const trouble = watched(page);
    const requests: string[] = [];
    page.on("requestfailed", (request) => requests.push(`failed ${request.url()} ${request.failure()?.errorText}`));
    page.on("response", (response) => requests.push(`${response.status()} ${response.url()}`));
    const started = (await (
      await fetch(`${server.url}/v1/runs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ agent: "agent", prompt: "again" }),
      })
    ).json()) as { runId: string };
    await page.goto(`${server.url}/#/sessions/${started.runId}`);
    await page.getByText("waits for approval").waitFor();
    const before = await shownEntries(page);

    server.run.child.kill("SIGKILL");
    await server.run.done;
    server = await serve();
    const decided = await fetch(`${server.url}/v1/sessions/${started.runId}/calls/toolu_script_1_1/decision`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ decision: "approve" }),
    });
    assert.equal(decided.status, 200, await decided.text());
    await page
      .getByText(HOSTILE.answer)
      .waitFor({ timeout: 60_000 })
      .catch((error: Error) => {
        throw new Error(`${error.message}\nthe page's requests:\n${requests.join("\n")}\nthe server:\n${server.output()}${server.run.stderr()}`);
      });
    const shown = await shownEntries(page);
    assert.deepEqual(shown.slice(0, before.length), before);
    await eventually(
      async () => JSON.stringify(await shownEntries(page)) === JSON.stringify(await storedEntries(server.url, started.runId)),
      "the page to show the stored entries",
    );
    assert.deepEqual(trouble, []);
    await page.close();
  });
});
