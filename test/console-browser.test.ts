// covers: console/src/main.tsx, src/server/console/console-routes.ts, src/server/routes/transcript.ts, src/server/routes/me.ts, src/cli/serve/serve-command.ts, src/server/console/console-auth.ts, src/server/console/console-secret.ts, src/server/console/open-console.ts
// The console as people use it, in Debian's Chromium, on a server with a key file: alice
// (may run) signs in with her key, starts a run from the queue page and follows it on its
// session page until it parks for an approval; ops (may approve) signs in in another browser
// and decides it on the approvals page, and alice's page shows the run finish and who decided.
// A key of another tenant sees none of it. The key is posted once: it is in no URL and no
// storage, the cookie is HttpOnly and SameSite=Strict, and signing out ends the sign-in on the
// server. The server is SIGKILLed while the page follows a session and started again on the
// same port: the page reconnects by itself and shows every record once. Markup and script from
// the model and a tool stay text: no dialog opens, no script runs, the CSP reports nothing.
// Without a key file, on loopback, the page is the machine's user's and passes the server's
// Host and Origin guard. axe-core finds nothing serious on any page; FISK_AI_SCREENSHOTS=DIR
// saves each page.
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page, Route } from "playwright-core";
import { newApiKey, type NewApiKey } from "../src/server/auth/new-key.js";
import { thisUser } from "../src/session/this-user.js";
import { startCli } from "./helpers/cli-harness.js";
import { seriousViolations } from "./helpers/accessibility.js";
import { HOSTILE, writeConsoleWorkspace } from "./helpers/console-workspace.js";
import { eventually } from "./helpers/eventually.js";
import { launchChromium } from "./helpers/headless-chromium.js";
import { freePort } from "./helpers/nats-server.js";
import { skipWithout } from "./helpers/programs.js";
import { startServe, type ServeProcess } from "./helpers/serve-process.js";

const ROOT = mkdtempSync(join(tmpdir(), "fisk-console-"));
const SHOTS = process.env.FISK_AI_SCREENSHOTS;
/** A page waits this long for what a loaded machine's server and worker take their time to do. */
const SLOW = { timeout: 60_000 };

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

/** A page as it stands: axe-core finds nothing serious or critical on it; saved as NAME.png when asked for screenshots. */
async function looked(page: Page, name: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `the ${name} page's accessibility`);
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

/** A request to the server's API with `key` as a client sends it. */
function withKey(url: string, key: NewApiKey, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${key.key}`);
  if (init.body !== undefined) headers.set("content-type", "application/json");
  return fetch(url, { ...init, headers });
}

/** The same entries, as the server makes them for the whole session. */
async function storedEntries(url: string, key: NewApiKey, runId: string): Promise<string[]> {
  const window = (await (await withKey(`${url}/v1/sessions/${runId}/transcript?limit=1000`, key)).json()) as { entries: { seq: number; kind: string }[] };
  return window.entries.map((entry) => `${entry.seq}:${entry.kind}`);
}

/** A browser context of its own, every URL it asked for, and its page signed in with `key` on the console's form. */
async function signedIn(browser: Browser, url: string, key: NewApiKey): Promise<{ context: BrowserContext; page: Page; urls: string[] }> {
  const context = await browser.newContext();
  const urls: string[] = [];
  context.on("request", (request) => urls.push(request.url()));
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel("API key").fill(key.key);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor(SLOW);
  return { context, page, urls };
}

/** What the page's own storage and markup hold, for a search for a secret. */
async function pageKeeps(page: Page): Promise<string> {
  // A string: it runs in the page, whose globals the tests' types do not have.
  return page.evaluate<string>(
    "JSON.stringify([{ ...localStorage }, { ...sessionStorage }, document.cookie, location.href, document.documentElement.outerHTML])",
  );
}

describe("the console in a browser, signed in with keys", { skip: skipWithout("chromium") }, () => {
  const alice = newApiKey("alice", "acme", ["read", "run"]);
  const ops = newApiKey("ops", "acme", ["read", "approve", "admin"]);
  const eve = newApiKey("eve", "globex", ["read", "run", "approve"]);
  let browser: Browser;
  let server: ServeProcess;
  let port: number;
  const ws = writeConsoleWorkspace(join(ROOT, "ws"));
  const keyFile = join(ROOT, "keys.json");
  writeFileSync(keyFile, JSON.stringify({ keys: [alice, ops, eve].map((key) => key.entry) }));
  chmodSync(keyFile, 0o600);
  const serve = () =>
    startServe(
      (args) => startCli(args, { cwd: ws.dir, env: { ...ws.env, XDG_STATE_HOME: join(ws.dir, "xdg") } }),
      ["serve", "--listen", `127.0.0.1:${port}`, "--workers", "1", "--keys", keyFile],
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
  });

  it("alice's run parks, ops approves it in another browser, alice's page shows it finish; another tenant sees none of it; hostile text stays text", async () => {
    const first = await browser.newContext();
    const signIn = await first.newPage();
    await signIn.goto(server.url);
    await signIn.getByLabel("API key").waitFor(SLOW);
    await looked(signIn, "sign-in");
    await first.close();

    const { context: aliceContext, page: follower, urls: aliceUrls } = await signedIn(browser, server.url, alice);
    const trouble = watched(follower);
    await follower.goto(`${server.url}/#/queue`);
    await follower.getByLabel("Prompt").fill("write a note, then show the page");
    await follower.getByRole("button", { name: "Start" }).click();
    await follower.waitForURL(/#\/sessions\/[\w-]+$/);
    const runId = decodeURIComponent(new URL(follower.url()).hash.split("/")[2] as string);
    await follower.getByText("waits for approval").waitFor(SLOW);
    await looked(follower, "session-parked");

    // Another tenant's key, while the call waits: no session, no approval, and the session's page is not found.
    const { context: eveContext, page: stranger } = await signedIn(browser, server.url, eve);
    const strangerTrouble = watched(stranger);
    await stranger.goto(`${server.url}/#/sessions`);
    await stranger.getByText("No sessions yet.").waitFor(SLOW);
    assert.equal(await stranger.locator("tr[data-session]").count(), 0, "eve lists none of acme's sessions");
    await stranger.goto(`${server.url}/#/approvals`);
    await stranger.getByText("Nothing waits for a decision.").waitFor(SLOW);
    await stranger.goto(`${server.url}/#/sessions/${runId}`);
    await stranger.getByRole("alert").waitFor(SLOW);
    assert.equal(await stranger.locator(".transcript [data-seq]").count(), 0);
    await eveContext.close();

    const { context: opsContext, page: approver } = await signedIn(browser, server.url, ops);
    const approverTrouble = watched(approver);
    await approver.goto(`${server.url}/#/approvals`);
    await approver.getByRole("button", { name: "Approve" }).waitFor(SLOW);
    await looked(approver, "approvals");
    await approver.getByRole("button", { name: "Approve" }).click();
    await approver.getByText("decided by ops").waitFor(SLOW);
    await looked(approver, "approvals-decided");
    await approver.goto(`${server.url}/#/queue`);
    await approver.getByRole("table", { name: "Processes driving runs" }).waitFor(SLOW);
    await looked(approver, "queue");

    // The first page hears of the decision and the rest of the run on its own.
    await follower.getByText(HOSTILE.answer).waitFor(SLOW);
    await follower.locator(".entry.marker", { hasText: / by ops\b/ }).waitFor(SLOW);
    await follower.getByRole("button", { name: /show →/ }).click();
    await follower.locator(".folded pre", { hasText: HOSTILE.toolOutput }).waitFor();
    await looked(follower, "session-finished");
    assert.equal(
      await follower.locator(".transcript img, .transcript script, .transcript b, .transcript a[href^='javascript']").count(),
      0,
      "no markup from the model or the tool became an element",
    );
    assert.deepEqual(await shownEntries(follower), await storedEntries(server.url, alice, runId), "every entry once, in order");
    await follower.goto(`${server.url}/#/sessions`);
    await follower.locator(`tr[data-session="${runId}"]`).waitFor(SLOW);
    const cells = await follower.locator(`tr[data-session="${runId}"] td`).allTextContents();
    assert.deepEqual([cells[1], cells[2], cells[7]], ["completed", "agent", ""], "status, agent, and no parent");
    assert.match(cells[5] ?? "", /^\d+(\.\dk)?$/, "its tokens");
    await looked(follower, "sessions");

    // The key was posted once and kept nowhere the page or a URL holds.
    for (const [who, key] of [
      ["alice", alice],
      ["ops", ops],
    ] as const) {
      const page = who === "alice" ? follower : approver;
      assert.ok(!(await pageKeeps(page)).includes(key.key), `${who}'s key is not in the page's storage, cookie or markup`);
    }
    for (const url of aliceUrls) assert.ok(!url.includes(alice.key) && !url.includes(encodeURIComponent(alice.key)), `the key is not in ${url}`);
    const cookies = await aliceContext.cookies();
    assert.equal(cookies.length, 1, JSON.stringify(cookies.map((cookie) => cookie.name)));
    assert.equal(cookies[0]?.httpOnly, true);
    assert.equal(cookies[0]?.sameSite, "Strict");
    assert.ok(!cookies[0]?.value.includes(alice.key), "the cookie holds the key sealed, not as it is");

    assert.deepEqual([...trouble, ...approverTrouble, ...strangerTrouble], []);
    await opsContext.close();
    await aliceContext.close();
  });

  it("signing out ends the sign-in on the server: its cookie replayed is refused", async () => {
    const { context, page } = await signedIn(browser, server.url, ops);
    const [cookie] = await context.cookies();
    assert.ok(cookie !== undefined);
    const replay = () => fetch(`${server.url}/v1/me`, { headers: { cookie: `${cookie.name}=${cookie.value}` } });
    assert.equal((await replay()).status, 200, "the cookie is a sign-in while it lasts");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("API key").waitFor(SLOW);
    assert.deepEqual(await context.cookies(), [], "the browser's cookie is gone");
    assert.equal((await replay()).status, 401, "and the server refuses it when replayed");
    await context.close();
  });

  // The page's overview of the session is asked again at each status event, so a SIGKILL may
  // cut one short; held here until the server is down, so that case is met in every run: the
  // page must go on following, not give up its transcript for the failed request's error.
  it("SIGKILL the server while a page follows a session and asks for its overview, start it again: the page reconnects and shows every record once", async () => {
    const { context, page } = await signedIn(browser, server.url, alice);
    const trouble = watched(page);
    const requests: string[] = [];
    page.on("requestfailed", (request) => requests.push(`failed ${request.url()} ${request.failure()?.errorText}`));
    page.on("response", (response) => requests.push(`${response.status()} ${response.url()}`));
    const started = (await (
      await withKey(`${server.url}/v1/runs`, alice, { method: "POST", body: JSON.stringify({ agent: "agent", prompt: "again" }) })
    ).json()) as { runId: string };
    const overview = (url: URL) => url.pathname === `/v1/sessions/${started.runId}`;
    const held: Route[] = [];
    await page.route(overview, (route) => void held.push(route));
    await page.goto(`${server.url}/#/sessions/${started.runId}`);
    await page.getByText("waits for approval").waitFor(SLOW);
    await eventually(() => held.length > 0, "the page to ask for the session's overview");
    const before = await shownEntries(page);

    server.run.child.kill("SIGKILL");
    await server.run.done;
    // Sent now, each fails as a request cut by the SIGKILL does: nothing listens on the port.
    for (const route of held) await route.continue();
    await page.unroute(overview);
    server = await serve();
    const decided = await withKey(`${server.url}/v1/sessions/${started.runId}/calls/toolu_script_1_1/decision`, ops, {
      method: "POST",
      body: JSON.stringify({ decision: "approve" }),
    });
    assert.equal(decided.status, 200, await decided.text());
    await page
      .getByText(HOSTILE.answer)
      .waitFor(SLOW)
      .catch((error: Error) => {
        throw new Error(`${error.message}\nthe page's requests:\n${requests.join("\n")}\nthe server:\n${server.output()}${server.run.stderr()}`);
      });
    const shown = await shownEntries(page);
    assert.deepEqual(shown.slice(0, before.length), before);
    await eventually(
      async () => JSON.stringify(await shownEntries(page)) === JSON.stringify(await storedEntries(server.url, alice, started.runId)),
      "the page to show the stored entries",
    );
    await page.locator("#session-heading .status", { hasText: "completed" }).waitFor(SLOW);
    assert.equal(await page.getByRole("alert").count(), 0, "the overview's failure is gone once it answers again");
    assert.deepEqual(trouble, []);
    await context.close();
  });
});

describe("the console in a browser, on loopback without keys", { skip: skipWithout("chromium") }, () => {
  let browser: Browser;
  let server: ServeProcess;
  const ws = writeConsoleWorkspace(join(ROOT, "loopback"));

  before(async () => {
    server = await startServe((args) => startCli(args, { cwd: ws.dir, env: { ...ws.env, XDG_STATE_HOME: join(ws.dir, "xdg") } }));
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.run.child.kill("SIGKILL");
    await server?.run.done;
    rmSync(ROOT, { recursive: true, force: true });
  });

  it("the page is the machine's user's, with no sign-in, and what it changes passes the Host and Origin guard", async () => {
    const page = await browser.newPage();
    const trouble = watched(page);
    await page.goto(`${server.url}/#/queue`);
    await page.getByText(`${thisUser()} (default)`).waitFor(SLOW);
    assert.equal(await page.getByRole("button", { name: "Sign out" }).count(), 0, "nothing to sign out of");
    await page.getByLabel("Prompt").fill("write a note");
    await page.getByRole("button", { name: "Start" }).click();
    await page.getByText("waits for approval").waitFor(SLOW);
    await page.goto(`${server.url}/#/approvals`);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText(`decided by ${thisUser()}`).waitFor(SLOW);
    assert.deepEqual(trouble, []);
    await page.close();
  });
});
